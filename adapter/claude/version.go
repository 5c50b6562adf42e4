package claude

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The Claude Code versions Trail Boss is verified against: the real-agent suite runs every
// Claude Code test on both (cmd/trailboss/agents_harness_test.go), and doctor judges the
// installed claude by them.
const (
	OldestSupported = "2.1.197" // the oldest that sends what Trail Boss reads
	NewestVerified  = "2.1.332"
)

// Support is how far Trail Boss vouches for a version of Claude Code.
type Support int

const (
	VersionUnreadable Support = iota // not a version: nothing can be said
	TooOld                           // older than OldestSupported
	Supported                        // from OldestSupported to NewestVerified
	Verified                         // OldestSupported or NewestVerified themselves
	NewerThanVerified                // newer than NewestVerified: should work, not yet verified
)

// CheckVersion returns how far Trail Boss vouches for Claude Code version v, given as
// "2.1.332" or as `claude --version` prints it ("2.1.332 (Claude Code)"), and the version
// alone ("2.1.332"; "" when unreadable).
func CheckVersion(v string) (Support, string) {
	got, ok := parseVersion(v)
	if !ok {
		return VersionUnreadable, ""
	}
	oldest, _ := parseVersion(OldestSupported)
	newest, _ := parseVersion(NewestVerified)
	plain := fmt.Sprintf("%d.%d.%d", got[0], got[1], got[2])
	switch toOldest, toNewest := slices.Compare(got[:], oldest[:]), slices.Compare(got[:], newest[:]); {
	case toOldest < 0:
		return TooOld, plain
	case toNewest > 0:
		return NewerThanVerified, plain
	case toOldest == 0 || toNewest == 0:
		return Verified, plain
	}
	return Supported, plain
}

// parseVersion reads the leading "MAJOR.MINOR.PATCH" of s (a "v" before it, and anything
// after a space or a "-", are allowed); false when s does not start with one.
func parseVersion(s string) ([3]int, bool) {
	var out [3]int
	f := strings.Fields(s)
	if len(f) == 0 {
		return out, false
	}
	word, _, _ := strings.Cut(strings.TrimPrefix(f[0], "v"), "-")
	parts := strings.Split(word, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || strings.TrimLeft(p, "0123456789") != "" {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
