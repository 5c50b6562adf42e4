package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/tmuxstatus"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// countingHot writes a stand-in for trailboss-hot that notes each start and exit in a file
// and runs the real one against d in between; it returns its path and a func that counts
// the starts and the exits.
func countingHot(t *testing.T, d *liveDaemon) (path string, runs func() (started, exited int)) {
	t.Helper()
	hot := benchHotBin()
	if !filepath.IsAbs(hot) {
		p, err := exec.LookPath(hot)
		if err != nil {
			t.Fatal(err)
		}
		hot = p
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "starts")
	path = filepath.Join(dir, "trailboss-hot")
	script := fmt.Sprintf("#!/bin/sh\necho started >> %[1]s\nTRAILBOSS_STATE_DIR=%[2]s TRAILBOSS_ADDR= %[3]s \"$@\"\nrc=$?\necho exited >> %[1]s\nexit $rc\n",
		hooks.ShellWord(count), hooks.ShellWord(d.stateDir), hooks.ShellWord(hot))
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return path, func() (int, int) {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "started"), strings.Count(string(b), "exited")
	}
}

// jumpOptions returns the jump key's options on tm's server.
func jumpOptions(t *testing.T, tm *tmuxtest.Env) (head, next string) {
	t.Helper()
	return strings.TrimSpace(tm.Tmux(t, "show-options", "-gqv", tmuxstatus.OptionHead)),
		strings.TrimSpace(tm.Tmux(t, "show-options", "-gqv", tmuxstatus.OptionNext))
}

// waitJumpOptions waits until the jump key's options on tm's server are head and next.
func waitJumpOptions(t *testing.T, tm *tmuxtest.Env, head, next string) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%s=%q and %s=%q", tmuxstatus.OptionHead, head, tmuxstatus.OptionNext, next), 10*time.Second,
		func() bool { h, n := jumpOptions(t, tm); return h == head && n == next })
}

// TestJumpKeyStartsNoProcessForALocalJump: with the bindings setup writes, prefix Tab on a
// real attached client lands on the head, on the next one from the head, and back, and no
// process starts for any of those (the binding's trailboss-hot counts its starts); it runs
// that process, which does what it always did, when the daemon's options do not name a
// pane to go to: next empty on the only stuck pane, nothing stuck on this tmux server (the
// only stuck item is another server's), a pane id a crashed daemon left for a pane that is
// gone, and the daemon stopped (the options are cleared then, and the process says so).
func TestJumpKeyStartsNoProcessForALocalJump(t *testing.T) {
	tm := tmuxtest.New(t)
	other := tmuxtest.New(t)
	d := startBenchDaemon(t, tm.Environ)
	hot, runs := countingHot(t, d)
	starts := func() int { n, _ := runs(); return n }
	// ran waits until the key's process has run n times in all, and exited.
	ran := func(n int) {
		t.Helper()
		waitUntil(t, fmt.Sprintf("trailboss-hot to have run %d times", n), 10*time.Second, func() bool {
			started, exited := runs()
			return started == n && exited == n
		})
	}
	if err := tm.Server.SourceConfig(t.Context(), tmuxLines(tmuxSettings{bin: hot, hot: hot})); err != nil {
		t.Fatal(err)
	}
	panes := queueStops(t, d, tm, "agents", "agent-a", "agent-b")
	client := tm.Attach(t, "main")
	mainPane := tm.ActivePane(t, client)
	// A second operator's client on the same session: the key moves only the client it was
	// typed on.
	bystander := tm.Attach(t, "main")
	waitJumpOptions(t, tm, panes[0], panes[1])

	press := func(from, want string) {
		t.Helper()
		if got := tm.ActivePane(t, client); got != from {
			t.Fatalf("the client is on %s before the key, want %s", got, from)
		}
		tm.Press(t, client, "\x02\t")
		waitUntil(t, "prefix Tab to land on "+want, 10*time.Second, func() bool { return tm.ActivePane(t, client) == want })
	}
	// shown waits until the client's terminal shows msg after the key.
	shown := func(before int, msg string) {
		t.Helper()
		waitUntil(t, "the client to show "+msg, 10*time.Second, func() bool {
			return strings.Contains(tm.Output(t, client)[before:], msg)
		})
	}

	press(mainPane, panes[0]) // the head
	press(panes[0], panes[1]) // from the head: the next
	press(panes[1], panes[0]) // from the next: the head again
	if n := starts(); n != 0 {
		t.Fatalf("three local jumps started trailboss-hot %d times, want none", n)
	}
	if got := tm.ActivePane(t, bystander); got != mainPane {
		t.Fatalf("another client's key moved this client to %s, want it still on %s", got, mainPane)
	}

	// agent-b leaves the queue (dismissed): the options move on, and from the only stuck
	// pane the key asks the daemon (which keeps the client there).
	api := d.api(t)
	if err := api.Dismiss(t.Context(), "agent-b"); err != nil {
		t.Fatal(err)
	}
	waitJumpOptions(t, tm, panes[0], "")
	tm.Press(t, client, "\x02\t")
	ran(1)
	if got := tm.ActivePane(t, client); got != panes[0] {
		t.Errorf("from the only stuck pane the key moved the client to %s", got)
	}

	// agent-a is skipped (cooling: never the head), and the only ready item is on another
	// tmux server: nothing to go to here, and the process says so.
	if err := api.SkipSession(t.Context(), "agent-a"); err != nil {
		t.Fatal(err)
	}
	elsewhere := queueStops(t, d, other, "agents", "agent-elsewhere")[0]
	waitJumpOptions(t, tm, "", "")
	waitJumpOptions(t, other, elsewhere, "") // each server has its own
	before := len(tm.Output(t, client))
	tm.Press(t, client, "\x02\t")
	ran(2)
	shown(before, "nothing stuck")
	if got := tm.ActivePane(t, client); got != panes[0] {
		t.Errorf("with nothing stuck on this server the key moved the client to %s", got)
	}

	// A pane id left by a daemon that died (a clean stop clears them) for a pane that is
	// gone: the key does not try it, the process runs.
	tm.Tmux(t, "set-option", "-g", tmuxstatus.OptionHead, "%999")
	tm.Press(t, client, "\x02\t")
	ran(3)

	// The daemon stops: the options are cleared, and the key's process says it is down.
	c := queueStops(t, d, tm, "agents", "agent-c")[0]
	waitJumpOptions(t, tm, c, "")
	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = d.cmd.Wait()
	if h, n := jumpOptions(t, tm); h != "" || n != "" {
		t.Fatalf("after the daemon stopped %s=%q %s=%q, want both empty", tmuxstatus.OptionHead, h, tmuxstatus.OptionNext, n)
	}
	before = len(tm.Output(t, client))
	tm.Press(t, client, "\x02\t")
	ran(4)
	shown(before, "daemon is not running")
	if got := tm.ActivePane(t, client); got != panes[0] {
		t.Errorf("with the daemon stopped the key moved the client to %s", got)
	}
}
