package daemon

import (
	"context"
	"errors"
	"github.com/trailboss/trailboss/daemon/fault"
	"log/slog"
	"os"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/spool"
	"github.com/trailboss/trailboss/daemon/statedir"
)

// SpoolDrainer applies the events that hooks left in the spool because the daemon was down
// or too slow to answer them in time: at start, then every Interval (a ReadDir of an empty
// folder when there is nothing to do).
type SpoolDrainer struct {
	Ingest   *Ingestor
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

// Drain applies every spooled event in emitted order and removes its file, reading one
// file at a time: memory stays that of one event, however full the spool. A file that
// cannot be read, is too old, or that the daemon refuses is dropped with a log line; when
// the store cannot take writes (503), the rest waits for the next round.
func (d *SpoolDrainer) Drain(ctx context.Context) {
	paths, err := spool.List(d.StateDir)
	if err != nil {
		d.Log.Warn("read spool", "err", err)
		return
	}
	applied := 0
	for _, path := range paths {
		if ctx.Err() != nil {
			return
		}
		ev, err := spool.Read(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // dropped by a hook making room since it was listed
		case err != nil:
			d.Log.Warn("dropped an unreadable spooled event", "file", path, "err", err)
		case time.Since(ev.EmittedAt) > spool.MaxAge:
			d.Log.Info("dropped a spooled event too old to be true", "file", path, "emitted", ev.EmittedAt)
		default:
			var err error
			if bug := guard(d.Log, "applying a spooled event", []any{"file", path}, func() {
				err = d.apply(ctx, path, ev)
			}); bug != nil {
				err = bug
			}
			switch {
			case errors.Is(err, fault.ErrNotStored):
				return // the store is failing: keep this and the rest for later
			case err != nil:
				// Refused, or it tripped a bug: dropped, not retried forever. The emit log
				// says so too, so that doctor does not call the spool delivered.
				d.Log.Warn("dropped a spooled event the daemon refuses", "file", path, "why", err)
				statedir.AppendEmitLog(d.StateDir, time.Now(), "the daemon dropped a spooled event it refuses: "+
					adapter.CleanText(err.Error(), 300))
			default:
				applied++
			}
		}
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			d.Log.Warn("remove spooled event", "file", path, "err", err)
			return // do not apply it again and again
		}
	}
	if applied > 0 {
		d.Log.Info("applied spooled events", "count", applied)
	}
}

// apply hands one spooled event to the ingestor as its emitter would have.
func (d *SpoolDrainer) apply(ctx context.Context, path string, ev spool.Event) error {
	if ev.Harness == spool.Generic {
		_, err := d.Ingest.Generic(ctx, ev.Body)
		return err
	}
	_, err := d.Ingest.Hook(ctx, ev.Harness, ev.Body, ev.Pane, ev.Tmux, ev.EmittedAt, spooledOrigin(path, ev))
	return err
}

// spooledOrigin returns what the daemon believes of the program that ran the hook spooled
// in path: its emitter's word, checked against /proc, when the file is this user's own in
// the private state directory (where only this user writes); else nothing (who asked is not
// known, and an answer to it is never typed).
func spooledOrigin(path string, ev spool.Event) Origin {
	if ev.Program == "" {
		return Origin{}
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || !lineage.OwnedByUs(fi) {
		return Origin{}
	}
	claim, err := lineage.ParseClaim(ev.Program)
	if err != nil {
		return Origin{}
	}
	return claimedOrigin(claim, ev.Tmux, false)
}
