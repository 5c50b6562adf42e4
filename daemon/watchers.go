package daemon

import (
	"context"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/watch"
)

// ScreenWatcher is the screen adapter (package watch), which the API starts and stops
// watching panes through.
type ScreenWatcher = watch.ScreenWatcher

// Take is Ingest for the watchers (package watch), which need only to know that ev was
// taken.
func (e *Engine) Take(ctx context.Context, ev adapter.Event) error {
	_, err := e.Ingest(ctx, ev)
	return err
}
