// Package watch holds the daemon's watchers: what reads the world besides hooks (panes,
// screens, transcripts, live state files) and turns it into events for the engine. Each
// watcher sees the engine through an interface of only the methods it calls.
package watch

import (
	"context"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/transcript"
)

// Sessions lists the live sessions.
type Sessions interface {
	// Snapshot returns a copy of every live session.
	Snapshot() []queue.Session
}

// Taker is the engine as a watcher that reports events sees it.
type Taker interface {
	Sessions
	// Take applies ev and returns once the change is committed.
	Take(ctx context.Context, ev adapter.Event) error
}

// ScreenEngine is the engine as the ScreenWatcher sees it.
type ScreenEngine interface {
	Taker
	// TakeIf applies ev, decided from basis (the session as read), only while the session
	// is still so; else it returns fault.ErrMoved.
	TakeIf(ctx context.Context, ev adapter.Event, basis queue.Session) error
}

// Retirer is the engine as Liveness sees it.
type Retirer interface {
	Sessions
	// Retire ends sessions ids as of at.
	Retire(ctx context.Context, ids []string, at time.Time) error
}

// Transcripts is the engine as the Reconciler sees it.
type Transcripts interface {
	Taker
	DialogEngine
	// Subscribe returns a channel that receives after committed changes.
	Subscribe() <-chan struct{}
	// SetTranscriptPosition records how far a session's transcript was read.
	SetTranscriptPosition(id, path string, pos transcript.Position, tailAt time.Time)
	// FlushPositions writes the read positions that moved.
	FlushPositions(ctx context.Context) error
}

// LiveEngine is the engine as LiveStates sees it.
type LiveEngine interface {
	Taker
	DialogEngine
	// TakeIf applies ev, decided from basis (the session as read), only while the session
	// is still so; else it returns fault.ErrMoved.
	TakeIf(ctx context.Context, ev adapter.Event, basis queue.Session) error
}
