package daemon

import (
	"context"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
)

// CallBook follows what each session is about to do beside its row (package watch's
// Dialogs).
type CallBook interface {
	// Before takes ev, which a hook sent when fromHook, before it is applied, and returns
	// the event to apply.
	Before(ev adapter.Event, fromHook bool) adapter.Event
	// Pair returns the event that gives the dialog open in session id the words of the
	// call found (nil: the one the book knows), and false when there is none.
	Pair(id string, found *adapter.ToolCall) (adapter.Event, bool)
}

// Take is Ingest for the watchers (package watch), which need only to know that ev was
// taken.
func (e *Engine) Take(ctx context.Context, ev adapter.Event) error {
	_, err := e.Ingest(ctx, ev)
	return err
}

// TakeIf is Take for an event a watcher made from basis, the session as it read it: ev is
// applied only if the session is still as basis was (the same wait in the same words, no
// event since), else nothing changes and the error is fault.ErrMoved. A watcher reads a
// session, then the book of its calls, then decides; a hook applied in between (the
// PreToolUse whose call its dialog is about) would otherwise be undone by a decision made
// without it.
//
// The book of calls (Calls) is told of ev once it is applied, not before as with a hook's
// event: an event that is not applied must not end a call.
func (e *Engine) TakeIf(ctx context.Context, ev adapter.Event, basis queue.Session) error {
	_, err := e.applyAndCommit(ctx, ev, &basis)
	if err == nil && e.Calls != nil {
		e.Calls.Before(ev, false)
	}
	return err
}
