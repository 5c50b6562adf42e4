package watch

import "context"

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
