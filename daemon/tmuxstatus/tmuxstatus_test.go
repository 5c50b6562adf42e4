package tmuxstatus

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// engine is the engine as the Publisher sees it, with sessions a test sets.
type engine struct {
	mu       sync.Mutex
	sessions []queue.Session
	changed  chan struct{}
}

func (e *engine) Subscribe() <-chan struct{} { return e.changed }
func (e *engine) Now() time.Time             { return time.Now() }
func (e *engine) Snapshot() []queue.Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]queue.Session(nil), e.sessions...)
}
func (e *engine) set(s ...queue.Session) {
	e.mu.Lock()
	e.sessions = s
	e.mu.Unlock()
	e.changed <- struct{}{}
}

// The status options follow the queue on the real tmux server the sessions run on, the
// status file's callback gets each new line once, and a skipped item's cooldown ending
// changes the line with no event at all.
func TestStatusFollowsTheQueueOnItsTmuxServer(t *testing.T) {
	env := tmuxtest.New(t)
	e := &engine{changed: make(chan struct{}, 1)}
	var mu sync.Mutex
	var lines []string
	p := &Publisher{Engine: e, Tmux: tmuxctl.New, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnLine: func(l string) { mu.Lock(); lines = append(lines, l); mu.Unlock() }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = p.Run(ctx) }()

	option := func() string { return strings.TrimSpace(env.Tmux(t, "show-options", "-gqv", OptionStatus)) }
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for option() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s is %q, want %q", OptionStatus, option(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	e.set(queue.Session{ID: "a", Stuck: true, Pane: "%1", TmuxSocket: env.Socket},
		queue.Session{ID: "b", Stuck: true, Pane: "%2", TmuxSocket: env.Socket, CooldownUntil: time.Now().Add(300 * time.Millisecond)},
		queue.Session{ID: "c", Pane: "%3", TmuxSocket: env.Socket})
	waitFor("⚠ 1 stuck · 1 cooling")
	if got := strings.TrimSpace(env.Tmux(t, "show-options", "-gqv", OptionReady)); got != "1" {
		t.Errorf("%s = %q, want 1", OptionReady, got)
	}
	waitFor("⚠ 2 stuck") // b's cooldown ended: no event said so
	e.set()
	waitFor("")
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"", "⚠ 1 stuck · 1 cooling", "⚠ 2 stuck", ""}; strings.Join(lines, "|") != strings.Join(want, "|") &&
		strings.Join(lines, "|") != strings.Join(want[1:], "|") {
		t.Errorf("OnLine got %q, want each new line once: %q", lines, want)
	}
}

// The jump key's options follow where Jumps says the key lands, on each tmux server its
// own, and are emptied when the publisher stops (the daemon stopping), so that the key asks
// the daemon rather than trusting a queue no one keeps current. A value that is not a pane
// id is never written.
func TestJumpOptionsFollowTheQueueAndClearOnStop(t *testing.T) {
	env := tmuxtest.New(t)
	e := &engine{changed: make(chan struct{}, 1)}
	var mu sync.Mutex
	jumps := map[string][2]string{}
	p := &Publisher{Engine: e, Tmux: tmuxctl.New, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Jumps: func(socket string) (string, string) {
			mu.Lock()
			defer mu.Unlock()
			j := jumps[socket]
			return j[0], j[1]
		}}
	setJumps := func(head, next string) { mu.Lock(); jumps[env.Socket] = [2]string{head, next}; mu.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { _ = p.Run(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped }()

	options := func() string {
		return strings.TrimSpace(env.Tmux(t, "show-options", "-gqv", OptionHead)) + " " +
			strings.TrimSpace(env.Tmux(t, "show-options", "-gqv", OptionNext))
	}
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for options() != want {
			if time.Now().After(deadline) {
				t.Fatalf("head and next are %q, want %q", options(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	setJumps("%1", "%2")
	e.set(queue.Session{ID: "a", Stuck: true, Pane: "%1", TmuxSocket: env.Socket},
		queue.Session{ID: "b", Stuck: true, Pane: "%2", TmuxSocket: env.Socket})
	waitFor("%1 %2")
	setJumps("%2", "") // a answered: the counts change, and so does the head
	e.set(queue.Session{ID: "b", Stuck: true, Pane: "%2", TmuxSocket: env.Socket})
	waitFor("%2 ")
	setJumps("%2", "%3;kill-server") // never written
	e.set(queue.Session{ID: "b", Stuck: true, Pane: "%2", TmuxSocket: env.Socket},
		queue.Session{ID: "c", Stuck: true, Pane: "%3", TmuxSocket: env.Socket})
	for deadline := time.Now().Add(5 * time.Second); strings.TrimSpace(env.Tmux(t, "show-options", "-gqv", OptionStuck)) != "2"; {
		if time.Now().After(deadline) {
			t.Fatalf("the third change was not published")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := options(); got != "%2 " {
		t.Errorf("with a next that is no pane id, head and next are %q, want %q", got, "%2 ")
	}
	cancel()
	<-stopped
	if got := options(); got != " " {
		t.Errorf("after the publisher stopped head and next are %q, want both empty", got)
	}
}
