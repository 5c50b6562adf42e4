package watch_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/watch"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// screenWatcher returns a ScreenWatcher over env's tmux server at the daemon's own pace
// (a tick of 500 ms, quiet for two ticks), running until the test ends.
func screenWatcher(t *testing.T, e *daemon.Engine, env *tmuxtest.Env) *watch.ScreenWatcher {
	t.Helper()
	w := &watch.ScreenWatcher{Engine: e, Log: discard, Tick: 500 * time.Millisecond, Quiet: 2, Discover: time.Hour,
		Commands: daemon.ScreenCommands(), Servers: func() []string { return []string{env.Socket} },
		Tmux: func(socket string) *tmuxctl.Server {
			return &tmuxctl.Server{Bin: env.Server.Bin, Socket: socket, Env: env.Environ}
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

// codexApprovalPane opens a pane that shows the real Codex 0.169.0 approval prompt and, as
// Codex does while it waits, rewrites the terminal title every 250 ms (so its window's
// activity time moves every second) until a line is typed; then it clears the screen.
func codexApprovalPane(t *testing.T, env *tmuxtest.Env) string {
	t.Helper()
	fixture, err := filepath.Abs(filepath.Join("..", "..", "adapter", "codex", "testdata", "real", "screen-approval-prompt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	script := `printf '\033[2J\033[H'; cat "$1"
( while :; do printf '\033]0;[ . ] Action Required | work\007'; sleep 0.25
  printf '\033]0;[ ! ] Action Required | work\007'; sleep 0.25; done ) &
read answer; kill $!; printf '\033[2J\033[H• Running touch probe.txt && ls\n'; exec sleep 1000`
	return env.NewPane(t, "main", "sh", "-c", script, "approval", fixture)
}

// waitQueued waits until pane has an item that satisfies cond, and returns it.
func waitQueued(t *testing.T, e *daemon.Engine, pane string, timeout time.Duration, cond func(queue.Item) bool) queue.Item {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, it := range e.Items() {
			if it.Pane == pane && cond(it) {
				return it
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s: no such item within %v; queue %+v", pane, timeout, e.Items())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitUnqueued(t *testing.T, e *daemon.Engine, pane string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		queued := false
		for _, it := range e.Items() {
			queued = queued || it.Pane == pane
		}
		if !queued {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s still queued after %v: %+v", pane, timeout, e.Items())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A Codex approval keeps its window's activity time moving (the title, every second), but
// its text stands still: the screen adapter reads it, as a permission with the command,
// the reason and the choices, and answering it takes it out.
func TestScreenReadsAnApprovalUnderATitleThatKeepsChanging(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	pane := codexApprovalPane(t, env)
	activity := func() string { return env.Tmux(t, "display-message", "-p", "-t", pane, "#{window_activity}") }
	first := activity()
	w := screenWatcher(t, e, env)
	w.Watch(env.Socket, pane, "codex")

	it := waitQueued(t, e, pane, 8*time.Second, func(queue.Item) bool { return true })
	want := "$ touch probe.txt && ls — Run ls outside the sandbox? [1. Yes, proceed (y) / " +
		"2. Yes, and don't ask again for commands that start with `touch probe.txt` (p) / " +
		"3. No, and tell Codex what to do differently (esc)]"
	if it.Reason != adapter.ReasonPermission || it.Detail != "permission" || it.Summary != want || it.Harness != "codex" {
		t.Errorf("queued %+v\nwant permission, summary %q", it, want)
	}
	if activity() == first {
		t.Fatal("the window's activity did not move: the test shows nothing")
	}

	env.Tmux(t, "send-keys", "-t", pane, "y", "Enter")
	waitUnqueued(t, e, pane, 3*time.Second)
}

// With a session of another adapter bound to the pane (Codex's hooks) and already queued
// for the approval, the screen keeps the hook's words, and takes the item out as soon as
// the approval is answered (long before the command's PostToolUse).
func TestScreenKeepsAHookedApprovalAndDequeuesItWhenAnswered(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	pane := codexApprovalPane(t, env)
	hook := adapter.Event{Harness: "codex", SessionID: "thread-1", Kind: adapter.KindStuck, Pane: pane,
		TmuxSocket: env.Socket, Reason: adapter.ReasonPermission, Detail: "Bash",
		Summary: "Bash: touch probe.txt && ls — Run ls outside the sandbox?", At: time.Now()}
	ingest(t, e, hook)
	w := screenWatcher(t, e, env)
	w.Watch(env.Socket, pane, "codex")

	// Read: the watcher marks the pane waiting without an event of its own.
	deadline := time.Now().Add(8 * time.Second)
	for !w.ReadStuck(env.Socket, pane) {
		if time.Now().After(deadline) {
			t.Fatal("the approval on screen was never read")
		}
		time.Sleep(20 * time.Millisecond)
	}
	items := e.Items()
	if len(items) != 1 || items[0].ID != "thread-1" || items[0].Summary != hook.Summary || items[0].Detail != "Bash" {
		t.Fatalf("the hook's item changed: %+v", items)
	}
	env.Tmux(t, "send-keys", "-t", pane, "Enter")
	waitUnqueued(t, e, pane, 3*time.Second)
	if s, ok := e.Session("thread-1"); !ok || s.Pane != pane || s.Stuck {
		t.Errorf("after the answer the session is %+v (found %v), want it bound and not stuck", s, ok)
	}
}

// npm's `codex` is a Node script that starts the native binary as its child: the pane's
// current command is "node". Discovery looks one level down, for interpreters only, and
// once per run of the command.
func TestScreenFindsAnAgentUnderAnInterpreter(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	dir := t.TempDir()
	for name, from := range map[string]string{"node": "bash", "codex": "sleep"} {
		bin, err := exec.LookPath(from)
		if err != nil {
			t.Skip(err)
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	node, codex := filepath.Join(dir, "node"), filepath.Join(dir, "codex")
	agent := env.NewPane(t, "main", node, "-c", codex+" 1000 & wait")
	script := env.NewPane(t, "main", node, "-c", "sleep 1000 & wait")
	shell := env.NewPane(t, "main", "sh", "-c", codex+" 1000 & wait")

	var looks atomic.Int32
	w := &watch.ScreenWatcher{Engine: e, Log: discard, Commands: daemon.ScreenCommands(),
		Servers: func() []string { return []string{env.Socket} },
		Tmux: func(socket string) *tmuxctl.Server {
			return &tmuxctl.Server{Bin: env.Server.Bin, Socket: socket, Env: env.Environ}
		},
		ChildCommands: func(pid int) ([]string, error) { looks.Add(1); return tmuxctl.ChildCommands(pid) }}
	ctx := context.Background()
	env.WaitFor(t, "the agent pane found", 5*time.Second, func() bool {
		w.DiscoverNow(ctx)
		return strings.Contains(strings.Join(w.Watched(), "\n"), agent+"@"+env.Socket+" codex (found)")
	})
	// On a loaded machine a pane may still be starting its program at the first looks (its
	// command changes, a new run): wait until a look reads no children, every run seen once.
	// Without the once-per-run rule every look reads them, and this wait fails.
	env.WaitFor(t, "every run looked at once", 5*time.Second, func() bool {
		before := looks.Load()
		w.DiscoverNow(ctx)
		return looks.Load() == before
	})
	n := looks.Load()
	for range 3 {
		w.DiscoverNow(ctx)
	}
	watched := strings.Join(w.Watched(), "\n")
	if strings.Contains(watched, script) || strings.Contains(watched, shell) {
		t.Errorf("watched %q: only the pane whose node runs codex belongs there", watched)
	}
	// Later looks at the same runs read only their foreground group.
	if got := looks.Load(); got != n {
		t.Errorf("%d more reads of the children of runs already looked at", got-n)
	}
}

// TestScreenEventDoesNotTakeAPaneBoundMeanwhile: a tick reads the bindings, then a Claude
// Code session is bound to the pane (found from its state file, under load a moment later),
// then the tick's reading of the screen comes: the pane's made-up session must not take the
// pane, which would end the real session (seen: TestRealClaudeCodeAutoModeWithoutHooks under
// stress -c 2 found its turn queued as "waiting at its input box" by the screen, and the
// Claude Code session ended).
func TestScreenEventDoesNotTakeAPaneBoundMeanwhile(t *testing.T) {
	e, _ := newEngine(t)
	w := &watch.ScreenWatcher{Engine: e, Log: discard, Covered: map[string]bool{"claude": true}}
	w.Watch(testSocket, "%1", "claude")
	start := event("real", adapter.KindStart, time.Now().Add(-time.Second), "%1")
	ingest(t, e, start)

	screen := event("screen:%1@"+testSocket, adapter.KindStuck, time.Now(), "%1")
	screen.Reason, screen.Summary = adapter.ReasonStopped, "waiting at its input box"
	w.IngestNow(context.Background(), screen)

	s, live := e.Session("real")
	if !live || s.Ended || s.Pane != "%1" {
		t.Fatalf("the bound session lost its pane to the screen's: live %v, %+v", live, s)
	}
	if _, made := e.Session(screen.SessionID); made {
		t.Fatal("the screen made a session of its own on a bound pane")
	}
	if len(e.Items()) != 0 {
		t.Fatalf("queued: %+v", e.Items())
	}
}

// A screen change seen a tick after the session moved on is old news: Codex's turn end came
// by its notify while the screen still showed the approval just answered, and the change of
// that screen must not take the turn's end out of the queue (TestRealCodexTwoTUIs lost B's
// turn end so). While the session still waits for what the screen showed, the change takes
// it out as before.
func TestScreenChangeTakesOutOnlyWhatTheScreenShowed(t *testing.T) {
	e, _ := newEngine(t)
	w := &watch.ScreenWatcher{Engine: e, Log: discard}
	w.Watch(testSocket, "%1", "codex")
	ingest(t, e, event("real", adapter.KindStart, time.Now().Add(-3*time.Second), "%1"))
	approval := event("real", adapter.KindStuck, time.Now().Add(-2*time.Second), "%1")
	approval.Reason = adapter.ReasonPermission
	ingest(t, e, approval)
	w.SawStuck(testSocket, "%1", adapter.ReasonPermission) // the screen showed the approval

	// The approval answered, the turn ran and ended: the notify queues its end.
	answered := event("real", adapter.KindUnstuck, time.Now().Add(-time.Second), "%1")
	ingest(t, e, answered)
	turnEnd := event("real", adapter.KindStuck, time.Now().Add(-time.Millisecond), "%1")
	turnEnd.Reason = adapter.ReasonStopped
	ingest(t, e, turnEnd)

	// Then the screen's change reaches the watcher's tick, stamped after the turn's end.
	change := event("real", adapter.KindUnstuck, time.Now(), "%1")
	w.IngestNow(context.Background(), change)
	if s, _ := e.Session("real"); !s.Stuck || s.Reason != adapter.ReasonStopped {
		t.Fatalf("the screen's change of the answered approval took the turn's end out: %+v", s)
	}

	// A session still waiting for what the screen showed is taken out by its change.
	again := event("real", adapter.KindStuck, time.Now(), "%1")
	again.Reason = adapter.ReasonPermission
	ingest(t, e, again)
	w.SawStuck(testSocket, "%1", adapter.ReasonPermission)
	w.IngestNow(context.Background(), event("real", adapter.KindUnstuck, time.Now().Add(time.Millisecond), "%1"))
	if s, _ := e.Session("real"); s.Stuck {
		t.Fatalf("the screen's change did not take out the approval it showed: %+v", s)
	}
}
