package watch

import (
	"context"
	"log/slog"
	"time"

	"github.com/fsnotify/fsnotify"
)

// folders follows the files of a set of folders, as the Reconciler (transcripts) and
// LiveStates (state files) do: with fsnotify when it can be had, and always with a sweep
// on a timer, which finds what the watch missed, or every change without it.
type folders struct {
	watcher *fsnotify.Watcher // nil: the sweep alone
	watched map[string]bool   // folders under watch
}

// open starts fsnotify when on. When it cannot be had (out of inotify instances), unwatched
// is logged and the sweep alone finds every change, only later.
func (f *folders) open(on bool, log *slog.Logger, unwatched string) {
	f.watched = make(map[string]bool)
	if !on {
		return
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		log.Warn(unwatched, "err", err)
		return
	}
	f.watcher = w
}

// close stops fsnotify.
func (f *folders) close() {
	if f.watcher != nil {
		_ = f.watcher.Close()
	}
}

// follow puts dir under watch, unless it is or there is no watch; an error says it could
// not be (a missing folder, no watches left: the sweep covers it).
func (f *folders) follow(dir string) error {
	if f.watcher == nil || f.watched[dir] {
		return nil
	}
	if err := f.watcher.Add(dir); err != nil {
		return err
	}
	f.watched[dir] = true
	return nil
}

// only takes the folders not in want off the watch.
func (f *folders) only(want map[string]bool) {
	for dir := range f.watched {
		if !want[dir] {
			_ = f.watcher.Remove(dir)
			delete(f.watched, dir)
		}
	}
}

// loop is what a watcher of folders does on each thing that happens; a nil func or
// channel, or a zero duration, leaves that out.
type loop struct {
	sweep    time.Duration
	onSweep  func()               // on each tick of sweep
	onFile   func(fsnotify.Event) // on each event of a file in a folder under watch
	watchErr string               // logged with an error of the watch
	wake     <-chan struct{}      // and onWake on each signal of it
	onWake   func()
	settle   time.Duration // and onSettle on each tick of it
	onSettle func()
	onStop   func() // once ctx ends
}

// run runs l until ctx ends.
func (f *folders) run(ctx context.Context, log *slog.Logger, l loop) {
	sweep := time.NewTicker(l.sweep)
	defer sweep.Stop()
	var settle <-chan time.Time
	if l.settle > 0 {
		t := time.NewTicker(l.settle)
		defer t.Stop()
		settle = t.C
	}
	var events <-chan fsnotify.Event
	var errs <-chan error
	if f.watcher != nil {
		events, errs = f.watcher.Events, f.watcher.Errors
	}
	for {
		select {
		case <-ctx.Done():
			if l.onStop != nil {
				l.onStop()
			}
			return
		case <-l.wake:
			l.onWake()
		case ev := <-events:
			l.onFile(ev)
		case err := <-errs:
			log.Warn(l.watchErr, "err", err)
		case <-sweep.C:
			l.onSweep()
		case <-settle:
			l.onSettle()
		}
	}
}
