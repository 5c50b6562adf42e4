package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// tmuxCounts returns what d has asked of tmux so far (GET /v1/debug/tmux).
func (d *liveDaemon) tmuxCounts(tb testing.TB) tmuxctl.Counts {
	tb.Helper()
	hc, base := d.raw()
	req, _ := http.NewRequest(http.MethodGet, base+wire.RouteTmuxCounts, nil)
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := hc.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var c tmuxctl.Counts
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != 200 {
		tb.Fatalf("GET %s: %s: %v", wire.RouteTmuxCounts, resp.Status, err)
	}
	return c
}

// queueStops opens a pane per name in session of tm's server and queues a Claude Code Stop
// from each; it returns the panes.
func queueStops(t *testing.T, d *liveDaemon, tm *tmuxtest.Env, session string, names ...string) []string {
	t.Helper()
	tmuxEnv := tmuxEnvValue(t, tm)
	panes := newPanes(t, tm, session, len(names), func(int) string { return "exec cat" })
	for i, p := range panes {
		d.hook(t, hookPayload("Stop", names[i], t.TempDir(), "", map[string]any{"last_assistant_message": "Done?"}), p, tmuxEnv)
		time.Sleep(2 * time.Millisecond) // distinct ages: a fixed queue order
	}
	return panes
}

// jumpAsTheKey runs `trailboss-hot jump-next` as the key binding does, with no tmux on its
// PATH: a tmux process started by it would fail the jump.
func jumpAsTheKey(t *testing.T, d *liveDaemon, tm *tmuxtest.Env, client, pane string) {
	t.Helper()
	hot, err := exec.LookPath(benchHotBin())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hot, "jump-next", "--client", client, "--socket", tm.Socket, "--pane", pane)
	cmd.Env = withEnv(d.clientEnv(tm.Environ), "PATH=/nonexistent")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Fatalf("trailboss-hot jump-next: %v: %q", err, out.String())
	}
}

// TestJumpGoesThroughTheDaemonsControlClient: prefix Tab's command lands the operator's
// client on the head with no tmux process started, neither by the key's process (no tmux
// on its PATH) nor by the daemon (its count of tmux processes is unchanged): the daemon
// switched the client through its control client. That client is attached beside the
// operator's and is never taken for it. After the tmux server is restarted on the same
// socket, the control client comes back and the next jump is again made without a process.
func TestJumpGoesThroughTheDaemonsControlClient(t *testing.T) {
	tm := tmuxtest.New(t)
	d := startBenchDaemon(t, tm.Environ)
	panes := queueStops(t, d, tm, "agents", "agent-a", "agent-b")
	client := tm.Attach(t, "main")
	mainPane := tm.ActivePane(t, client)

	jumpAsTheKey(t, d, tm, client, mainPane) // starts the control client
	if got := tm.ActivePane(t, client); got != panes[0] {
		t.Fatalf("after the first jump the client is on %s, want the head %s", got, panes[0])
	}
	before := d.tmuxCounts(t)
	if before.ControlClients != 1 {
		t.Fatalf("the daemon started %d control clients, want 1: %+v", before.ControlClients, before)
	}
	jumpAsTheKey(t, d, tm, client, panes[0])
	after := d.tmuxCounts(t)
	if got := tm.ActivePane(t, client); got != panes[1] {
		t.Errorf("after the second jump the client is on %s, want %s", got, panes[1])
	}
	if after.Processes != before.Processes || after.ControlCommands == before.ControlCommands {
		t.Errorf("the jump started %d tmux processes and ran %d commands through the control client; want none and some",
			after.Processes-before.Processes, after.ControlCommands-before.ControlCommands)
	}

	// tmux lists both clients; trailboss knows only the operator's.
	raw := tm.Tmux(t, "list-clients", "-F", "#{client_name} #{client_flags}")
	if strings.Count(raw, "\n") != 2 || !strings.Contains(raw, "control-mode,ignore-size,no-output") {
		t.Errorf("tmux list-clients = %q, want the operator's client and the daemon's control client", raw)
	}
	if pane, err := tm.Server.ClientPane(t.Context(), client); err != nil || pane != panes[1] {
		t.Errorf("ClientPane = %q, %v", pane, err)
	}
	// The key's process asks tmux which pane the client is on when --pane is left out: the
	// answer is the operator's client's, not the control client's.
	hot, _ := exec.LookPath(benchHotBin())
	cmd := exec.Command(hot, "jump-next", "--client", client, "--socket", tm.Socket)
	cmd.Env = d.clientEnv(tm.Environ)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("jump-next without --pane: %v: %q", err, out)
	}
	if got := tm.ActivePane(t, client); got != panes[0] {
		t.Errorf("after jump-next from %s the client is on %s, want %s", panes[1], got, panes[0])
	}

	// The tmux server restarts on the same socket.
	tm.Tmux(t, "kill-server")
	waitUntil(t, "the old tmux server to be gone", 10*time.Second, func() bool {
		// While its clients leave it still takes connections, and then says "server exited
		// unexpectedly": gone is nothing listening.
		ls := exec.Command(tm.Server.Bin, "-S", tm.Socket, "list-sessions")
		ls.Env = tm.Environ
		out, _ := ls.CombinedOutput()
		return strings.Contains(string(out), "no server running") || strings.Contains(string(out), "error connecting")
	})
	tm.Tmux(t, "-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", fmt.Sprint(tmuxtest.Width),
		"-y", fmt.Sprint(tmuxtest.Height))
	panes = queueStops(t, d, tm, "agents", "agent-c", "agent-d")
	client = tm.Attach(t, "main")
	mainPane = tm.ActivePane(t, client)
	// The first jump lands whether or not the control client is back yet (until it is, the
	// daemon runs tmux as a process); it is back, on the next use after its backoff, when a
	// jump starts no process.
	jumpAsTheKey(t, d, tm, client, mainPane)
	if got := tm.ActivePane(t, client); got != panes[0] {
		t.Fatalf("after the restart the jump put the client on %s, want the head %s", got, panes[0])
	}
	on := 0
	waitUntil(t, "a jump with no tmux process after the restart", 20*time.Second, func() bool {
		before := d.tmuxCounts(t)
		jumpAsTheKey(t, d, tm, client, panes[on])
		after := d.tmuxCounts(t)
		on = 1 - on
		if got := tm.ActivePane(t, client); got != panes[on] {
			t.Fatalf("after the restart the jump put the client on %s, want %s", got, panes[on])
		}
		return after.Processes == before.Processes && after.ControlClients >= 2
	})
	if got := tm.Tmux(t, "list-clients", "-F", "#{client_flags}"); !strings.Contains(got, "control-mode") {
		t.Errorf("no control client attached after the restart: %q", got)
	}
}

// TestSkipGoesThroughTheDaemonsControlClient: prefix S's command (skip --client) sends the
// item the client is on to the back and lands the client on the next one with no tmux
// process started: none by the key's process (no tmux on its PATH), none by the daemon (its
// count is unchanged); the daemon switched the client through its control client.
func TestSkipGoesThroughTheDaemonsControlClient(t *testing.T) {
	tm := tmuxtest.New(t)
	d := startBenchDaemon(t, tm.Environ)
	panes := queueStops(t, d, tm, "agents", "agent-a", "agent-b", "agent-c")
	client := tm.Attach(t, "main")
	jumpAsTheKey(t, d, tm, client, tm.ActivePane(t, client)) // starts the control client
	if got := tm.ActivePane(t, client); got != panes[0] {
		t.Fatalf("after the jump the client is on %s, want the head %s", got, panes[0])
	}
	before := d.tmuxCounts(t)
	hot, err := exec.LookPath(benchHotBin())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hot, "skip", "--client", client, "--socket", tm.Socket, "--pane", panes[0])
	cmd.Env = withEnv(d.clientEnv(tm.Environ), "PATH=/nonexistent")
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("trailboss-hot skip: %v: %q", err, out)
	}
	after := d.tmuxCounts(t)
	if got := tm.ActivePane(t, client); got != panes[1] {
		t.Errorf("after the skip the client is on %s, want the next one %s", got, panes[1])
	}
	if after.Processes != before.Processes || after.ControlCommands == before.ControlCommands {
		t.Errorf("the skip started %d tmux processes and ran %d commands through the control client; want none and some",
			after.Processes-before.Processes, after.ControlCommands-before.ControlCommands)
	}
	// The skipped one went to the back: the next jump from panes[1] goes to panes[2].
	jumpAsTheKey(t, d, tm, client, panes[1])
	if got := tm.ActivePane(t, client); got != panes[2] {
		t.Errorf("after skip and jump the client is on %s, want %s (the skipped %s is at the back)", got, panes[2], panes[0])
	}
}

// TestManualJumpNextMovesTheAttachedClient: `trailboss jump-next` with no --client, run
// in a pane of the session the daemon's control client is attached to while the operator's
// client looks at another session (a script's run-shell, a second terminal): the operator's
// client lands on the head, and the control client stays where it was. Left to pick the
// client of a switch-client, tmux takes the most recently active client of the pane's
// session, here the control client.
func TestManualJumpNextMovesTheAttachedClient(t *testing.T) {
	tm := tmuxtest.New(t)
	d := startBenchDaemon(t, tm.Environ)
	panes := queueStops(t, d, tm, "agents", "agent-a", "agent-b")
	client := tm.Attach(t, "main")
	mainPane := tm.ActivePane(t, client)
	jumpAsTheKey(t, d, tm, client, mainPane) // starts the control client
	tm.Tmux(t, "switch-client", "-c", client, "-t", mainPane)
	control := func() (name, session, pane string) {
		for _, l := range strings.Split(tm.Tmux(t, "list-clients", "-F", "#{client_flags}\t#{client_name}\t#{client_session}\t#{pane_id}"), "\n") {
			if f := strings.Split(l, "\t"); len(f) == 4 && strings.Contains(f[0], "control-mode") {
				return f[1], f[2], f[3]
			}
		}
		t.Fatal("no control client attached")
		return
	}
	name, session, _ := control()
	if session != "agents" {
		// It attaches to the most recently used session; this test needs it beside the
		// operator's client.
		tm.Tmux(t, "switch-client", "-c", name, "-t", panes[0])
		name, session, _ = control()
	}

	cmd := exec.Command(benchBin(), "jump-next")
	cmd.Env = withEnv(d.clientEnv(tm.Environ), "TMUX="+tmuxEnvValue(t, tm), "TMUX_PANE="+panes[1])
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("trailboss jump-next: %v: %q", err, out)
	}
	if got := tm.ActivePane(t, client); got != panes[0] {
		t.Errorf("after jump-next from %s the operator's client is on %s, want the head %s", panes[1], got, panes[0])
	}
	if n, s, _ := control(); n != name || s != session {
		t.Errorf("the control client moved: %s on %s, was %s on %s", n, s, name, session)
	}
}
