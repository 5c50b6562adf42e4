package daemon

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/trailboss/trailboss/daemon/spool"
)

// SpoolDrainer applies the events that hooks left in the spool because the daemon was down
// or too slow to answer them in time: at start, then every Interval (a ReadDir of an empty
// folder when there is nothing to do).
type SpoolDrainer struct {
	API      *API
	StateDir string
	Interval time.Duration
	Log      *slog.Logger
}

// Run drains until ctx ends.
func (d *SpoolDrainer) Run(ctx context.Context) error {
	t := time.NewTicker(d.Interval)
	defer t.Stop()
	for {
		d.Drain(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Drain applies every spooled event in emitted order and removes its file. A file that
// cannot be read, is too old, or that the daemon refuses is dropped with a log line; when
// the store cannot take writes (503), the rest waits for the next round.
func (d *SpoolDrainer) Drain(ctx context.Context) {
	entries, err := spool.List(d.StateDir)
	if err != nil {
		d.Log.Warn("read spool", "err", err)
		return
	}
	applied := 0
	for _, en := range entries {
		if ctx.Err() != nil {
			return
		}
		switch {
		case en.Err != nil:
			d.Log.Warn("dropped an unreadable spooled event", "file", en.Path, "err", en.Err)
		case time.Since(en.Event.EmittedAt) > spool.MaxAge:
			d.Log.Info("dropped a spooled event too old to be true", "file", en.Path, "emitted", en.Event.EmittedAt)
		case en.Event.Harness != spool.Generic && hookParsers[en.Event.Harness] == nil:
			d.Log.Warn("dropped a spooled event of an unknown harness", "file", en.Path, "harness", en.Event.Harness)
		default:
			res := ingestResult{code: http.StatusInternalServerError, msg: "internal error"}
			// A spooled event that trips a bug is dropped like a refused one, not retried forever.
			_ = guard(d.Log, "applying a spooled event", []any{"file", en.Path}, func() {
				if en.Event.Harness == spool.Generic {
					res = d.API.ingestGeneric(ctx, en.Event.Body)
				} else {
					res = d.API.ingestHook(ctx, hookParsers[en.Event.Harness], en.Event.Body,
						en.Event.Pane, en.Event.Tmux, en.Event.EmittedAt)
				}
			})
			if res.code == http.StatusServiceUnavailable {
				return // the store is failing: keep this and the rest for later
			}
			if res.code != http.StatusOK {
				d.Log.Warn("dropped a spooled event the daemon refuses", "file", en.Path, "why", res.msg)
			} else {
				applied++
			}
		}
		if err := os.Remove(en.Path); err != nil && !os.IsNotExist(err) {
			d.Log.Warn("remove spooled event", "file", en.Path, "err", err)
			return // do not apply it again and again
		}
	}
	if applied > 0 {
		d.Log.Info("applied spooled events", "count", applied)
	}
}
