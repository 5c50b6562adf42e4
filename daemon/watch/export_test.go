package watch

import (
	"context"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
)

// Unexported state the tests (package watch_test, which drives a real engine) look at.

// ReadStuck reports whether the watcher read pane of the tmux server at socket as waiting.
func (w *ScreenWatcher) ReadStuck(socket, pane string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.watched[paneKey{socket, pane}]
	return st != nil && st.stuck
}

// DiscoverNow looks for agent panes once, as the discovery tick does.
func (w *ScreenWatcher) DiscoverNow(ctx context.Context) {
	w.mu.Lock()
	w.init()
	w.mu.Unlock()
	w.discover(ctx)
}

// Ready makes r's maps as Run would, with w as its file watcher (nil: none), for direct
// calls of its methods.
func (r *Reconciler) Ready(w *fsnotify.Watcher) *Reconciler {
	r.dirs, r.pending = folders{watcher: w, watched: map[string]bool{}}, map[string]pendingWait{}
	return r
}

// ReconcileNow reconciles s once, from the state given.
func (r *Reconciler) ReconcileNow(ctx context.Context, s queue.Session) { r.reconcile(ctx, s) }

// RoundNow is one round of Run (all: the sweep's).
func (r *Reconciler) RoundNow(ctx context.Context, all bool) { r.round(ctx, all) }

// SettleNow queues the waits that have stayed quiet for the settle time.
func (r *Reconciler) SettleNow(ctx context.Context) { r.settlePending(ctx) }

// Pending reports whether session id's waiting tail is still settling.
func (r *Reconciler) Pending(id string) bool {
	_, ok := r.pending[id]
	return ok
}

// ReadNow applies what the state file at path says now.
func (l *LiveStates) ReadNow(ctx context.Context, path string) { l.read(ctx, path) }

// TakeNow applies state st as read from the file at path.
func (l *LiveStates) TakeNow(ctx context.Context, path string, st adapter.LiveState) {
	l.take(ctx, path, st)
}

// SetTornRetry sets how soon and how many times a half-written state file is read again,
// until restore.
func SetTornRetry(every time.Duration, times int) (restore func()) {
	was, wasTimes := tornRetry, tornRetries
	tornRetry, tornRetries = every, times
	return func() { tornRetry, tornRetries = was, wasTimes }
}

// IngestNow hands ev to the engine as the watcher does with what it read.
func (w *ScreenWatcher) IngestNow(ctx context.Context, ev adapter.Event) { w.ingest(ctx, ev) }

// SawStuck records that the watcher read pane of the tmux server at socket as waiting for
// reason, as read does.
func (w *ScreenWatcher) SawStuck(socket, pane, reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if st := w.watched[paneKey{socket, pane}]; st != nil {
		st.stuck, st.saw = true, reason
	}
}
