package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter/claude"
)

// claudeVersionTimeout bounds `claude --version`. It prints at once: 0.05 s for 2.1.332,
// 0.3 to 0.7 s for 2.1.197 on a busy machine.
var claudeVersionTimeout = 3 * time.Second

// claudeCode says which Claude Code the `claude` on PATH is, and whether Trail Boss supports
// it: from claude.OldestSupported on; verified at that version and at claude.NewestVerified;
// newer ones should work. It asks `claude --version`, which is there whether or not a Claude
// Code runs, and is the one the next `claude` typed in a pane starts.
func (d *doctor) claudeCode(ctx context.Context) finding {
	verified := fmt.Sprintf("Trail Boss supports Claude Code %s and newer, and is verified with %s and %s",
		claude.OldestSupported, claude.OldestSupported, claude.NewestVerified)
	bin := lookPathIn("claude", d.getenv("PATH"))
	if bin == "" {
		return finding{level: note, what: "Claude Code (claude) is not on your PATH, so doctor cannot tell its version",
			detail: []string{verified}, fix: "if you use Claude Code, run claude --version to see which you have"}
	}
	ctx, cancel := context.WithTimeout(ctx, claudeVersionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.WaitDelay = time.Second // a child that keeps its output open does not hold doctor
	out, err := cmd.Output()
	support, v := claude.CheckVersion(string(out))
	switch {
	case ctx.Err() != nil:
		return finding{level: note, what: fmt.Sprintf("%s --version did not answer within %v, so doctor cannot tell which Claude Code you have",
			bin, claudeVersionTimeout), detail: []string{verified}, fix: "run claude --version yourself"}
	case err != nil:
		why := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if first, _, _ := strings.Cut(strings.TrimSpace(string(ee.Stderr)), "\n"); first != "" {
				why += ": " + clipRunes(first, 80)
			}
		}
		return finding{level: note, what: fmt.Sprintf("doctor cannot tell which Claude Code %s is: claude --version failed (%s)", bin, why),
			detail: []string{verified}, fix: "run claude --version yourself"}
	case support == claude.VersionUnreadable:
		return finding{level: note, what: fmt.Sprintf("doctor cannot tell which Claude Code %s is: claude --version said %q",
			bin, clipRunes(strings.TrimSpace(string(out)), 80)), detail: []string{verified}, fix: "run claude --version yourself"}
	case support == claude.TooOld:
		return finding{level: bad, what: fmt.Sprintf("Claude Code %s (%s) is older than Trail Boss supports (%s or newer)", v, bin, claude.OldestSupported),
			detail: []string{"older versions send hooks and draw dialogs that Trail Boss may misread"},
			fix:    "update Claude Code: claude update (or reinstall it the way you installed it)"}
	case support == claude.NewerThanVerified:
		return finding{level: note, what: fmt.Sprintf("Claude Code %s (%s) is newer than verified (%s): should work; report problems",
			v, bin, claude.NewestVerified),
			detail: []string{"if the queue misses a wait or shows one that is not there, report it with your version and this output"}}
	case support == claude.Verified:
		return finding{level: good, what: fmt.Sprintf("Claude Code %s (%s): verified with Trail Boss", v, bin)}
	}
	return finding{level: good, what: fmt.Sprintf("Claude Code %s (%s): supported (verified with %s and %s)",
		v, bin, claude.OldestSupported, claude.NewestVerified)}
}

// lookPathIn returns the first executable regular file called name in the folders of path
// (a PATH value), or "" when there is none.
func lookPathIn(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue // an empty entry means the working folder: not where an installed claude is
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}
