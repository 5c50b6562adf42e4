package daemon

import (
	"context"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
)

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
// The book of dialogs is told of ev once it is applied, not before as with a hook's
// event: an event that is not applied must not end a call.
func (e *Engine) TakeIf(ctx context.Context, ev adapter.Event, basis queue.Session) error {
	_, err := e.applyAndCommit(ctx, ev, &basis)
	if err == nil {
		e.beforeApply(ev, false)
	}
	return err
}
