package watch

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/guard"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/transcript"
)

// Transcripts are the ground truth; hooks are only the fast signal. The reconciler reads
// what each known transcript appended and turns it into events: progress after the stuck
// moment dequeues, and a tail that says "waiting" after the last event enqueues (a lost
// hook, an Esc interrupt, a turn that ended while the daemon was down).

const (
	// maxTailScan bounds how far back from the end a first look at a transcript reads.
	maxTailScan = 4 << 20
	// maxAppendRead bounds one read of appended bytes; the rest waits for the next round.
	maxAppendRead = 8 << 20
)

// verdict is what newly read transcript lines say about a session.
type verdict struct {
	events []adapter.Event         // to ingest now
	wait   *adapter.TranscriptLine // a "waiting" tail that must stay quiet for the settle time first
}

// decide is the pure rule behind reconcile. lines are the conversation-relevant lines read
// since the last position, in file order; rec is s's latest prompt record, or nil.
func decide(s queue.Session, rec *queue.Prompt, lines []adapter.TranscriptLine) verdict {
	tail, ok := adapter.Tail(lines)
	if !ok {
		return verdict{}
	}
	by := "" // who submitted the last prompt read, when its line says
	unstuck := func(at time.Time) adapter.Event {
		return adapter.Event{Harness: s.Harness, SessionID: s.ID, Kind: adapter.KindUnstuck, At: at, By: by}
	}
	if s.Stuck {
		var progress, prompt time.Time
		for _, l := range lines {
			if l.Progress && l.At.After(s.Since) {
				progress = l.At
			}
			switch {
			case l.Prompt && l.At.After(s.Since):
				prompt, by = l.At, l.By
			case l.Resumed && l.At.After(s.Since):
				// The answer came before the line that says it was answered, which is also
				// the new wait's: just before it, so that the wait is after it.
				prompt, by = l.At.Add(-time.Nanosecond), l.By
			}
		}
		switch {
		case tail.State != adapter.TailWaiting && !progress.IsZero():
			// The session moved on after it got stuck: answered in its pane, or a tool ran.
			return verdict{events: []adapter.Event{unstuck(liverule.Latest(progress, tail.At))}}
		case tail.State == adapter.TailWaiting && !prompt.IsZero():
			// Answered, then waiting again: a new wait, queued from its own moment.
			return verdict{events: []adapter.Event{unstuck(prompt)}, wait: &tail}
		case tail.Interrupt && s.Reason == adapter.ReasonPermission && tail.At.After(s.Since):
			// Esc or a No at the dialog: no hook says so, but the session now waits at its
			// prompt.
			return verdict{events: []adapter.Event{liverule.Refused(s, rec, tail.At)}}
		case s.Reason == adapter.ReasonStopped && s.Detail == "" && tail.State == adapter.TailWaiting &&
			(tail.Interrupt || s.Summary == "" && tail.Text != ""):
			// Queued at its turn's end before the transcript had the last words (a live
			// state file may say idle before the reply, or the interrupt of an Esc, is
			// written down; an Esc's partial reply comes first): the words, for the same wait.
			words := liverule.StuckFromTail(s, rec, tail)
			words.At = liverule.Latest(tail.At, s.LastEventAt)
			return verdict{events: []adapter.Event{words}}
		}
		return verdict{}
	}
	if tail.State == adapter.TailWaiting && tail.At.After(s.LastEventAt) {
		return verdict{wait: &tail}
	}
	return verdict{}
}

// logDialogClosed logs ev when it is a refusal (refused): how the dialog went away, in the
// words the queue shows.
func logDialogClosed(log *slog.Logger, ev adapter.Event) {
	if ev.Kind == adapter.KindStuck && (ev.Detail == liverule.DetailDenied || ev.Detail == liverule.DetailRefused) {
		log.Info("permission dialog closed", "session", ev.SessionID, "how", ev.Detail, "summary", ev.Summary)
	}
}

// Reconciler watches the folders of known transcripts and sweeps them on a timer.
type Reconciler struct {
	Engine   Transcripts
	Sweep    time.Duration // stat-only sweep of every known transcript, and the liveness check
	Settle   time.Duration // how long a "waiting" tail must stay quiet before it is queued
	Watch    bool          // use fsnotify; off, the sweep alone reconciles
	Liveness *Liveness
	// Readers maps a harness to the reader of its transcripts. A harness without an entry
	// has no transcript to reconcile.
	Readers map[string]adapter.TranscriptReader
	Log     *slog.Logger

	dirs    folders                // the transcripts' folders
	pending map[string]pendingWait // sessions whose tail says waiting, not yet quiet for Settle
	ahead   map[string]readAhead   // by transcript path: bytes read past its position
}

// readAhead is what a read of a transcript took in past the position it returned
// (transcript.Appended.Ahead): the start of a last line the harness was still writing, or
// what the last chunk held past maxAppendRead. The next read goes on after it, so that a
// line of hundreds of KB (a harness may record each API request's parameters) is read once,
// however many writes and reads it spans. It is kept in memory only: after a restart those
// bytes are read again.
type readAhead struct {
	offset int64 // the position it follows: the session's
	bytes  []byte
}

type pendingWait struct {
	line  adapter.TranscriptLine
	since time.Time // when we saw it
}

// Run reconciles until ctx ends.
func (r *Reconciler) Run(ctx context.Context) error {
	r.pending = make(map[string]pendingWait)
	r.dirs.open(r.Watch, r.Log, "file watching unavailable; relying on the sweep")
	defer r.dirs.close()
	changed := r.Engine.Subscribe()
	r.round(ctx, true)

	r.dirs.run(ctx, r.Log, loop{
		sweep: r.Sweep,
		onSweep: func() {
			r.round(ctx, true)
			if r.Liveness != nil {
				_ = guard.Run(r.Log, "checking which panes are alive", nil, func() { r.Liveness.Check(ctx) })
			}
			if err := r.Engine.FlushPositions(ctx); err != nil {
				r.Log.Warn("saving transcript positions", "err", err)
			}
		},
		onFile: func(ev fsnotify.Event) {
			if ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create) {
				r.reconcilePath(ctx, ev.Name)
			}
		},
		watchErr: "file watch",
		wake:     changed,
		onWake:   func() { r.round(ctx, false) },
		settle:   r.settleTick(),
		onSettle: func() { r.settlePending(ctx) },
		onStop: func() {
			if err := r.Engine.FlushPositions(context.Background()); err != nil {
				r.Log.Warn("saving transcript positions", "err", err)
			}
		},
	})
	return nil
}

func (r *Reconciler) settleTick() time.Duration {
	if t := r.Settle / 4; t > 10*time.Millisecond {
		return t
	}
	return 10 * time.Millisecond
}

// round keeps the watch list in step with the known sessions and reconciles the sessions
// whose transcripts changed size. With all set it stats every transcript (the sweep);
// otherwise only the ones never read yet (new registrations).
func (r *Reconciler) round(ctx context.Context, all bool) {
	sessions := r.Engine.Snapshot()
	r.syncWatches(sessions)
	if all {
		r.dropReadAhead(sessions)
	}
	for _, s := range sessions {
		if s.TranscriptPath == "" {
			continue
		}
		if all || (s.Offset == 0 && s.TailAt.IsZero()) {
			r.reconcile(ctx, s)
		}
	}
	if all {
		r.settlePending(ctx)
	}
}

func (r *Reconciler) syncWatches(sessions []queue.Session) {
	if r.dirs.watcher == nil {
		return
	}
	want := make(map[string]bool)
	for _, s := range sessions {
		if s.TranscriptPath != "" {
			want[filepath.Dir(s.TranscriptPath)] = true
		}
	}
	for dir := range want {
		if err := r.dirs.follow(dir); err != nil {
			// A missing folder or no watches left: the sweep covers it.
			r.Log.Debug("watch transcript folder", "dir", dir, "err", err)
		}
	}
	r.dirs.only(want)
}

// dropReadAhead forgets what was read ahead in transcripts no session reads any more.
func (r *Reconciler) dropReadAhead(sessions []queue.Session) {
	if len(r.ahead) == 0 {
		return
	}
	read := make(map[string]bool, len(sessions))
	for _, s := range sessions {
		read[s.TranscriptPath] = true
	}
	for path := range r.ahead {
		if !read[path] {
			delete(r.ahead, path)
		}
	}
}

// reconcilePath reconciles the sessions whose transcript is path.
func (r *Reconciler) reconcilePath(ctx context.Context, path string) {
	for _, s := range r.Engine.Snapshot() {
		if s.TranscriptPath == path {
			r.reconcile(ctx, s)
		}
	}
}

// reconcile reads what s's transcript appended since its position and acts on it. It reads
// nothing when the size did not change, and only the tail on a first look. A harness whose
// transcripts Trail Boss cannot read (no reader in Readers) is left alone.
func (r *Reconciler) reconcile(ctx context.Context, s queue.Session) {
	reader := r.Readers[s.Harness]
	if reader == nil {
		return
	}
	_ = guard.Run(r.Log, "reading a transcript", []any{"session", s.ID, "transcript", s.TranscriptPath}, func() {
		r.readTranscript(ctx, s, reader)
	})
}

func (r *Reconciler) readTranscript(ctx context.Context, s queue.Session, reader adapter.TranscriptReader) {
	info, err := transcript.Stat(s.TranscriptPath)
	if err != nil {
		return // not written yet, deleted, or not a regular file: nothing to read
	}
	var ahead []byte
	if a, ok := r.ahead[s.TranscriptPath]; ok && a.offset == s.Offset {
		ahead = a.bytes
	}
	first := s.Offset == 0 && s.TailAt.IsZero()
	sameFile := s.FileID == 0 || info.Ino == s.FileID
	if !first && sameFile && info.Size == s.Offset+int64(len(ahead)) && bytes.IndexByte(ahead, '\n') < 0 {
		return // nothing new: a stat, no read
	}
	lines, pos, ok := r.readLines(s, reader, first, ahead)
	if !ok {
		return
	}
	var tailAt time.Time
	if tail, ok := adapter.Tail(lines); ok {
		tailAt = tail.At
		if tail.State != adapter.TailWaiting {
			delete(r.pending, s.ID) // it moved on before the settle time passed
		}
	}
	r.Engine.SetTranscriptPosition(s.ID, s.TranscriptPath, pos, tailAt)

	if s.Stuck && len(lines) > 0 && liverule.WordsOnly(s, r.Engine.LiveWords(s.Harness)) {
		// A dialog queued before the transcript had its call (the harness may write it
		// down a moment later): its words, now.
		if call := transcriptCall(r.Engine, reader, s); call != nil {
			if err := r.Engine.PairCall(ctx, s.ID, call); err != nil {
				r.Log.Warn("reconcile", "session", s.ID, "err", err)
			}
		}
	}
	v := decide(s, r.Engine.LatestPrompt(s.ID), lines)
	if !r.apply(ctx, s, v) {
		return
	}
	if v.wait != nil {
		if v.wait.Interrupt {
			// An interrupt marker is written by the human's own keypress: no settling.
			r.ingestWait(ctx, s.ID, *v.wait)
			return
		}
		r.pending[s.ID] = pendingWait{line: *v.wait, since: time.Now()}
	}
}

// readLines reads what s's transcript says since its position, the conversation's lines
// alone: on a first read, only its last such line, found from the end. ok is false when
// it could not be read (it is tried again on the next event or sweep).
func (r *Reconciler) readLines(s queue.Session, reader adapter.TranscriptReader, first bool, ahead []byte) (lines []adapter.TranscriptLine, pos transcript.Position, ok bool) {
	if !first {
		from := transcript.Position{Offset: s.Offset, FileID: s.FileID, Mark: s.Mark}
		got, err := transcript.ReadAppended(s.TranscriptPath, from, ahead, maxAppendRead)
		if errors.Is(err, transcript.ErrShrunk) || errors.Is(err, transcript.ErrRewritten) {
			// Truncated, replaced, or rewritten in place: the position counts in content that
			// is gone. What the file says now is read from its start (the lines older than
			// the session's last event change nothing).
			r.Log.Debug("transcript rewritten: reading it from the start", "session", s.ID, "err", err)
			got, err = transcript.ReadAppended(s.TranscriptPath, transcript.Position{}, nil, maxAppendRead)
		}
		if err != nil {
			r.Log.Debug("read transcript", "session", s.ID, "err", err)
			return nil, pos, false
		}
		pos = got.Next
		r.keepReadAhead(s.TranscriptPath, pos.Offset, got.Ahead)
		for _, b := range got.Lines {
			if l := reader.Line(b); l.Conversation {
				lines = append(lines, l)
			}
		}
	} else {
		var last adapter.TranscriptLine
		found := false
		var err error
		pos, err = transcript.ReadTail(s.TranscriptPath, maxTailScan, func(b []byte) bool {
			if l := reader.Line(b); l.Conversation {
				last, found = l, true
			}
			return found
		})
		if err != nil {
			r.Log.Debug("read transcript tail", "session", s.ID, "err", err)
			return nil, pos, false
		}
		r.keepReadAhead(s.TranscriptPath, pos.Offset, nil)
		if found {
			lines = []adapter.TranscriptLine{last}
		}
	}
	return lines, pos, true
}

// apply ingests v's events for s, and reports whether all of them were taken.
func (r *Reconciler) apply(ctx context.Context, s queue.Session, v verdict) bool {
	for _, ev := range v.events {
		if err := r.Engine.Take(ctx, ev); err != nil {
			r.Log.Warn("reconcile", "session", s.ID, "err", err)
			return false
		}
		r.Log.Debug("reconciled from transcript", "session", s.ID, "event", ev.Kind, "detail", ev.Detail, "summary", ev.Summary)
		logDialogClosed(r.Log, ev)
	}
	return true
}

// keepReadAhead keeps b, read from path past offset, for the next read; nil forgets what
// was kept.
func (r *Reconciler) keepReadAhead(path string, offset int64, b []byte) {
	if len(b) == 0 {
		delete(r.ahead, path)
		return
	}
	if r.ahead == nil {
		r.ahead = make(map[string]readAhead)
	}
	r.ahead[path] = readAhead{offset: offset, bytes: b}
}

// settlePending queues the sessions whose waiting tail has stayed quiet for the settle time.
// An assistant's text line is followed within milliseconds by its tool_use line when the
// turn goes on; waiting out that gap keeps working sessions out of the queue.
func (r *Reconciler) settlePending(ctx context.Context) {
	now := time.Now()
	for id, p := range r.pending {
		s, ok := r.Engine.Session(id)
		switch {
		case !ok:
			delete(r.pending, id)
			continue
		case s.Stuck:
			// Queued meanwhile by another source: a live state file said idle, read
			// before the reply was written down, so the stop has no words. The reply read
			// here is that same wait's: its words now (decide), or nothing when it has some.
			delete(r.pending, id)
			r.apply(ctx, s, decide(s, r.Engine.LatestPrompt(id), []adapter.TranscriptLine{p.line}))
			continue
		case now.Sub(p.since) < r.Settle:
			continue
		}
		// Read anything appended meanwhile first: it cancels or replaces the wait.
		r.reconcile(ctx, s)
		if q, still := r.pending[id]; still && q.since.Equal(p.since) {
			delete(r.pending, id)
			r.ingestWait(ctx, id, q.line)
		}
	}
}

func (r *Reconciler) ingestWait(ctx context.Context, id string, tail adapter.TranscriptLine) {
	s, ok := r.Engine.Session(id)
	if !ok || s.Stuck || !tail.At.After(s.LastEventAt) {
		return
	}
	ev := liverule.StuckFromTail(s, r.Engine.LatestPrompt(id), tail)
	if err := r.Engine.Take(ctx, ev); err != nil {
		r.Log.Warn("reconcile", "session", id, "err", err)
		return
	}
	r.Log.Info("queued from transcript", "session", id, "detail", ev.Detail, "summary", ev.Summary)
}
