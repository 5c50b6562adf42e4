package pty

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/adapter/prompt"
)

// floodTail is what a full buffer holds after a flood of lines: the last size bytes of it,
// ending with a yes/no prompt.
func floodTail(size int) []byte {
	var b strings.Builder
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "flood line %06d of 100000: the quick brown fox jumps over the lazy dog\r\n", i)
	}
	b.WriteString("Continue? (y/n) ")
	s := b.String()
	return []byte(s[len(s)-size:])
}

// detect gives the classifier the end of the screen it has replayed rather than the
// whole tail to replay again; the classifier must read the same prompt either way.
func TestDetectReadsWhatTheWholeTailShows(t *testing.T) {
	fwd := func(s string) string { return strings.ReplaceAll(s, " ", "\x1b[1C") }
	redrawn := ""
	for i := 0; i < 30; i++ {
		redrawn += fmt.Sprintf("\x1b[2K\x1b[1A\x1b[2K\x1b[G\x1b[36m✻\x1b[39m Working… (%ds · esc to interrupt)\r\n", i)
	}
	tails := map[string]string{
		"flood":      string(floodTail(DefaultBufferSize)),
		"partial":    "Do you want to continue? (y/n)",
		"redraw":     "Loading... \rLoading... \r\x1b[2KLoading. Done!\r\nProceed? (y/n) ",
		"erased":     "Delete file? (y/n) \r                   \r",
		"menu":       "Select an option:\r\n1) Deploy to staging\r\n2) Deploy to production\r\n3) Cancel\r\nEnter choice [1-3]: ",
		"spinner":    redrawn,
		"permission": redrawn + "\x1b[1m" + fwd("Do you want to proceed?") + "\x1b[22m\r\n\x1b[36m❯\x1b[39m " + fwd("1. Yes") + "\r\n  " + fwd("2. Yes, and don't ask again for this command") + "\r\n  " + fwd("3. No, and tell Claude what to do differently (esc)") + "\r\n",
		"long":       strings.Repeat("a line of history\r\n", 500) + "Press Enter to continue",
	}
	if b, err := os.ReadFile(filepath.Join("..", "codex", "testdata", "real", "screen-approval-prompt.txt")); err == nil {
		tails["codex"] = string(b)
	}
	for name, tail := range tails {
		want := prompt.Classify(tail)
		got := prompt.Classify(lastLines(prompt.StripANSI(tail), classifyLines))
		if got.Kind != want.Kind || got.Question != want.Question || got.Confidence != want.Confidence ||
			!slices.Equal(got.Choices, want.Choices) || got.Screen != want.Screen {
			t.Errorf("%s: the end of the replayed screen reads %+v, the whole tail %+v", name, got, want)
		}
	}
}

func TestLastLines(t *testing.T) {
	for _, c := range []struct {
		screen string
		n      int
		want   string
	}{
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb\n\n\nc", 2, "b\n\n\nc"},
		{"a\nb\nc\n", 1, "c\n"},
		{"a\nb", 5, "a\nb"},
		{"", 3, ""},
		{"\n\n", 1, "\n\n"},
	} {
		if got := lastLines(c.screen, c.n); got != c.want {
			t.Errorf("lastLines(%q, %d) = %q, want %q", c.screen, c.n, got, c.want)
		}
	}
}

// Reading a full buffer allocates far less than the 2 MB the supervisor's memory may grow
// by in a flood (QA-018): the supervisor is a small process, and what detect allocates
// stays resident until the first collection, at a 4 MB heap.
func TestDetectOnAFullBufferAllocatesLittle(t *testing.T) {
	tail := floodTail(DefaultBufferSize)
	detect(tail) // compiled expressions and tables are made once
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	d := detect(tail)
	runtime.ReadMemStats(&m1)
	if d.prompt == nil || d.prompt.Kind != KindYesNo {
		t.Fatalf("the flood's prompt was not read: %+v", d)
	}
	if n := m1.TotalAlloc - m0.TotalAlloc; n > 768<<10 {
		t.Errorf("reading a %d KB buffer allocated %d KB, want at most 768 KB", len(tail)>>10, n>>10)
	}
}
