package tmuxctl_test

// These tests run the real tmux on a private server made by tmuxtest.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

const waitLong = 5 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func findPane(t *testing.T, panes []tmuxctl.Pane, id string) tmuxctl.Pane {
	t.Helper()
	for _, p := range panes {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("pane %s not in %+v", id, panes)
	return tmuxctl.Pane{}
}

// display asks tmux for a format about target, independently of the code under test.
func display(t *testing.T, e *tmuxtest.Env, target, format string) string {
	t.Helper()
	return strings.TrimSuffix(e.Tmux(t, "display-message", "-p", "-t", target, format), "\n")
}

func TestListPanes(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	// A directory name may hold the field separator, a newline and any byte; the listing
	// must not break, even where tmux's locale is not UTF-8.
	weird := filepath.Join(e.Dir, "a\x1fb\nc d é\xff")
	s := *e.Server
	s.Env = append(slices.Clone(e.Environ), "LC_ALL=C", "LANG=C")
	if err := os.Mkdir(weird, 0o700); err != nil {
		t.Fatal(err)
	}
	e.Tmux(t, "set-option", "-g", "remain-on-exit", "on")

	sleeper := e.NewPane(t, "work", "sh", "-c", "sleep 1000")
	shell := strings.TrimSpace(e.Tmux(t, "new-window", "-d", "-t", "=work:", "-c", weird, "-P", "-F", "#{pane_id}"))
	split := strings.TrimSpace(e.Tmux(t, "split-window", "-d", "-t", shell, "-P", "-F", "#{pane_id}"))
	dead := e.NewPane(t, "work", "true")

	var panes []tmuxctl.Pane
	// tmux reports no current path until the pane's foreground process group is set up.
	e.WaitFor(t, "the pane running true to die and the shell's path to show", waitLong, func() bool {
		var err error
		panes, err = s.ListPanes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return findPane(t, panes, dead).Dead && findPane(t, panes, shell).CurrentPath != ""
	})
	if len(panes) != 5 { // main's first pane and the four above
		t.Errorf("ListPanes returned %d panes, want 5: %+v", len(panes), panes)
	}

	for _, id := range []string{sleeper, shell, split, dead} {
		p := findPane(t, panes, id)
		if p.SessionName != "work" {
			t.Errorf("%s: session %q, want work", id, p.SessionName)
		}
		if want := display(t, e, id, "#{pane_pid}"); strconv.Itoa(p.PID) != want {
			t.Errorf("%s: pid %d, want %s", id, p.PID, want)
		}
		if want := display(t, e, id, "#{window_id}"); p.WindowID != want {
			t.Errorf("%s: window id %q, want %q", id, p.WindowID, want)
		}
		if want := display(t, e, id, "#{window_index}"); strconv.Itoa(p.WindowIndex) != want {
			t.Errorf("%s: window index %d, want %s", id, p.WindowIndex, want)
		}
	}
	if p := findPane(t, panes, sleeper); p.WindowIndex != 0 || !p.Active || p.Dead {
		t.Errorf("sleeper pane: %+v, want window 0, active, alive", p)
	}
	if p := findPane(t, panes, shell); p.WindowIndex != 1 || !p.Active || p.CurrentPath != weird {
		t.Errorf("shell pane: %+v, want window 1, active, in %q", p, weird)
	}
	if p := findPane(t, panes, split); p.Active || p.WindowID != findPane(t, panes, shell).WindowID {
		t.Errorf("split pane: %+v, want inactive, in the shell's window", p)
	}
	if p := findPane(t, panes, dead); !p.Dead {
		t.Errorf("dead pane: %+v, want dead", p)
	}
}

func TestListClients(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	client := e.Attach(t, "main")
	clients, err := e.Server.ListClients(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(clients) != 1 {
		t.Fatalf("ListClients = %+v, want one client", clients)
	}
	c := clients[0]
	if c.Name != client || c.TTY != client || !strings.HasPrefix(c.Name, "/dev/pts/") {
		t.Errorf("client name %q, tty %q, want %q for both", c.Name, c.TTY, client)
	}
	if c.SessionName != "main" || c.PaneID != e.ActivePane(t, client) || c.PID <= 0 {
		t.Errorf("client %+v: want session main, pane %s", c, e.ActivePane(t, client))
	}
	if time.Since(c.Activity) > time.Minute || time.Since(c.Activity) < -time.Minute {
		t.Errorf("client activity %v is not about now", c.Activity)
	}
	if _, err := e.Server.ClientPane(ctx, "/dev/pts/999999"); !errors.Is(err, tmuxctl.ErrNoClient) {
		t.Errorf("ClientPane(unknown client) = %v, want ErrNoClient", err)
	}
}

// landingPane makes a session "other" whose target pane is neither in its current window
// nor the active pane of its own window, so that landing on it needs all three commands.
func landingPane(t *testing.T, e *tmuxtest.Env) string {
	t.Helper()
	e.NewPane(t, "other")
	second := e.NewPane(t, "other")
	return strings.TrimSpace(e.Tmux(t, "split-window", "-d", "-t", second, "-P", "-F", "#{pane_id}"))
}

func TestSwitchClient(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	target := landingPane(t, e)
	a := e.Attach(t, "main")
	b := e.Attach(t, "main") // attached last: the client tmux would pick by itself
	bBefore := e.ActivePane(t, b)
	if bBefore == target || e.ActivePane(t, a) == target {
		t.Fatalf("clients start on %s already", target)
	}

	if err := e.Server.SwitchClient(ctx, a, target); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Server.ClientPane(ctx, a); err != nil || got != target {
		t.Errorf("ClientPane(a) = %q, %v; want %s", got, err, target)
	}
	if got := e.ActivePane(t, a); got != target {
		t.Errorf("client a looks at %s, want %s", got, target)
	}
	if got := display(t, e, target, "#{session_name} #{window_active} #{pane_active}"); got != "other 1 1" {
		t.Errorf("target pane: session, window_active, pane_active = %q, want \"other 1 1\"", got)
	}
	if got := e.ActivePane(t, b); got != bBefore {
		t.Errorf("client b moved from %s to %s; only a was named", bBefore, got)
	}

	if err := e.Server.SwitchClient(ctx, a, "%99999"); !errors.Is(err, tmuxctl.ErrNoPane) {
		t.Errorf("SwitchClient to a missing pane = %v, want ErrNoPane", err)
	}
	if err := e.Server.SwitchClient(ctx, "/dev/pts/999999", target); !errors.Is(err, tmuxctl.ErrNoClient) {
		t.Errorf("SwitchClient of a missing client = %v, want ErrNoClient", err)
	}
}

func TestSwitchClientWithoutClientName(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	target := landingPane(t, e)
	if err := e.Server.SwitchClient(ctx, "", target); !errors.Is(err, tmuxctl.ErrNoClient) {
		t.Errorf("SwitchClient with nobody attached = %v, want ErrNoClient", err)
	}
	a := e.Attach(t, "main")
	if err := e.Server.SwitchClient(ctx, "", target); err != nil {
		t.Fatal(err)
	}
	if got := e.ActivePane(t, a); got != target {
		t.Errorf("the only client looks at %s, want %s", got, target)
	}
}

func TestSwitchClientRejectsBeforeRunningTmux(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	a := e.Attach(t, "main")
	before := e.ActivePane(t, a)
	// A Server whose tmux does not exist: reaching exec would fail differently.
	noTmux := &tmuxctl.Server{Bin: filepath.Join(e.Dir, "no-such-tmux"), Socket: e.Socket, Env: e.Environ}
	for _, s := range []*tmuxctl.Server{e.Server, noTmux} {
		for _, pane := range []string{"%1;kill-server", "-t", "%", "%99999999999999999999", "", "%1 ;", "main"} {
			if err := s.SwitchClient(ctx, a, pane); !errors.Is(err, tmuxctl.ErrInvalidTarget) {
				t.Errorf("SwitchClient(%q, %q) = %v, want ErrInvalidTarget", a, pane, err)
			}
		}
		for _, client := range []string{"-t", "-", "--"} {
			if err := s.SwitchClient(ctx, client, before); !errors.Is(err, tmuxctl.ErrInvalidTarget) {
				t.Errorf("SwitchClient(%q, %q) = %v, want ErrInvalidTarget", client, before, err)
			}
		}
	}
	if _, err := e.Server.ListPanes(ctx); err != nil {
		t.Fatalf("server not alive after the rejected calls: %v", err)
	}
	if got := e.ActivePane(t, a); got != before {
		t.Errorf("client moved from %s to %s", before, got)
	}
}

func TestDisplayMessageShowsTextAsWritten(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	a := e.Attach(t, "main")
	for i, client := range []string{a, ""} {
		msg := fmt.Sprintf("tb-msg-%d #{pane_id} #(echo ran) %%H 100%% #[fg=red]red;", i)
		if err := e.Server.DisplayMessage(ctx, client, msg); err != nil {
			t.Fatal(err)
		}
		e.WaitFor(t, "the client to show "+msg, waitLong, func() bool {
			return strings.Contains(e.Output(t, a), msg)
		})
	}
	if err := e.Server.DisplayMessage(ctx, "-t", "x"); !errors.Is(err, tmuxctl.ErrInvalidTarget) {
		t.Errorf("DisplayMessage to client \"-t\" = %v, want ErrInvalidTarget", err)
	}
}

func TestCapturePane(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	pane := e.NewPane(t, "main", "sh", "-c", "echo hello-capture; sleep 1000")
	e.WaitFor(t, "hello-capture in the pane", waitLong, func() bool {
		out, err := e.Server.CapturePane(ctx, pane)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(out, "hello-capture\n")
	})
	_, err := e.Server.CapturePane(ctx, "%99999")
	if !errors.Is(err, tmuxctl.ErrNoPane) || errors.Is(err, tmuxctl.ErrNoServer) {
		t.Errorf("CapturePane(missing pane) = %v, want ErrNoPane and not ErrNoServer", err)
	}
	if _, err := e.Server.CapturePane(ctx, "1"); !errors.Is(err, tmuxctl.ErrInvalidTarget) {
		t.Errorf("CapturePane(\"1\") = %v, want ErrInvalidTarget", err)
	}
}

func TestNoServer(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	for _, sock := range []string{filepath.Join(e.Dir, "no-such-socket"), filepath.Join(e.Dir, "no-such-dir", "s")} {
		s := &tmuxctl.Server{Bin: e.Server.Bin, Socket: sock, Env: e.Environ}
		if _, err := s.ListPanes(ctx); !errors.Is(err, tmuxctl.ErrNoServer) {
			t.Errorf("ListPanes on missing socket %s = %v, want ErrNoServer", sock, err)
		}
	}
	// A socket file that nobody listens on: what kill-server leaves behind.
	e.Tmux(t, "kill-server")
	if _, err := os.Stat(e.Socket); err != nil {
		t.Logf("kill-server removed the socket: %v", err)
	}
	_, err := e.Server.ListPanes(ctx)
	if !errors.Is(err, tmuxctl.ErrNoServer) || errors.Is(err, tmuxctl.ErrNoPane) {
		t.Errorf("ListPanes after kill-server = %v, want ErrNoServer only", err)
	}
	if _, err := e.Server.ListClients(ctx); !errors.Is(err, tmuxctl.ErrNoServer) {
		t.Errorf("ListClients after kill-server = %v, want ErrNoServer", err)
	}
	if err := e.Server.SwitchClient(ctx, "", "%0"); !errors.Is(err, tmuxctl.ErrNoServer) {
		t.Errorf("SwitchClient after kill-server = %v, want ErrNoServer", err)
	}
	if _, err := e.Server.PaneOfProcess(ctx, os.Getpid()); !errors.Is(err, tmuxctl.ErrNoServer) {
		t.Errorf("PaneOfProcess after kill-server = %v, want ErrNoServer", err)
	}
}

func TestEmptySocketIsRefused(t *testing.T) {
	s := &tmuxctl.Server{}
	if _, err := s.ListPanes(testContext(t)); err == nil || errors.Is(err, tmuxctl.ErrNoServer) {
		t.Errorf("ListPanes with no socket = %v, want a plain error", err)
	}
}

// childOf returns the pid of a process whose parent is ppid, or 0.
func childOf(t *testing.T, ppid int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			return pid
		}
	}
	return 0
}

func TestPaneOfProcess(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	// pane shell → inner sh → sleep: the sleep is two generations below the pane's pid.
	pane := e.NewPane(t, "main", "sh", "-c", "sh -c 'sleep 1000; true'; true")
	panePID, err := strconv.Atoi(display(t, e, pane, "#{pane_pid}"))
	if err != nil {
		t.Fatal(err)
	}
	var sleeper int
	e.WaitFor(t, "the sleep under the pane's shell", waitLong, func() bool {
		if inner := childOf(t, panePID); inner != 0 {
			sleeper = childOf(t, inner)
		}
		return sleeper != 0
	})
	for _, pid := range []int{sleeper, panePID} {
		got, err := e.Server.PaneOfProcess(ctx, pid)
		if err != nil || got != pane {
			t.Errorf("PaneOfProcess(%d) = %q, %v; want %s", pid, got, err, pane)
		}
	}
	// This test process runs in no pane of the private server.
	if got, err := e.Server.PaneOfProcess(ctx, os.Getpid()); !errors.Is(err, tmuxctl.ErrNoPane) {
		t.Errorf("PaneOfProcess(self) = %q, %v; want ErrNoPane", got, err)
	}
}

func TestSetUserOptions(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	a := e.Attach(t, "main")
	e.Tmux(t, "set-option", "-g", "status-right", "[#{@trailboss_test}]")
	opts := map[string]string{
		"@trailboss_test":  "queue-3;",
		"@trailboss_other": `-x \; #{pane_id}`,
	}
	if err := e.Server.SetUserOptions(ctx, opts); err != nil {
		t.Fatal(err)
	}
	for name, want := range opts {
		if got := strings.TrimSuffix(e.Tmux(t, "show-options", "-gv", name), "\n"); got != want {
			t.Errorf("show-options -gv %s = %q, want %q", name, got, want)
		}
	}
	e.WaitFor(t, "the status line to show the option", waitLong, func() bool {
		return strings.Contains(e.Output(t, a), "[queue-3;]")
	})

	err := e.Server.SetUserOptions(ctx, map[string]string{"@ok": "1", "status-right": "x"})
	if !errors.Is(err, tmuxctl.ErrInvalidTarget) {
		t.Errorf("SetUserOptions(status-right) = %v, want ErrInvalidTarget", err)
	}
	if out := e.Tmux(t, "show-options", "-g", "-q", "@ok"); out != "" {
		t.Errorf("a refused call set options anyway: %q", out)
	}
	if err := e.Server.SetUserOptions(ctx, nil); err != nil {
		t.Errorf("SetUserOptions(nil) = %v", err)
	}
}

func TestVersion(t *testing.T) {
	e := tmuxtest.New(t)
	v, err := e.Server.Version(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := e.Tmux(t, "-V"); want != "tmux "+v+"\n" {
		t.Errorf("Version = %q, tmux -V says %q", v, want)
	}
}
