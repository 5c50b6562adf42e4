package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/queue"
)

// Hooks say when Claude Code asks; nothing says when its human answers in the pane. An
// approved command that runs for minutes stays a pending permission to hooks alone, and an
// Esc at a dialog fires no hook at all. Claude Code's live state files
// (<config>/sessions/<pid>.json) do say it, within a moment: LiveStates follows them and
// turns the answer into an event. Where no such files exist (other versions), nothing here
// happens and hooks and transcripts work as before.

// liveEvent is the pure rule: what state file st means for session s, and false when it
// means nothing new. A stuck session whose process went busy after it got stuck was
// answered (a permission approved, a question answered, a new prompt typed); one stuck on a
// dialog whose process went idle had the dialog dismissed (Esc, or a No: rec, its latest
// prompt record, tells), and now waits at its prompt. Other states are left to hooks and
// transcripts, which say more.
func liveEvent(s queue.Session, rec *queue.Prompt, st claude.LiveState) (adapter.Event, bool) {
	if !s.Stuck || s.Ended || s.Harness != claude.Harness || !st.At.After(s.Since) || !st.At.After(s.LastEventAt) {
		return adapter.Event{}, false
	}
	switch {
	case st.Status == claude.LiveBusy:
		return adapter.Event{Harness: s.Harness, SessionID: s.ID, Kind: adapter.KindUnstuck, At: st.At}, true
	case st.Status == claude.LiveIdle && s.Reason == adapter.ReasonPermission:
		return refused(s, rec, st.At), true
	}
	return adapter.Event{}, false
}

// LiveStates watches the state-file folders of every Claude Code configuration folder in
// use: the daemon's own ($CLAUDE_CONFIG_DIR or ~/.claude) and those of known sessions'
// transcripts, so a Claude Code run with another home is followed too.
type LiveStates struct {
	Engine *Engine
	Sweep  time.Duration // how often folders are looked for and files re-stat'ed
	Watch  bool          // use fsnotify; off, the sweep alone reads changes
	Own    string        // the daemon's own Claude Code configuration folder, or ""
	Log    *slog.Logger

	watcher *fsnotify.Watcher
	watched map[string]bool      // state folders under watch
	seen    map[string]fileStamp // state file → what it was when last read
	owner   map[string]string    // state file → the session it named when last read
}

type fileStamp struct {
	size    int64
	modTime time.Time
}

// Run follows the state files until ctx ends.
func (l *LiveStates) Run(ctx context.Context) error {
	l.watched = make(map[string]bool)
	l.seen = make(map[string]fileStamp)
	l.owner = make(map[string]string)
	if l.Watch {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			l.Log.Warn("file watching unavailable; reading Claude Code's state on the sweep", "err", err)
		} else {
			l.watcher = w
			defer w.Close()
		}
	}
	l.sweep(ctx)
	tick := time.NewTicker(l.Sweep)
	defer tick.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if l.watcher != nil {
		events, errs = l.watcher.Events, l.watcher.Errors
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
			if ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create) {
				l.read(ctx, ev.Name)
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				l.removed(ctx, ev.Name)
			}
		case err := <-errs:
			l.Log.Warn("watch Claude Code state files", "err", err)
		case <-tick.C:
			l.sweep(ctx)
		}
	}
}

// folders returns the state folders to follow now.
func (l *LiveStates) folders() map[string]bool {
	want := make(map[string]bool)
	if l.Own != "" {
		want[claude.LiveStateDir(l.Own)] = true
	}
	for _, s := range l.Engine.Snapshot() {
		if s.Harness != claude.Harness {
			continue
		}
		if cfg := claude.ConfigDirOfTranscript(s.TranscriptPath); cfg != "" {
			want[claude.LiveStateDir(cfg)] = true
		}
	}
	return want
}

// sweep adds watches for new folders and reads every state file that changed since it was
// last read: a stat each, and a read only of the changed ones.
func (l *LiveStates) sweep(ctx context.Context) {
	for dir := range l.folders() {
		if l.watcher != nil && !l.watched[dir] {
			if err := l.watcher.Add(dir); err == nil {
				l.watched[dir] = true
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // Claude Code has not run here yet, or is a version without state files
		}
		listed := make(map[string]bool, len(entries))
		for _, e := range entries {
			listed[filepath.Join(dir, e.Name())] = true
		}
		for path := range l.owner {
			if filepath.Dir(path) == dir && !listed[path] {
				l.removed(ctx, path) // a removal the watch did not report
			}
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			if l.seen[path] == (fileStamp{info.Size(), info.ModTime()}) {
				continue
			}
			l.read(ctx, path)
		}
	}
}

// removed ends the session whose process removed its state file: Claude Code does so as it
// exits. Its SessionEnd hook runs too, but at /exit the process is gone before an async
// hook's emitter can report (observed, 2.1.197), so without this the session stayed
// queued on a pane that had moved on to its shell.
func (l *LiveStates) removed(ctx context.Context, path string) {
	id, known := l.owner[path]
	if _, err := os.Lstat(path); err == nil || !known {
		return // replaced by a rename, or never read: nothing ended
	}
	delete(l.seen, path)
	delete(l.owner, path)
	s, ok := l.Engine.Session(id)
	if !ok || s.Harness != claude.Harness {
		return
	}
	ev := adapter.Event{Harness: s.Harness, SessionID: id, Kind: adapter.KindEnd, Detail: "exited", At: time.Now()}
	if _, err := l.Engine.Ingest(ctx, ev); err != nil {
		l.Log.Warn("end a session whose Claude Code exited", "session", id, "err", err)
		return
	}
	l.Log.Info("Claude Code exited", "session", id, "file", path)
}

// read applies what one state file says now.
func (l *LiveStates) read(ctx context.Context, path string) {
	if !strings.HasSuffix(path, ".json") {
		return
	}
	_ = guard(l.Log, "reading a Claude Code state file", []any{"file", path}, func() {
		info, err := os.Stat(path)
		if err != nil {
			return
		}
		st, err := claude.ReadLiveState(path)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				l.Log.Debug("Claude Code state file", "file", path, "err", err)
			}
			return // half-written: the write that completes it brings another event
		}
		l.seen[path] = fileStamp{info.Size(), info.ModTime()}
		l.owner[path] = st.SessionID
		s, ok := l.Engine.Session(st.SessionID)
		if !ok {
			return
		}
		ev, ok := liveEvent(s, l.Engine.latestPrompt(s.ID), st)
		if !ok {
			return
		}
		if _, err := l.Engine.Ingest(ctx, ev); err != nil {
			l.Log.Warn("apply Claude Code state", "session", s.ID, "err", err)
			return
		}
		l.Log.Info("Claude Code state", "session", s.ID, "status", st.Status, "event", ev.Kind, "detail", ev.Detail)
		logDialogClosed(l.Log, ev)
	})
}
