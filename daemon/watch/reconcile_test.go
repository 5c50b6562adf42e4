package watch_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/transcript"
	"github.com/trailboss/trailboss/daemon/watch"
)

func jsonl(v map[string]any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func stamp(when time.Time) string { return when.UTC().Format(time.RFC3339Nano) }

func userPromptJSON(when time.Time, s string) string {
	return jsonl(map[string]any{"type": "user", "timestamp": stamp(when),
		"message": map[string]any{"role": "user", "content": s}})
}

func assistantTextJSON(when time.Time, s string) string {
	return jsonl(map[string]any{"type": "assistant", "timestamp": stamp(when),
		"message": map[string]any{"role": "assistant", "stop_reason": nil,
			"content": []any{map[string]any{"type": "text", "text": s}}}})
}

func toolUseJSON(when time.Time) string {
	return jsonl(map[string]any{"type": "assistant", "timestamp": stamp(when),
		"message": map[string]any{"role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash",
				"input": map[string]any{"command": "make test"}}}}})
}

func toolResultJSON(when time.Time) string {
	return jsonl(map[string]any{"type": "user", "timestamp": stamp(when),
		"message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}}}})
}

func interruptJSON(when time.Time) string {
	return jsonl(map[string]any{"type": "user", "timestamp": stamp(when),
		"message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}}}})
}

func appendLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

func size(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// newReconciler returns a Reconciler ready for direct calls of its methods (Run is not
// started; its maps are made here as Run would).
func newReconciler(e *daemon.Engine, settle time.Duration) *watch.Reconciler {
	return (&watch.Reconciler{Engine: e, Readers: readers, Sweep: time.Hour, Settle: settle, Log: discard}).Ready(nil)
}

// register makes session id known at time when, on its own pane, with transcript path.
func register(t *testing.T, e *daemon.Engine, id, path string, when time.Time, pane string) {
	t.Helper()
	ev := event(id, adapter.KindStart, when, pane)
	ev.TranscriptPath = path
	ingest(t, e, ev)
}

func session(t *testing.T, e watch.Dialogs, id string) queue.Session {
	t.Helper()
	s, ok := e.Session(id)
	if !ok {
		t.Fatalf("session %s is not live", id)
	}
	return s
}

// reconcileNow reconciles session id once, from its current state.
func reconcileNow(t *testing.T, r *watch.Reconciler, id string) {
	t.Helper()
	r.ReconcileNow(context.Background(), session(t, r.Engine, id))
}

// settleUntil calls settlePending until done returns true, failing after a deadline.
func settleUntil(t *testing.T, r *watch.Reconciler, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
		r.SettleNow(context.Background())
	}
}

func TestReconcileTextFollowedByToolUseWithinSettleIsNotQueued(t *testing.T) {
	e, _ := newEngine(t)
	r := newReconciler(e, 50*time.Millisecond)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userPromptJSON(at(1), "run the tests"))
	register(t, e, "S", path, at(0), "%1")

	reconcileNow(t, r, "S") // first look: the tail is a prompt
	if s := session(t, e, "S"); s.Offset != size(t, path) {
		t.Fatalf("first look left the position at %d, want the file size %d", s.Offset, size(t, path))
	}
	appendLines(t, path, assistantTextJSON(at(2), "Let me run them."))
	reconcileNow(t, r, "S")
	if waiting := r.Pending("S"); !waiting {
		t.Fatal("an assistant text tail did not start a wait")
	}
	appendLines(t, path, toolUseJSON(at(2.01)))

	settleUntil(t, r, "the wait to be settled or dropped", func() bool { return !r.Pending("S") })
	if s := session(t, e, "S"); s.Stuck {
		t.Fatalf("a session whose text was followed by a tool_use was queued: %+v", s)
	}
	if s := session(t, e, "S"); s.Offset != size(t, path) {
		t.Fatalf("the tool_use line was not read: position %d, size %d", s.Offset, size(t, path))
	}
}

func TestReconcileQuietTextIsQueuedAfterSettle(t *testing.T) {
	const settle = 50 * time.Millisecond
	e, _ := newEngine(t)
	r := newReconciler(e, settle)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userPromptJSON(at(1), "fix it"))
	register(t, e, "S", path, at(0), "%1")
	reconcileNow(t, r, "S")

	appendLines(t, path, toolUseJSON(at(2)), toolResultJSON(at(3)),
		assistantTextJSON(at(4), "Fixed.\nShould I also update the docs?"))
	start := time.Now()
	reconcileNow(t, r, "S")
	if session(t, e, "S").Stuck {
		t.Fatal("queued before the settle time passed")
	}
	settleUntil(t, r, "the quiet session to be queued", func() bool { return session(t, e, "S").Stuck })
	if waited := time.Since(start); waited < settle {
		t.Fatalf("queued after %v, before the settle time %v", waited, settle)
	}
	s := session(t, e, "S")
	if s.Reason != adapter.ReasonStopped || s.Summary != "Fixed. Should I also update the docs?" || !s.Since.Equal(at(4)) {
		t.Fatalf("queued as %+v, want stopped since %v with the assistant's text", s, at(4))
	}
	if ids := itemIDs(e.Items()); !sameIDs(ids, []string{"S"}) {
		t.Fatalf("queue %v, want [S]", ids)
	}
}

func TestReconcileInterruptQueuesWithoutSettling(t *testing.T) {
	e, _ := newEngine(t)
	r := newReconciler(e, time.Hour) // no settle could pass during this test
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userPromptJSON(at(1), "refactor"), toolUseJSON(at(2)))
	register(t, e, "S", path, at(0), "%1")
	reconcileNow(t, r, "S")

	appendLines(t, path, interruptJSON(at(3)))
	reconcileNow(t, r, "S")
	s := session(t, e, "S")
	if !s.Stuck || s.Detail != adapter.DetailInterrupted || s.Summary != "interrupted" || !s.Since.Equal(at(3)) {
		t.Fatalf("after an interrupt marker: %+v, want stuck (interrupted) since %v", s, at(3))
	}
	if waiting := r.Pending("S"); waiting {
		t.Fatal("an interrupt was left pending as well as queued")
	}
}

func TestReconcileDequeuesOnProgressAfterTheStuckMoment(t *testing.T) {
	tests := []struct {
		name    string
		appends []string
		stuck   bool
	}{
		{"a prompt typed in the pane", []string{userPromptJSON(at(3), "yes, go on")}, false},
		{"a tool ran (permission granted)", []string{toolUseJSON(at(3)), toolResultJSON(at(4))}, false},
		{"the Stop's own text written late", []string{assistantTextJSON(at(2.3), "Done.")}, true},
		{"a prompt stamped before the Stop", []string{userPromptJSON(at(1.5), "old")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newEngine(t)
			r := newReconciler(e, time.Hour)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			appendLines(t, path, userPromptJSON(at(0.5), "start"), assistantTextJSON(at(1), "Working on it."))
			register(t, e, "S", path, at(0), "%1")
			stop := event("S", adapter.KindStuck, at(2), "%1")
			stop.TranscriptPath = path
			ingest(t, e, stop)
			reconcileNow(t, r, "S")
			if !session(t, e, "S").Stuck {
				t.Fatal("the first look at the transcript dequeued a session with no progress")
			}

			appendLines(t, path, tt.appends...)
			reconcileNow(t, r, "S")
			if got := session(t, e, "S").Stuck; got != tt.stuck {
				t.Fatalf("stuck = %v after %s, want %v", got, tt.name, tt.stuck)
			}
			if want := 0; !tt.stuck && len(e.Items()) != want {
				t.Fatalf("queue %v, want empty", itemIDs(e.Items()))
			}
		})
	}
}

func TestReconcileTruncatedTranscript(t *testing.T) {
	e, _ := newEngine(t)
	r := newReconciler(e, 30*time.Millisecond)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userPromptJSON(at(1), "a long first prompt that makes the old file longer than the new one"),
		toolUseJSON(at(2)), toolResultJSON(at(3)))
	register(t, e, "S", path, at(0), "%1")
	reconcileNow(t, r, "S")
	old := size(t, path)
	if s := session(t, e, "S"); s.Offset != old {
		t.Fatalf("position %d, want %d", s.Offset, old)
	}

	// Truncated to nothing: the position goes back to the start.
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	reconcileNow(t, r, "S")
	if s := session(t, e, "S"); s.Offset != 0 {
		t.Fatalf("after truncation to 0: position %d, want 0", s.Offset)
	}

	// Rewritten: what it now says is read from the start.
	appendLines(t, path, assistantTextJSON(at(5), "New file."))
	reconcileNow(t, r, "S")
	if s := session(t, e, "S"); s.Offset != size(t, path) {
		t.Fatalf("after rewriting: position %d, want %d", s.Offset, size(t, path))
	}
	settleUntil(t, r, "the rewritten waiting tail to be queued", func() bool { return session(t, e, "S").Stuck })
	if s := session(t, e, "S"); !s.Since.Equal(at(5)) {
		t.Fatalf("queued since %v, want %v", s.Since, at(5))
	}

	// Truncated and rewritten shorter between two looks: read again from its tail.
	ingest(t, e, event("S", adapter.KindUnstuck, at(6), "%1"))
	before := session(t, e, "S").Offset
	if err := os.WriteFile(path, []byte(interruptJSON(at(7))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if size(t, path) >= before {
		t.Fatalf("test setup: the rewritten file (%d bytes) must be shorter than the position %d", size(t, path), before)
	}
	reconcileNow(t, r, "S")
	s := session(t, e, "S")
	if s.Offset != size(t, path) || !s.Stuck || s.Detail != adapter.DetailInterrupted {
		t.Fatalf("after a shorter rewrite: position %d (size %d), %+v; want the interrupt read and queued", s.Offset, size(t, path), s)
	}
}

// A transcript trimmed and rewritten (Claude Code 2.1.300 and later), in place or through
// another file, is read again from its start: read from the old offset, which now falls in
// the middle of the prompt that answered the session, that prompt would be taken for the
// end of an over-long line and skipped, and the session would stay queued.
func TestReconcileRewrittenTranscript(t *testing.T) {
	for _, how := range []string{"in place", "replaced"} {
		t.Run(how, func(t *testing.T) {
			e, _ := newEngine(t)
			r := newReconciler(e, time.Hour)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			appendLines(t, path, userPromptJSON(at(0.5), "start "+strings.Repeat("x", 300)), assistantTextJSON(at(1), "Working on it."))
			register(t, e, "S", path, at(0), "%1")
			stop := event("S", adapter.KindStuck, at(2), "%1")
			stop.TranscriptPath = path
			ingest(t, e, stop)
			reconcileNow(t, r, "S")
			old := session(t, e, "S")
			if !old.Stuck || old.Offset != size(t, path) || old.FileID == 0 || old.Mark == 0 {
				t.Fatalf("before the rewrite: %+v", old)
			}

			trimmed := userPromptJSON(at(0.5), "start") + "\n" + assistantTextJSON(at(1), "Working on it.") + "\n"
			content := trimmed + userPromptJSON(at(3), "yes, go on "+strings.Repeat("y", 400)) + "\n"
			if n := int64(len(trimmed)); n >= old.Offset || int64(len(content)) <= old.Offset {
				t.Fatalf("test setup: the old offset %d must fall inside the last line (%d to %d)", old.Offset, n, len(content))
			}
			switch how {
			case "in place":
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString(content); err != nil {
					t.Fatal(err)
				}
				f.Close()
			case "replaced":
				if err := os.WriteFile(path+".new", []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(path+".new", path); err != nil {
					t.Fatal(err)
				}
			}
			reconcileNow(t, r, "S")
			if s := session(t, e, "S"); s.Stuck || s.Offset != int64(len(content)) {
				t.Fatalf("after the rewrite: stuck %v, position %d; want answered (the prompt at 3 s), %d", s.Stuck, s.Offset, len(content))
			}
		})
	}
}

// A line of hundreds of KB (2.1.332 records each API request's parameters) written in
// pieces, with a read after each piece as fsnotify would wake one, is read once.
func TestReconcileReadsALongLineOnce(t *testing.T) {
	e, _ := newEngine(t)
	r := newReconciler(e, time.Hour)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userPromptJSON(at(1), "run the tests"))
	register(t, e, "S", path, at(0), "%1")
	reconcileNow(t, r, "S")

	line := `{"type":"api-request","timestamp":"` + stamp(at(2)) + `","params":"` + strings.Repeat("p", 400<<10) + `"}`
	const pieces = 8
	before := transcript.BytesRead()
	for i := range pieces {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line[i*len(line)/pieces : (i+1)*len(line)/pieces]); err != nil {
			t.Fatal(err)
		}
		f.Close()
		reconcileNow(t, r, "S")
	}
	appendLines(t, path, "", assistantTextJSON(at(3), "All green."))
	reconcileNow(t, r, "S")
	if s := session(t, e, "S"); s.Offset != size(t, path) || !s.TailAt.Equal(at(3)) {
		t.Fatalf("position %d tail %v; want %d %v", s.Offset, s.TailAt, size(t, path), at(3))
	}
	written := int64(len(line)) + 1 + int64(len(assistantTextJSON(at(3), "All green."))) + 1
	if read := transcript.BytesRead() - before; read > written+(pieces+1)*4<<10 {
		t.Errorf("a %d KB line written in %d pieces: %d bytes read for %d written; it was read more than once",
			len(line)>>10, pieces, read, written)
	}
}

// callWithin runs f and fails the test if it has not returned within d.
func callWithin(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// hostilePaths returns transcript paths that are not regular files.
func hostilePaths(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "dir.jsonl")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"directory":           sub,
		"fifo":                fifo,
		"dev-zero":            "/dev/zero",
		"symlink-to-dev-zero": link,
		"missing":             filepath.Join(dir, "missing.jsonl"),
	}
}

func TestReconcileNonRegularTranscriptsNeitherHangNorCrash(t *testing.T) {
	e, _ := newEngine(t)
	r := newReconciler(e, 10*time.Millisecond)
	i := 0
	for name, path := range hostilePaths(t) {
		i++
		register(t, e, name, path, at(0), "%"+string(rune('0'+i)))
		callWithin(t, 2*time.Second, "reconcile of a "+name+" transcript", func() { reconcileNow(t, r, name) })
		if s := session(t, e, name); s.Offset != 0 || s.Stuck {
			t.Errorf("%s: position %d stuck %v, want 0 false", name, s.Offset, s.Stuck)
		}
	}
	callWithin(t, 2*time.Second, "a sweep over non-regular transcripts", func() {
		r.RoundNow(context.Background(), true)
	})
	if n := len(e.Items()); n != 0 {
		t.Fatalf("queue holds %d items from non-regular transcripts", n)
	}
}

// TestRunReconciles drives the real loop, with and without file watching, over a good
// transcript and hostile ones: the good session is queued after it stays quiet, dequeued by a
// prompt, queued at once by an interrupt, and its read position reaches the disk.
func TestRunReconciles(t *testing.T) {
	for _, useWatch := range []bool{false, true} {
		name := "sweep only"
		if useWatch {
			name = "with fsnotify"
		}
		t.Run(name, func(t *testing.T) {
			e, dbPath := newEngine(t)
			path := filepath.Join(t.TempDir(), "good.jsonl")
			appendLines(t, path, userPromptJSON(at(1), "go"))
			register(t, e, "good", path, at(0), "%1")
			i := 1
			for name, p := range hostilePaths(t) {
				i++
				register(t, e, name, p, at(0), "%"+string(rune('0'+i)))
			}
			r := &watch.Reconciler{Engine: e, Readers: readers, Sweep: 20 * time.Millisecond, Settle: 50 * time.Millisecond, Watch: useWatch, Log: discard}
			ctx, cancel := context.WithCancel(context.Background())
			stopped := make(chan error, 1)
			go func() { stopped <- r.Run(ctx) }()
			stop := func() {
				cancel()
				select {
				case err := <-stopped:
					if err != nil {
						t.Errorf("Run returned %v", err)
					}
				case <-time.After(3 * time.Second):
					t.Fatal("Run did not stop after its context was cancelled")
				}
			}
			defer func() {
				if ctx.Err() == nil {
					stop()
				}
			}()

			waitFor := func(what string, cond func(queue.Session) bool) {
				t.Helper()
				deadline := time.Now().Add(3 * time.Second)
				for {
					s, _ := e.Session("good")
					if cond(s) {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("timed out waiting for %s; session %+v", what, s)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			waitFor("the first look", func(s queue.Session) bool { return s.Offset == size(t, path) })
			appendLines(t, path, assistantTextJSON(at(2), "All done."))
			waitFor("the quiet text to be queued", func(s queue.Session) bool { return s.Stuck })

			appendLines(t, path, userPromptJSON(at(3), "thanks, now the docs"), toolUseJSON(at(4)))
			waitFor("the prompt to dequeue it", func(s queue.Session) bool { return !s.Stuck })

			appendLines(t, path, interruptJSON(at(5)))
			waitFor("the interrupt to queue it", func(s queue.Session) bool { return s.Stuck && s.Detail == adapter.DetailInterrupted })

			// A metadata line moves only the position: no event writes it, the loop must.
			appendLines(t, path, `{"type":"summary","summary":"Docs","leafUuid":"x"}`)
			waitFor("the metadata line to be read", func(s queue.Session) bool { return s.Offset == size(t, path) })
			stop()
			got, _ := onDisk(t, dbPath, "good")
			if got.Offset != size(t, path) {
				t.Fatalf("position on disk after Run stopped: %d, want %d", got.Offset, size(t, path))
			}
			if n := len(e.Items()); n != 1 {
				t.Fatalf("queue holds %d items, want only the good session", n)
			}
		})
	}
}

// TestReconcileWordsReadBeforeTheStopReachTheStop: with no hooks, the reconciler can read
// the reply while the session still works (a wait to settle), and Claude Code's state file
// queue the turn's end a moment later with no words (read before the reply was written
// down). The reply read is that stop's words; the wait must not be dropped with them.
func TestReconcileWordsReadBeforeTheStopReachTheStop(t *testing.T) {
	e, _ := newEngine(t)
	r := newReconciler(e, time.Hour) // the wait could never settle on its own here
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userPromptJSON(at(1), "say hi"))
	register(t, e, "S", path, at(0), "%1")
	reconcileNow(t, r, "S")
	appendLines(t, path, assistantTextJSON(at(2), "hi from the fake model"))
	reconcileNow(t, r, "S")
	if waiting := r.Pending("S"); !waiting {
		t.Fatal("the reply did not start a wait")
	}
	stop := event("S", adapter.KindStuck, at(3), "")
	stop.Summary = "" // the state file's idle, read before the reply was written down
	ingest(t, e, stop)

	r.SettleNow(context.Background())
	s := session(t, e, "S")
	if !s.Stuck || s.Summary != "hi from the fake model" || !s.Since.Equal(at(3)) {
		t.Fatalf("after the settle round: %+v, want the stop of at(3) with the reply's words", s)
	}
	if waiting := r.Pending("S"); waiting {
		t.Fatal("the wait is still pending after its words were given")
	}

	// A stop that came with its words keeps them.
	said := event("T", adapter.KindStart, at(0), "%2")
	said.TranscriptPath = filepath.Join(t.TempDir(), "t.jsonl")
	appendLines(t, said.TranscriptPath, userPromptJSON(at(1), "say hi"))
	ingest(t, e, said)
	reconcileNow(t, r, "T")
	appendLines(t, said.TranscriptPath, assistantTextJSON(at(2), "an older reply"))
	reconcileNow(t, r, "T")
	ingest(t, e, event("T", adapter.KindStuck, at(3), ""))
	r.SettleNow(context.Background())
	if s := session(t, e, "T"); s.Summary != "done?" {
		t.Fatalf("a stop with words: %+v", s)
	}
}
