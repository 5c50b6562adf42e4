package daemon

import (
	"context"
	"errors"
	"github.com/trailboss/trailboss/daemon/fault"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

func TestSkipSessionMovesAnyItemToTheTail(t *testing.T) {
	e, path := newEngine(t)
	e.now = func() time.Time { return at(100) }
	ingest(t, e, event("A", adapter.KindStuck, at(1), "%1"))
	ingest(t, e, event("B", adapter.KindStuck, at(2), "%2"))
	ingest(t, e, event("C", adapter.KindStuck, at(3), "%3"))
	if err := e.SkipSession(context.Background(), "B"); err != nil {
		t.Fatal(err)
	}
	if got := itemIDs(e.Items()); !sameIDs(got, []string{"A", "C", "B"}) {
		t.Fatalf("queue %v, want A C B (B cooling at the tail)", got)
	}
	if s, _ := onDisk(t, path, "B"); !s.CooldownUntil.Equal(at(100).Add(time.Minute)) {
		t.Errorf("cooldown on disk %v", s.CooldownUntil)
	}
	if err := e.SkipSession(context.Background(), "nobody"); !errors.Is(err, fault.ErrNotQueued) {
		t.Errorf("skip of an unknown session: %v, want fault.ErrNotQueued", err)
	}
}

func TestDismissDropsUntilTheNextStuckEvent(t *testing.T) {
	e, path := newEngine(t)
	e.now = func() time.Time { return at(50) }
	ingest(t, e, event("A", adapter.KindStuck, at(1), "%1"))
	if err := e.Dismiss(context.Background(), "A"); err != nil {
		t.Fatal(err)
	}
	if len(e.Items()) != 0 {
		t.Fatal("dismissed session still queued")
	}
	if s, _ := onDisk(t, path, "A"); s.Stuck || !s.Dismissed {
		t.Fatalf("on disk: stuck=%v dismissed=%v", s.Stuck, s.Dismissed)
	}
	// A repeat of the same wait, stamped before the dismissal, does not bring it back…
	if changed := ingest(t, e, event("A", adapter.KindStuck, at(40), "%1")); changed || len(e.Items()) != 0 {
		t.Fatal("an event from before the dismissal re-queued it")
	}
	// …its next stuck event does.
	ingest(t, e, event("A", adapter.KindStuck, at(60), "%1"))
	if got := itemIDs(e.Items()); !sameIDs(got, []string{"A"}) {
		t.Fatalf("queue %v, want A back", got)
	}
	if err := e.Dismiss(context.Background(), "nobody"); !errors.Is(err, fault.ErrNotQueued) {
		t.Errorf("dismiss of an unknown session: %v", err)
	}
}
