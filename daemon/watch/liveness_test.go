package watch_test

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/watch"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// liveness returns a Liveness whose tmux runs in envs' isolated environment (every
// tmuxtest Env has the same tmux binary; the socket decides the server).
func liveness(e *daemon.Engine, env *tmuxtest.Env) *watch.Liveness {
	return &watch.Liveness{Engine: e, Log: discard, Tmux: func(socket string) *tmuxctl.Server {
		return &tmuxctl.Server{Bin: env.Server.Bin, Socket: socket, Env: env.Environ}
	}}
}

// stuckOn queues session id at pane of the tmux server at socket ("" for none).
func stuckOn(t *testing.T, e *daemon.Engine, id, pane, socket string, when time.Time) {
	t.Helper()
	ev := event(id, adapter.KindStuck, when, pane)
	ev.TmuxSocket = socket
	ingest(t, e, ev)
}

func liveIDs(e *daemon.Engine) []string {
	var ids []string
	for _, s := range e.Snapshot() {
		ids = append(ids, s.ID)
	}
	sort.Strings(ids)
	return ids
}

func TestLivenessRetiresSessionsWhosePaneOrServerIsGone(t *testing.T) {
	env := tmuxtest.New(t)
	other := tmuxtest.New(t)
	e, path := newEngine(t)
	l := liveness(e, env)
	ctx := context.Background()

	p1 := env.NewPane(t, "work")
	p2 := env.NewPane(t, "work")
	q1 := other.NewPane(t, "work")
	stuckOn(t, e, "A", p1, env.Socket, at(1))
	stuckOn(t, e, "B", p2, env.Socket, at(2))
	stuckOn(t, e, "C", q1, other.Socket, at(3))
	stuckOn(t, e, "nosocket", "%1", "", at(4)) // outside tmux as far as we know
	ingest(t, e, event("nopane", adapter.KindStuck, at(5), ""))

	l.Check(ctx)
	if ids := liveIDs(e); strings.Join(ids, " ") != "A B C nopane nosocket" {
		t.Fatalf("with every pane alive, live sessions are %v", ids)
	}

	env.Tmux(t, "kill-pane", "-t", p1)
	l.Check(ctx)
	if ids := liveIDs(e); strings.Join(ids, " ") != "B C nopane nosocket" {
		t.Fatalf("after killing A's pane, live sessions are %v, want B C nopane nosocket", ids)
	}
	if a, _ := onDisk(t, path, "A"); !a.Ended {
		t.Fatalf("A's retirement is not on disk: %+v", a)
	}

	env.Tmux(t, "kill-server")
	l.Check(ctx)
	if ids := liveIDs(e); strings.Join(ids, " ") != "C nopane nosocket" {
		t.Fatalf("after killing A and B's server, live sessions are %v, want C nopane nosocket", ids)
	}
	if ids := itemIDs(e.Items()); strings.Join(ids, " ") != "C nosocket nopane" {
		t.Fatalf("queue %v, want [C nosocket nopane]", ids)
	}
}

func TestLivenessRetiresSessionsOnDeadPanes(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	env.Tmux(t, "set-option", "-g", "remain-on-exit", "on")
	dead := env.NewPane(t, "work", "true")
	alive := env.NewPane(t, "work")
	env.WaitFor(t, "the pane running true to be dead", 5*time.Second, func() bool {
		return strings.TrimSpace(env.Tmux(t, "display-message", "-p", "-t", dead, "#{pane_dead}")) == "1"
	})
	stuckOn(t, e, "D", dead, env.Socket, at(1))
	stuckOn(t, e, "L", alive, env.Socket, at(2))

	liveness(e, env).Check(context.Background())
	if ids := liveIDs(e); strings.Join(ids, " ") != "L" {
		t.Fatalf("live sessions %v, want only L (D's pane is dead, though still listed)", ids)
	}
}

func TestLivenessKeepsSessionsWhenTmuxFails(t *testing.T) {
	e, _ := newEngine(t)
	stuckOn(t, e, "A", "%1", filepath.Join(t.TempDir(), "s"), at(1))
	l := &watch.Liveness{Engine: e, Log: discard, Tmux: func(socket string) *tmuxctl.Server {
		return &tmuxctl.Server{Bin: filepath.Join(t.TempDir(), "no-such-tmux"), Socket: socket}
	}}
	l.Check(context.Background())
	if ids := liveIDs(e); strings.Join(ids, " ") != "A" {
		t.Fatalf("a tmux that cannot run retired %v: only a server known to be gone may retire", ids)
	}
}
