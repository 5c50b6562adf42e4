package daemon

import (
	"context"

	"github.com/trailboss/trailboss/adapter"
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
