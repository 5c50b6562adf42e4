package daemon

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
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/transcript"
)

// Hand-made transcript lines, as claude.ClassifyLine would return them.
func prompt(when time.Time) claude.Line {
	return claude.Line{Conversation: true, State: claude.TailWorking, At: when, Prompt: true, Progress: true}
}

func text(when time.Time) claude.Line {
	return claude.Line{Conversation: true, State: claude.TailWaiting, At: when, Progress: true, Text: "done?"}
}

func toolUse(when time.Time) claude.Line {
	return claude.Line{Conversation: true, State: claude.TailToolPending, At: when, Progress: true}
}

func toolResult(when time.Time) claude.Line {
	return claude.Line{Conversation: true, State: claude.TailWorking, At: when, Progress: true}
}

func interruptLine(when time.Time) claude.Line {
	return claude.Line{Conversation: true, State: claude.TailWaiting, At: when, Interrupt: true, Detail: claude.DetailInterrupted}
}

func TestDecide(t *testing.T) {
	stuck := queue.Session{ID: "S", Harness: "claude", Stuck: true, Since: at(10), LastEventAt: at(10)}
	idle := queue.Session{ID: "S", Harness: "claude", LastEventAt: at(10)}
	stuckOnPermission := stuck
	stuckOnPermission.Reason, stuckOnPermission.Summary = adapter.ReasonPermission, "Bash: touch x"
	var zero time.Time
	tests := []struct {
		name      string
		s         queue.Session
		lines     []claude.Line
		unstuckAt time.Time // zero: no unstuck event
		wait      *claude.Line
	}{
		{"stuck, then a prompt: unstuck at the prompt",
			stuck, []claude.Line{prompt(at(12))}, at(12), nil},
		{"stuck, tail still waiting, only assistant text after since (Stop lag): nothing",
			stuck, []claude.Line{text(at(10.2))}, zero, nil},
		{"stuck, tail still waiting, interrupt after since: nothing",
			stuck, []claude.Line{interruptLine(at(11))}, zero, nil},
		{"stuck on a permission, interrupt after since: relabelled refused, no unstuck",
			stuckOnPermission, []claude.Line{toolResult(at(11)), interruptLine(at(11.1))}, zero, nil},
		{"stuck on a permission, interrupt from before since: nothing",
			stuckOnPermission, []claude.Line{interruptLine(at(9))}, zero, nil},
		{"stuck, prompt then waiting again: unstuck at the prompt, and a new wait",
			stuck, []claude.Line{prompt(at(12)), toolUse(at(13)), toolResult(at(14)), text(at(15))}, at(12), ptr(text(at(15)))},
		{"stuck, tool pending after since: unstuck (permission granted)",
			stuck, []claude.Line{toolUse(at(11))}, at(11), nil},
		{"stuck, tool result after since: unstuck at the latest progress",
			stuck, []claude.Line{toolUse(at(11)), toolResult(at(12))}, at(12), nil},
		{"stuck, progress only from before since: nothing",
			stuck, []claude.Line{prompt(at(8)), toolUse(at(9))}, zero, nil},
		{"stuck, progress exactly at since: nothing",
			stuck, []claude.Line{toolUse(at(10))}, zero, nil},
		{"stuck, lines with zero timestamps: nothing",
			stuck, []claude.Line{prompt(zero), toolUse(zero), toolResult(zero)}, zero, nil},
		{"stuck, prompt and waiting tail with zero timestamps: nothing",
			stuck, []claude.Line{prompt(zero), text(zero)}, zero, nil},
		{"not stuck, waiting tail after the last event: wait",
			idle, []claude.Line{prompt(at(11)), text(at(12))}, zero, ptr(text(at(12)))},
		{"not stuck, interrupt after the last event: wait",
			idle, []claude.Line{toolUse(at(11)), interruptLine(at(12))}, zero, ptr(interruptLine(at(12)))},
		{"not stuck, waiting tail older than the last event: nothing",
			idle, []claude.Line{text(at(9))}, zero, nil},
		{"not stuck, waiting tail at the last event: nothing",
			idle, []claude.Line{text(at(10))}, zero, nil},
		{"not stuck, waiting tail with a zero timestamp: nothing",
			idle, []claude.Line{text(zero)}, zero, nil},
		{"not stuck, working tail: nothing",
			idle, []claude.Line{text(at(11)), toolUse(at(12))}, zero, nil},
		{"no conversation lines: nothing",
			stuck, []claude.Line{{At: at(20)}, {At: at(21), Progress: true}}, zero, nil},
		{"no lines: nothing", idle, nil, zero, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := decide(tt.s, nil, tt.lines)
			if tt.s.Reason == adapter.ReasonPermission && len(tt.lines) > 0 && tt.lines[len(tt.lines)-1].At.After(tt.s.Since) {
				want := refused(tt.s, nil, tt.lines[len(tt.lines)-1].At)
				if len(v.events) != 1 || v.events[0] != want || v.wait != nil {
					t.Fatalf("events %+v wait %v, want only %+v", v.events, v.wait, want)
				}
				if want.Reason != adapter.ReasonStopped || want.Detail != DetailRefused ||
					want.Summary != "refused with Esc: Bash: touch x — waiting for your next message" {
					t.Fatalf("refused event %+v", want)
				}
				return
			}
			if tt.unstuckAt.IsZero() {
				if len(v.events) != 0 {
					t.Errorf("events %+v, want none", v.events)
				}
			} else {
				if len(v.events) != 1 {
					t.Fatalf("events %+v, want one unstuck", v.events)
				}
				ev := v.events[0]
				if ev.Kind != adapter.KindUnstuck || ev.SessionID != "S" || ev.Harness != "claude" || !ev.At.Equal(tt.unstuckAt) {
					t.Errorf("event %+v, want unstuck of S at %v", ev, tt.unstuckAt)
				}
				if err := ev.Validate(); err != nil {
					t.Errorf("the event would be refused: %v", err)
				}
			}
			switch {
			case tt.wait == nil && v.wait != nil:
				t.Errorf("wait %+v, want none", *v.wait)
			case tt.wait != nil && v.wait == nil:
				t.Errorf("no wait, want %+v", *tt.wait)
			case tt.wait != nil && *v.wait != *tt.wait:
				t.Errorf("wait %+v, want %+v", *v.wait, *tt.wait)
			}
		})
	}
}

func ptr(l claude.Line) *claude.Line { return &l }

func TestStuckFromTail(t *testing.T) {
	s := queue.Session{ID: "S", Harness: "claude"}
	ev := stuckFromTail(s, nil, text(at(3)))
	if ev.Kind != adapter.KindStuck || ev.Reason != adapter.ReasonStopped || ev.Summary != "done?" || !ev.At.Equal(at(3)) {
		t.Fatalf("from a text tail: %+v", ev)
	}
	ev = stuckFromTail(s, nil, interruptLine(at(4)))
	if ev.Detail != claude.DetailInterrupted || ev.Summary != "interrupted" {
		t.Fatalf("from an interrupt: detail %q summary %q", ev.Detail, ev.Summary)
	}
	if err := ev.Validate(); err != nil {
		t.Fatal(err)
	}
	// Claude Code's interrupt marker right after a deny through Trail Boss (the refused
	// tool's result had moved the session on already): it says who denied it.
	denied := &queue.Prompt{SessionID: "S", Status: queue.PromptAnswered, Answer: "deny", Channel: "telegram",
		ClosedAt: at(3.9), Ask: adapter.Ask{Question: "Bash: touch x"}}
	ev = stuckFromTail(s, denied, interruptLine(at(4)))
	if ev.Detail != DetailDenied || ev.Summary != "denied from Telegram: Bash: touch x — waiting for your next message" {
		t.Fatalf("from an interrupt just after a deny: detail %q summary %q", ev.Detail, ev.Summary)
	}
	// Long after the deny, an interrupt is the person's own Esc.
	if ev = stuckFromTail(s, denied, interruptLine(at(30))); ev.Detail != claude.DetailInterrupted {
		t.Fatalf("from an interrupt 26 s after a deny: detail %q summary %q", ev.Detail, ev.Summary)
	}
	allowed := *denied
	allowed.Answer = "allow"
	if ev = stuckFromTail(s, &allowed, interruptLine(at(4))); ev.Detail != claude.DetailInterrupted {
		t.Fatalf("from an interrupt just after an allow: detail %q summary %q", ev.Detail, ev.Summary)
	}
}

// Transcript lines as Claude Code writes them.

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
func newReconciler(e *Engine, settle time.Duration) *Reconciler {
	return &Reconciler{Engine: e, Sweep: time.Hour, Settle: settle, Log: discard,
		watched: map[string]bool{}, pending: map[string]pendingWait{}}
}

// register makes session id known at time when, on its own pane, with transcript path.
func register(t *testing.T, e *Engine, id, path string, when time.Time, pane string) {
	t.Helper()
	ev := event(id, adapter.KindStart, when, pane)
	ev.TranscriptPath = path
	ingest(t, e, ev)
}

func session(t *testing.T, e *Engine, id string) queue.Session {
	t.Helper()
	s, ok := e.Session(id)
	if !ok {
		t.Fatalf("session %s is not live", id)
	}
	return s
}

// reconcileNow reconciles session id once, from its current state.
func reconcileNow(t *testing.T, r *Reconciler, id string) {
	t.Helper()
	r.reconcile(context.Background(), session(t, r.Engine, id))
}

// settleUntil calls settlePending until done returns true, failing after a deadline.
func settleUntil(t *testing.T, r *Reconciler, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
		r.settlePending(context.Background())
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
	if _, waiting := r.pending["S"]; !waiting {
		t.Fatal("an assistant text tail did not start a wait")
	}
	appendLines(t, path, toolUseJSON(at(2.01)))

	settleUntil(t, r, "the wait to be settled or dropped", func() bool { _, p := r.pending["S"]; return !p })
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
	if !s.Stuck || s.Detail != claude.DetailInterrupted || s.Summary != "interrupted" || !s.Since.Equal(at(3)) {
		t.Fatalf("after an interrupt marker: %+v, want stuck (interrupted) since %v", s, at(3))
	}
	if _, waiting := r.pending["S"]; waiting {
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
	if s.Offset != size(t, path) || !s.Stuck || s.Detail != claude.DetailInterrupted {
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
		r.round(context.Background(), true)
	})
	if n := len(e.Items()); n != 0 {
		t.Fatalf("queue holds %d items from non-regular transcripts", n)
	}
}

// TestRunReconciles drives the real loop, with and without file watching, over a good
// transcript and hostile ones: the good session is queued after it stays quiet, dequeued by a
// prompt, queued at once by an interrupt, and its read position reaches the disk.
func TestRunReconciles(t *testing.T) {
	for _, watch := range []bool{false, true} {
		name := "sweep only"
		if watch {
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
			r := &Reconciler{Engine: e, Sweep: 20 * time.Millisecond, Settle: 50 * time.Millisecond, Watch: watch, Log: discard}
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
			waitFor("the interrupt to queue it", func(s queue.Session) bool { return s.Stuck && s.Detail == claude.DetailInterrupted })

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

// A dialog that went away with no hook saying how reads as what happened: denied from the
// channel whose "deny" answered its record of that moment, else Esc at the keyboard.
func TestRefusedSaysWhoDenied(t *testing.T) {
	s := queue.Session{ID: "S", Harness: "claude", Stuck: true, Reason: adapter.ReasonPermission,
		Summary: "Bash: touch x", Since: at(10), LastEventAt: at(10)}
	rec := func(status, answer, channel string, since time.Time) *queue.Prompt {
		return &queue.Prompt{ID: "p1", SessionID: "S", Status: status, Answer: answer, Channel: channel, Since: since}
	}
	const esc = "refused with Esc: Bash: touch x — waiting for your next message"
	for _, tt := range []struct {
		name    string
		rec     *queue.Prompt
		detail  string
		summary string
	}{
		{"no record: Esc", nil, DetailRefused, esc},
		{"still pending: Esc", rec(queue.PromptPending, "", "", at(10)), DetailRefused, esc},
		{"denied from the popup", rec(queue.PromptAnswered, "deny", "popup", at(10)), DetailDenied,
			"denied from the popup: Bash: touch x — waiting for your next message"},
		{"denied from Telegram", rec(queue.PromptAnswered, "deny", "telegram", at(10)), DetailDenied,
			"denied from Telegram: Bash: touch x — waiting for your next message"},
		{"denied by trailboss reply", rec(queue.PromptAnswered, "deny", "cli", at(10)), DetailDenied,
			"denied from trailboss reply: Bash: touch x — waiting for your next message"},
		{"allowed, then Esc", rec(queue.PromptAnswered, "allow", "popup", at(10)), DetailRefused, esc},
		{"a deny of an earlier moment", rec(queue.PromptAnswered, "deny", "popup", at(5)), DetailRefused, esc},
		{"withdrawn", rec(queue.PromptWithdrawn, "", "", at(10)), DetailRefused, esc},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev := refused(s, tt.rec, at(12))
			if ev.Detail != tt.detail || ev.Summary != tt.summary || ev.Kind != adapter.KindStuck || ev.Reason != adapter.ReasonStopped {
				t.Fatalf("event %+v\nwant detail %q, summary %q", ev, tt.detail, tt.summary)
			}
			if err := ev.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDecideGivesLateWords: a session its state file queued at its turn's end before the
// transcript had the reply takes the reply's words when they are written, in its place; one
// with words keeps them.
func TestDecideGivesLateWords(t *testing.T) {
	bare := queue.Session{ID: "S", Harness: "claude", Stuck: true, Reason: adapter.ReasonStopped, Since: at(10), LastEventAt: at(10)}
	v := decide(bare, nil, []claude.Line{text(at(9.9))})
	if len(v.events) != 1 || v.events[0].Kind != adapter.KindStuck || v.events[0].Summary == "" || !v.events[0].At.Equal(at(10)) {
		t.Fatalf("a bare stop: %+v", v)
	}
	said := bare
	said.Summary = "hi there"
	if v := decide(said, nil, []claude.Line{text(at(9.9))}); len(v.events) != 0 {
		t.Fatalf("a stop with words: %+v", v)
	}
	// Esc mid-turn: the state file says idle before the interrupt is written down, and the
	// partial reply may come first.
	for _, s := range []queue.Session{bare, said} {
		v = decide(s, nil, []claude.Line{interruptLine(at(10.1))})
		if len(v.events) != 1 || v.events[0].Detail != claude.DetailInterrupted || v.events[0].Summary != "interrupted" {
			t.Fatalf("a stop (%q), then its interrupt: %+v", s.Summary, v)
		}
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
	if _, waiting := r.pending["S"]; !waiting {
		t.Fatal("the reply did not start a wait")
	}
	stop := event("S", adapter.KindStuck, at(3), "")
	stop.Summary = "" // the state file's idle, read before the reply was written down
	ingest(t, e, stop)

	r.settlePending(context.Background())
	s := session(t, e, "S")
	if !s.Stuck || s.Summary != "hi from the fake model" || !s.Since.Equal(at(3)) {
		t.Fatalf("after the settle round: %+v, want the stop of at(3) with the reply's words", s)
	}
	if _, waiting := r.pending["S"]; waiting {
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
	r.settlePending(context.Background())
	if s := session(t, e, "T"); s.Summary != "done?" {
		t.Fatalf("a stop with words: %+v", s)
	}
}
