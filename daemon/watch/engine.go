// Package watch holds the daemon's watchers: what reads the world besides hooks (panes,
// screens, transcripts, live state files) and turns it into events for the engine. Each
// watcher sees the engine through an interface of only the methods it calls.
package watch

import (
	"context"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/liverule"
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

// Dialogs is the engine's book of what each session is about to do and of the dialog it
// shows, as a watcher that finds a dialog's call sees it.
type Dialogs interface {
	// Session returns live session id.
	Session(id string) (queue.Session, bool)
	// LatestPrompt returns a copy of session id's latest prompt record, or nil.
	LatestPrompt(id string) *queue.Prompt
	// CallOver reports whether call id of session is over (it ran, or a dialog about it
	// closed).
	CallOver(session, id string) bool
	// PairCall gives the dialog session id shows the words and record of found, the call
	// it is about; nothing when that changes nothing.
	PairCall(ctx context.Context, id string, found *adapter.ToolCall) error
	// LiveWords returns harness's words for the waits its state files show.
	LiveWords(harness string) liverule.Words
}

// Transcripts is the engine as the Reconciler sees it.
type Transcripts interface {
	Taker
	Dialogs
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
	Dialogs
	// NoteLive takes a fresh reading of a session's state file into the book.
	NoteLive(st adapter.LiveState)
	// LiveView returns what the engine knows of session s beside its row, for the rule of
	// what its state file means (liverule.Event); the transcript's part is left empty.
	LiveView(s queue.Session) liverule.View
	// ForgetDialogs drops what the book keeps of sessions no longer live that did not
	// change for idle.
	ForgetDialogs(idle time.Duration)
	// TakeIf applies ev, decided from basis (the session as read), only while the session
	// is still so; else it returns fault.ErrMoved.
	TakeIf(ctx context.Context, ev adapter.Event, basis queue.Session) error
}
