package watch

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
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/guard"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/transcript"
	"github.com/trailboss/trailboss/tmuxctl"
)

// Hooks say when a harness asks; nothing may say when its human answers in the pane. An
// approved command that runs for minutes stays a pending permission to hooks alone, and an
// Esc at a dialog may fire no hook at all. A harness's live state files (where, and what
// they say, is its adapter's LiveStateSource) do say it, within a moment: LiveStates
// follows them and turns the answer into an event. Some say more: that a dialog is open
// and what kind (a permission, a question, another dialog), and in which tmux pane the
// process runs. A permission dialog that fires no hook (the harness's adapter says when)
// is then queued from the state file, with the words of the call the session's PreToolUse
// announced (Dialogs); and a session whose hooks are not set up is found and followed from
// its file alone. Where no such files exist (another harness, or a version without them),
// nothing here happens and hooks and transcripts work as before.

// LiveStates watches the state-file folders of every configuration folder of one harness
// in use: the daemon's own (Own: its Source's OwnDir in the daemon's environment) and those
// of known sessions' transcripts (its Source's DirOf), so a run of the harness with another
// home is followed too.
type LiveStates struct {
	Engine LiveEngine
	Sweep  time.Duration // how often folders are looked for and files re-stat'ed
	Watch  bool          // use fsnotify; off, the sweep alone reads changes
	Own    string        // the state folder of the daemon's own configuration, or ""
	// Harness is whose state files these are, Source where it keeps them and how to read
	// them, Transcripts the reader of its transcripts.
	Harness     string
	Source      adapter.LiveStateSource
	Transcripts adapter.TranscriptReader
	// Tmux and Servers find the pane a state file's process runs in (nil: the file's
	// session is followed only once a hook has bound it): the tmux servers to look in,
	// and a client for one.
	Tmux    func(socket string) *tmuxctl.Server
	Servers func() []string
	Log     *slog.Logger

	dirs    folders              // the state folders
	seen    map[string]fileStamp // state file → what it was when last read
	owner   map[string]string    // state file → the session it named when last read
	located map[string]located   // state file → where its process was last looked for
	torn    map[string]int       // state file → reads in a row that found it half-written
	retry   chan struct{}        // a torn file is due to be read again
}

// tornRetry is how soon a state file found half-written is read again, and tornRetries
// how many times in a row: a harness may rewrite its file in place (its adapter's
// LiveStateSource says so), and a reading between its writes sees a part of it. The write that completes it brings an event, but a
// reading on the sweep (no file watching), or one whose event came before the last write
// landed, would otherwise wait for the next change of state, seconds away: a dialog on
// screen and not in the queue.
// (Variables for the tests only.)
var (
	tornRetry   = 50 * time.Millisecond
	tornRetries = 5
)

type fileStamp struct {
	size    int64
	modTime time.Time
}

// located is where the process of a state file was found (ok), or not, for the reading
// that asked: the same process, pane word and servers are not looked for again.
type located struct {
	key string
	at  place
	ok  bool
}

// place is a verified pane of a process: the pane on its tmux server, and the program.
type place struct {
	pane, socket string
	prog         adapter.Program
}

// Run follows the state files until ctx ends.
func (l *LiveStates) Run(ctx context.Context) error {
	l.init()
	log := l.Log.With("harness", l.Harness)
	l.dirs.open(l.Watch, log, "file watching unavailable; reading live state files on the sweep")
	defer l.dirs.close()
	l.sweep(ctx)
	l.dirs.run(ctx, log, loop{
		sweep: l.Sweep,
		onSweep: func() {
			l.sweep(ctx)
			l.Engine.ForgetDialogs(time.Hour)
		},
		onFile: func(ev fsnotify.Event) {
			if ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create) {
				l.read(ctx, ev.Name)
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				l.removed(ctx, ev.Name)
			}
		},
		watchErr: "watch live state files",
		wake:     l.retry,
		onWake:   func() { l.reread(ctx) },
	})
	return nil
}

func (l *LiveStates) init() {
	if l.seen == nil {
		l.seen = make(map[string]fileStamp)
		l.owner = make(map[string]string)
		l.located = make(map[string]located)
		l.torn = make(map[string]int)
		l.retry = make(chan struct{}, 1)
	}
}

// folders returns the state folders to follow now.
func (l *LiveStates) folders() map[string]bool {
	want := make(map[string]bool)
	if l.Own != "" {
		want[l.Own] = true
	}
	for _, s := range l.Engine.Snapshot() {
		if s.Harness != l.Harness {
			continue
		}
		if dir := l.Source.DirOf(s.TranscriptPath); dir != "" {
			want[dir] = true
		}
	}
	return want
}

// sweep adds watches for new folders and reads every state file that changed since it was
// last read: a stat each, and a read only of the changed ones.
func (l *LiveStates) sweep(ctx context.Context) {
	for dir := range l.folders() {
		_ = l.dirs.follow(dir) // when it cannot be, the sweep reads it
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // the harness has not run here yet, or is a version without state files
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

// removed ends the session whose process removed its state file, as a harness may do as
// it exits (its adapter's LiveStateSource says so). Its end hook may run too, but the
// process can be gone before an async hook's emitter reports (the harness's adapter says
// when), so without this the session stayed queued on a pane that had moved on to its
// shell.
func (l *LiveStates) removed(ctx context.Context, path string) {
	id, known := l.owner[path]
	if _, err := os.Lstat(path); err == nil || !known {
		return // replaced by a rename, or never read: nothing ended
	}
	delete(l.seen, path)
	delete(l.owner, path)
	delete(l.located, path)
	delete(l.torn, path)
	s, ok := l.Engine.Session(id)
	if !ok || s.Harness != l.Harness {
		return
	}
	ev := adapter.Event{Harness: s.Harness, SessionID: id, Kind: adapter.KindEnd, Detail: "exited", At: time.Now()}
	if err := l.Engine.Take(ctx, ev); err != nil {
		l.Log.Warn("end a session whose program exited", "harness", s.Harness, "session", id, "err", err)
		return
	}
	l.Log.Info("program exited: its live state file is gone", "harness", s.Harness, "session", id, "file", path)
}

// read applies what one state file says now.
func (l *LiveStates) read(ctx context.Context, path string) {
	if !strings.HasSuffix(path, ".json") {
		return
	}
	l.init()
	_ = guard.Run(l.Log, "reading a live state file", []any{"harness", l.Harness, "file", path}, func() {
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() {
			return // a FIFO or a device would hang or harm the read
		}
		if !ownedByUs(info) {
			// Another user's file says nothing about our sessions (a shared
			// configuration folder): it must never bind or answer one.
			l.Log.Debug("live state file of another user", "harness", l.Harness, "file", path)
			return
		}
		if multi, ok := l.Source.(adapter.MultiLiveStateSource); ok {
			// One file of every open session (a MultiLiveStateSource's): each binds, none
			// owns it.
			all, err := multi.ReadAll(path)
			if err != nil {
				l.tornRead(path) // half-written, or not its state file: read again in a moment
				return
			}
			delete(l.torn, path)
			l.seen[path] = fileStamp{info.Size(), info.ModTime()}
			for _, st := range all {
				l.take(ctx, path+"#"+st.SessionID, st)
			}
			return
		}
		st, err := l.Source.Read(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				delete(l.torn, path)
				return
			}
			// Half-written, most likely: read again in a moment. A file that stays so (a
			// first write with no status yet) is left for its next change after a few.
			l.Log.Debug("live state file", "harness", l.Harness, "file", path, "err", err)
			l.tornRead(path)
			return
		}
		delete(l.torn, path)
		l.seen[path] = fileStamp{info.Size(), info.ModTime()}
		l.owner[path] = st.SessionID
		l.take(ctx, path, st)
	})
}

// tornRead notes that the state file at path was found half-written, and has it read again
// in a moment, up to tornRetries times in a row.
func (l *LiveStates) tornRead(path string) {
	n := l.torn[path] + 1
	if n > tornRetries {
		delete(l.torn, path) // not a write under way: its next change brings an event
		return
	}
	l.torn[path] = n
	time.AfterFunc(tornRetry, func() {
		select {
		case l.retry <- struct{}{}:
		default: // a wake-up is pending: it reads every torn file
		}
	})
}

// reread reads again every state file found half-written.
func (l *LiveStates) reread(ctx context.Context) {
	for path := range l.torn {
		l.read(ctx, path)
	}
}

// take applies state st, read from the file at path: the session it names is bound to its
// pane if need be (bind), then follows what st says (apply).
func (l *LiveStates) take(ctx context.Context, path string, st adapter.LiveState) {
	l.init()
	l.Engine.NoteLive(st)
	if s, ok := l.bind(ctx, path, st); ok {
		l.apply(ctx, s, st)
	}
}

// apply ingests what st means for session s now (liverule.Event). A hook that changed the
// session while it was being decided on (the PreToolUse of the dialog st says is open)
// makes the decision stale: it is made again from the session as it is now.
func (l *LiveStates) apply(ctx context.Context, s queue.Session, st adapter.LiveState) {
	for range maxRedecide {
		err := l.decide(ctx, s, st)
		if !errors.Is(err, fault.ErrMoved) {
			return
		}
		now, ok := l.Engine.Session(s.ID)
		if !ok {
			return
		}
		s = now
	}
	l.Log.Warn("apply live state: the session kept changing; the next reading decides", "harness", s.Harness,
		"session", s.ID)
}

// maxRedecide bounds how many times apply decides again for one reading.
const maxRedecide = 4

// decide ingests what st means for session s (liverule.Event), reading its transcript only when
// the rule needs its words: the call a permission dialog is about, or how a turn ended. It
// returns fault.ErrMoved when s changed before the event could be applied.
func (l *LiveStates) decide(ctx context.Context, s queue.Session, st adapter.LiveState) error {
	v := l.Engine.LiveView(s)
	if st.Status == adapter.LiveWaiting && v.Call == nil {
		v.Call = transcriptCall(l.Engine, l.Transcripts, s) // without hooks, the call is in the transcript
	}
	if (st.Status == adapter.LiveIdle || st.Status == adapter.LiveShell) && (!s.Stuck || s.Reason == adapter.ReasonPermission) {
		v.Tail, v.TurnBy = turnEnd(l.Transcripts, s.TranscriptPath)
	}
	ev, ok := liverule.Event(s, v, st)
	if !ok {
		return nil
	}
	take := func(ev adapter.Event) error { return l.Engine.TakeIf(ctx, ev, s) }
	if liverule.AnsweredThenStopped(s, ev) {
		// Out of the queue first, so that the stop takes a place of its own rather than
		// the dialog's.
		answered := adapter.Event{Harness: s.Harness, SessionID: s.ID, Kind: adapter.KindUnstuck, By: adapter.ByHuman, At: ev.At}
		if err := take(answered); err != nil {
			return l.failed(s, err)
		}
		take = func(ev adapter.Event) error { return l.Engine.Take(ctx, ev) } // s moved on by our own doing
	}
	if err := take(ev); err != nil {
		return l.failed(s, err)
	}
	l.Log.Info("live state", "harness", s.Harness, "session", s.ID, "status", st.Status, "waiting_for", st.WaitingFor,
		"event", ev.Kind, "detail", ev.Detail)
	logDialogClosed(l.Log, ev)
	if v.Call == nil && ev.Ask != nil && ev.Ask.Kind == adapter.AskNone && s.TranscriptPath != "" {
		go l.awaitCall(ctx, s)
	}
	return nil
}

// failed logs err, an event of session s not taken, unless s only moved on (apply decides
// again), and returns it.
func (l *LiveStates) failed(s queue.Session, err error) error {
	if !errors.Is(err, fault.ErrMoved) {
		l.Log.Warn("apply live state", "harness", s.Harness, "session", s.ID, "err", err)
	}
	return err
}

// awaitCall looks in s's transcript, for a few seconds, for the call a dialog queued
// without one is about: a harness may write it down a little after it opens the dialog
// (the harness's adapter says how late), and a session without hooks has no PreToolUse
// to say it.
func (l *LiveStates) awaitCall(ctx context.Context, s queue.Session) {
	_ = guard.Run(l.Log, "looking for a dialog's call", []any{"session", s.ID}, func() {
		for range 50 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			now, ok := l.Engine.Session(s.ID)
			if !ok || !now.Stuck || !liverule.WordsOnly(now, l.Engine.LiveWords(now.Harness)) {
				return // its words came, or it moved on
			}
			if call := transcriptCall(l.Engine, l.Transcripts, now); call != nil {
				if err := l.Engine.PairCall(ctx, s.ID, call); err != nil {
					l.Log.Warn("apply a dialog's call", "session", s.ID, "err", err)
				}
				return
			}
		}
	})
}

// transcriptCall returns the call a permission dialog of s is about, read from the end of
// its transcript (its last tool_use with no result, in the turn that runs), or nil; a call
// already over (done, or closed with an earlier dialog) is none.
func transcriptCall(d Dialogs, reader adapter.TranscriptReader, s queue.Session) *adapter.ToolCall {
	if s.TranscriptPath == "" {
		return nil
	}
	var use *adapter.ToolUse
	done, mode := map[string]bool{}, ""
	_, _ = transcript.ReadTail(s.TranscriptPath, maxTailScan, func(b []byte) bool {
		c := reader.Calls(b)
		for _, id := range c.Results {
			done[id] = true
		}
		for i := len(c.Uses) - 1; i >= 0 && use == nil; i-- {
			if !done[c.Uses[i].ID] {
				use = &c.Uses[i]
			}
		}
		if mode == "" {
			mode = c.Mode // the latest the transcript records
		}
		return c.Prompt
	})
	if use == nil || d.CallOver(s.ID, use.ID) {
		return nil
	}
	call := reader.PendingCall(use.ID, use.Name, mode, use.Input)
	call.Ask.From = adapter.AskFromTranscript
	return call
}

// turnEnd returns the last conversation line of a transcript (nil when none), and who
// submitted the prompt of its last turn ("" when it does not say).
func turnEnd(reader adapter.TranscriptReader, path string) (*adapter.TranscriptLine, string) {
	if path == "" {
		return nil, ""
	}
	var last *adapter.TranscriptLine
	by := ""
	_, _ = transcript.ReadTail(path, maxTailScan, func(b []byte) bool {
		l := reader.Line(b)
		if l.Conversation && last == nil {
			last = &l
		}
		if l.Prompt {
			by = l.By
			return true
		}
		return false
	})
	return last, by
}
