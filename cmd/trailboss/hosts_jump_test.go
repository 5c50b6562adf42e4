package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// remoteClients returns the remote tmux server's clients as "name pane" lines, but for the
// remote daemon's own control client (control mode, sent no output), which shows nothing.
func (w *remoteWorld) remoteClients(t testing.TB) []string {
	t.Helper()
	cmd := w.h.AsUser(context.Background(), "tmux", "-S", w.tmuxSock, "list-clients",
		"-F", "#{client_name} #{pane_id} #{client_flags}")
	cmd.SysProcAttr.Setsid = false
	out, err := cmd.Output()
	if err != nil {
		return nil // no client yet may read as an error on some tmux versions
	}
	var clients []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && !strings.Contains(l, "no-output") {
			clients = append(clients, f[0]+"|"+f[1])
		}
	}
	return clients
}

// hostWindows returns the ids of the hub tmux session's windows named for remote1, and the
// window the hub's client is on.
func hostWindows(t testing.TB, e *tmuxtest.Env, client string) (named []string, current string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(e.Tmux(t, "list-windows", "-t", "main", "-F", "#{window_id}\t#{window_name}")), "\n") {
		if id, name, _ := strings.Cut(line, "\t"); name == "⇄ remote1" {
			named = append(named, id)
		}
	}
	current = strings.TrimSpace(e.Tmux(t, "display-message", "-p", "-c", client, "#{window_id}"))
	return named, current
}

// TestJumpToARemotePaneThroughTheHostWindow: from the hub's real tmux client (on a PTY),
// jump-next to another host's stuck item puts the client on a window "⇄ remote1" made for
// that host, whose `ssh -t remote1 trailboss attach` leaves a tmux client of the remote
// server on the item's pane (the remote server's list-clients says so); the next jump to
// that host, to another pane, reuses that window (no second window, no second remote
// client) and the remote daemon moves its client to the new pane.
func TestJumpToARemotePaneThroughTheHostWindow(t *testing.T) {
	w := newRemoteWorld(t)
	e := tmuxtest.New(t)
	client := e.Attach(t, "main")
	waitUntil(t, "the hub to connect to remote1", 30*time.Second, func() bool { return w.host(t).Connected })

	jump := func() {
		t.Helper()
		out, errOut, code := runTrailboss(t, w.hubEnv, "jump-next", "--socket", e.Socket, "--client", client,
			"--state-dir", w.hub.stateDir)
		if code != 0 {
			t.Fatalf("trailboss jump-next: exit %d: %q %q", code, out, errOut)
		}
	}
	onPane := func(pane string) func() bool {
		return func() bool {
			cs := w.remoteClients(t)
			return len(cs) == 1 && strings.HasSuffix(cs[0], "|"+pane)
		}
	}

	pane1 := w.startAgent(t, "remote-j1")
	waitUntil(t, "remote-j1 in the hub's queue", 10*time.Second, func() bool {
		_, ok := findItem(w.queue(t), "remote-j1")
		return ok
	})
	if cs := w.remoteClients(t); len(cs) != 0 {
		t.Fatalf("the remote tmux server has clients %q before any jump", cs)
	}
	jump()
	named, current := hostWindows(t, e, client)
	if len(named) != 1 || current != named[0] {
		t.Fatalf("after the first jump: windows named for remote1 %q, the hub's client on %s; want one, and the client on it", named, current)
	}
	waitUntil(t, "a remote tmux client on "+pane1, 20*time.Second, onPane(pane1))
	first := named[0]

	// The first item answered there, a second one stuck on another remote pane.
	w.answerInPane(t, pane1, "8080")
	pane2 := w.startAgent(t, "remote-j2")
	waitUntil(t, "remote-j2 alone in the hub's queue", 10*time.Second, func() bool {
		items := w.queue(t)
		_, ok := findItem(items, "remote-j2")
		return ok && len(items) == 1
	})
	// Its window opened in front on the remote session; someone there went back to the
	// first, and the operator to another window of the hub.
	w.asUser(t, "tmux", "-S", w.tmuxSock, "select-window", "-t", pane1)
	waitUntil(t, "the remote tmux client back on "+pane1, 10*time.Second, onPane(pane1))
	e.Tmux(t, "select-window", "-t", "main:0")
	if _, cur := hostWindows(t, e, client); cur == first {
		t.Fatal("the hub's client did not leave the host window")
	}
	jump()
	named, current = hostWindows(t, e, client)
	if len(named) != 1 || named[0] != first || current != first {
		t.Fatalf("after the second jump: windows named for remote1 %q (first was %s), the client on %s; want the first reused", named, first, current)
	}
	waitUntil(t, "the remote tmux client moved to "+pane2, 10*time.Second, onPane(pane2))
}

// TestDoctorChecksEachHost: trailboss doctor on the hub checks every [[hosts]] entry over
// the real ssh: ssh gets in and Trail Boss is there with its version, its daemon answers
// through the bridge; a command that is not there, a daemon stopped there and an sshd gone
// are each said as such, with the fix, and doctor exits 1.
func TestDoctorChecksEachHost(t *testing.T) {
	w := newRemoteWorld(t)
	config := filepath.Join(envValue(w.hubEnv, "XDG_CONFIG_HOME"), "trailboss", "config.toml")
	conf := fmt.Sprintf("[[hosts]]\nname = \"remote1\"\nssh = %q\nssh_options = [\"-F\", %q]\n\n"+
		"[[hosts]]\nname = \"nothere\"\nssh = %q\nssh_options = [\"-F\", %q]\ncommand = \"/nowhere/trailboss\"\n",
		w.h.Alias, w.h.Config, w.h.Alias, w.h.Config)
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	doctor := func() (string, int) {
		out, _, code := runTrailboss(t, w.hubEnv, "doctor", "--state-dir", w.hub.stateDir)
		return out, code
	}
	out, code := doctor()
	remoteVersion := strings.TrimSpace(w.asUser(t, "trailboss", "version"))
	for _, want := range []string{
		"✓ host remote1: ssh gets in; Trail Boss " + strings.TrimPrefix(remoteVersion, "trailboss "),
		"✓ host remote1: its daemon runs, and answers through trailboss bridge",
		"✗ host nothere: ssh gets in, but /nowhere/trailboss is not there",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("doctor says:\n%s\nwant a line %q", out, want)
		}
	}
	if code != 1 || strings.Contains(out, "host nothere: its daemon") {
		t.Fatalf("doctor exited %d and said:\n%s\nwant 1, and no daemon check where trailboss is not there", code, out)
	}

	w.asUser(t, "trailboss", "stop")
	out, _ = doctor()
	if !strings.Contains(out, "✗ host remote1: its daemon does not answer") || !strings.Contains(out, "trailboss start") {
		t.Fatalf("doctor with the remote daemon stopped says:\n%s\nwant that its daemon does not answer, and to start it", out)
	}

	w.h.StopSSHD(t)
	out, _ = doctor()
	if !strings.Contains(out, "✗ host remote1: ssh "+w.h.Alias+" does not get in: ") || !strings.Contains(out, "Connection refused") {
		t.Fatalf("doctor with sshd gone says:\n%s\nwant that ssh does not get in, in ssh's words", out)
	}
}
