package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// hubAgent runs a simulated Claude Code session in a new window of the hub's own tmux server
// e, its hooks going to the hub's daemon, stuck asking "Which port?" 10 ms after it starts;
// it returns its pane.
func hubAgent(t testing.TB, e *tmuxtest.Env, stateDir, session string) string {
	t.Helper()
	return e.NewPane(t, "main", "env", "TRAILBOSS_STATE_DIR="+stateDir, "trailboss", "demo-agent", "--session", session,
		"--work", "10ms", "--transcript", filepath.Join(e.Dir, session+".jsonl"), "--script", "stop:Which port?|idle")
}

// sessions returns the session ids of items, in order.
func sessions(items []wire.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.SessionID)
	}
	return out
}

// remoteReady returns whether session is ready in the remote daemon's own queue, and whether
// it is there at all.
func (w *remoteWorld) remoteReady(t testing.TB, session string) (ready, queued bool) {
	t.Helper()
	var q struct {
		Items []wire.Item `json:"items"`
	}
	out := w.asUser(t, "trailboss", "ls", "--json")
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatalf("the remote daemon's own queue: %v\n%s", err, out)
	}
	it, ok := findItem(q.Items, session)
	return it.Ready, ok
}

// TestSkipOfARemoteHeadIsDoneThere: on the hub, with another host's two items at the head of
// the queue and one of the hub's own behind them, `trailboss skip` from the hub's tmux client
// skips the remote head on that host's daemon (not the hub's own item, which the hub's daemon
// alone would have taken for the head): it cools there and in the hub's queue, which goes on
// with the next remote item; `trailboss-hot skip` from the host window it landed on skips
// that one too, and lands the client on the hub's own pane, which was never skipped.
func TestSkipOfARemoteHeadIsDoneThere(t *testing.T) {
	w := newRemoteWorld(t)
	e := tmuxtest.New(t)
	client := e.Attach(t, "main")
	waitUntil(t, "the hub to connect to remote1", 30*time.Second, func() bool { return w.host(t).Connected })

	inOrder := func(want ...string) func() bool {
		return func() bool { return slices.Equal(sessions(w.queue(t)), want) }
	}
	w.startAgent(t, "remote-k1")
	waitUntil(t, "remote-k1 in the hub's queue", 10*time.Second, inOrder("remote-k1"))
	w.startAgent(t, "remote-k2")
	waitUntil(t, "remote-k2 behind it", 10*time.Second, inOrder("remote-k1", "remote-k2"))
	local := hubAgent(t, e, w.hub.stateDir, "hub-k3")
	waitUntil(t, "the hub's own item last", 10*time.Second, inOrder("remote-k1", "remote-k2", "hub-k3"))

	skip := func(bin string) {
		t.Helper()
		cmd := []string{"skip", "--socket", e.Socket, "--client", client, "--state-dir", w.hub.stateDir}
		out, errOut, code := runProgram(t, bin, w.hubEnv, cmd...)
		if code != 0 {
			t.Fatalf("%s skip on the hub: exit %d %q %q", bin, code, out, errOut)
		}
	}
	cooling := func(session string) {
		t.Helper()
		it, ok := findItem(w.queue(t), session)
		if !ok || it.Ready || it.CooldownUntil == nil || it.Host != "remote1" {
			t.Fatalf("%s on the hub after its skip: %+v (queued %v), want it cooling, on remote1", session, it, ok)
		}
		if ready, queued := w.remoteReady(t, session); ready || !queued {
			t.Fatalf("%s in remote1's own queue after the hub's skip: ready %v, queued %v; want it cooling there", session, ready, queued)
		}
	}

	skip("trailboss")
	// The skip answered once the hub's copy showed the cooldown: no wait here.
	cooling("remote-k1")
	if got := sessions(w.queue(t)); !slices.Equal(got, []string{"remote-k2", "hub-k3", "remote-k1"}) {
		t.Fatalf("the hub's queue after the skip: %v, want remote-k2, hub-k3, then remote-k1 cooling", got)
	}
	if it, _ := findItem(w.queue(t), "hub-k3"); !it.Ready {
		t.Fatalf("the hub's own item after a skip of the remote head: %+v, want it still ready", it)
	}
	// The client went on to the next head, remote-k2, through the host window.
	if named, current := hostWindows(t, e, client); len(named) != 1 || current != named[0] {
		t.Fatalf("after the skip the hub's client is on %s, windows for remote1 %q; want it on the host window", current, named)
	}

	skip("trailboss-hot")
	cooling("remote-k2")
	if got := sessions(w.queue(t)); !slices.Equal(got, []string{"hub-k3", "remote-k1", "remote-k2"}) {
		t.Fatalf("the hub's queue after the second skip: %v, want hub-k3, then the two remote items cooling", got)
	}
	waitUntil(t, "the hub's client on its own pane "+local, 10*time.Second, func() bool {
		return strings.TrimSpace(e.Tmux(t, "display-message", "-p", "-c", client, "#{pane_id}")) == local
	})
	if it, _ := findItem(w.queue(t), "hub-k3"); !it.Ready {
		t.Fatalf("the hub's own item after two skips of remote items: %+v, want it still ready", it)
	}
}
