package watch_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/watch"
)

// writeState writes a state file as Claude Code does, whole, for pid.
func writeState(t *testing.T, dir string, pid int, session, status string, when time.Time) {
	t.Helper()
	body := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/w","version":"2.1.197","kind":"interactive","status":%q,"updatedAt":%d,"statusUpdatedAt":%d}`,
		pid, session, status, when.UnixMilli(), when.UnixMilli())
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", pid)), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLiveStatesRun drives the real loop over a configuration folder found from a
// session's transcript path (not the daemon's own), with and without file watching: an
// approval takes the item out, an Esc relabels it, and a reused pid file that now names
// another session does not touch the first.
func TestLiveStatesRun(t *testing.T) {
	for _, useWatch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", useWatch), func(t *testing.T) {
			e, _ := newEngine(t)
			cfg := t.TempDir()
			states := filepath.Join(cfg, "sessions")
			if err := os.MkdirAll(states, 0o700); err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			for i, id := range []string{"A", "B"} {
				ev := event(id, adapter.KindStuck, now.Add(-time.Second), "%"+fmt.Sprint(i+1))
				ev.Reason, ev.Summary = adapter.ReasonPermission, "Bash: sleep 8"
				ev.TranscriptPath = filepath.Join(cfg, "projects", "-w", id+".jsonl")
				ingest(t, e, ev)
			}
			l := &watch.LiveStates{Engine: e, Harness: adapter.HarnessClaude, Source: claudeLive, Transcripts: claudeTranscripts, Sweep: 50 * time.Millisecond, Watch: useWatch, Log: discard}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- l.Run(ctx) }()
			defer func() { cancel(); <-done }()
			waitSession := func(id, what string, cond func(queue.Session) bool) {
				t.Helper()
				deadline := time.Now().Add(3 * time.Second)
				for {
					s, _ := e.Session(id)
					if cond(s) {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("timed out waiting for %s: %+v", what, s)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			// pid 100 runs A: approved.
			writeState(t, states, 100, "A", adapter.LiveBusy, now)
			waitSession("A", "the approval to take A out", func(s queue.Session) bool { return !s.Stuck })
			// pid 100 is reused by B's process, which the human dismisses with Esc.
			writeState(t, states, 100, "B", adapter.LiveIdle, now.Add(time.Millisecond))
			waitSession("B", "the Esc to relabel B", func(s queue.Session) bool {
				return s.Stuck && s.Detail == liverule.DetailRefused && s.Reason == adapter.ReasonStopped
			})
			if a, _ := e.Session("A"); a.Stuck {
				t.Fatalf("A was touched by B's state: %+v", a)
			}
			// B's process exits: it removes its file, and B ends.
			if err := os.Remove(filepath.Join(states, "100.json")); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(3 * time.Second)
			for {
				if _, live := e.Session("B"); !live {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("B did not end when its state file was removed")
				}
				time.Sleep(5 * time.Millisecond)
			}
			if _, live := e.Session("A"); !live {
				t.Fatal("A ended with B's process")
			}
		})
	}
}

// TestTornStateFileIsReadAgain: a state file read half-written (Claude Code rewrites it in
// place) is read again a moment later, so that what its completed write says is taken
// without waiting for another change or the sweep: here there is no file watching and the
// sweep is an hour away, and the approval it says still takes the item out.
func TestTornStateFileIsReadAgain(t *testing.T) {
	defer watch.SetTornRetry(50*time.Millisecond, 1000)()
	e, _ := newEngine(t)
	cfg := t.TempDir()
	states := filepath.Join(cfg, "sessions")
	if err := os.MkdirAll(states, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ev := event("A", adapter.KindStuck, now.Add(-time.Second), "%1")
	ev.Reason, ev.Summary = adapter.ReasonPermission, "Bash: sleep 8"
	ev.TranscriptPath = filepath.Join(cfg, "projects", "-w", "A.jsonl")
	ingest(t, e, ev)
	// The first half of the write that says busy.
	path := filepath.Join(states, "100.json")
	writeState(t, states, 100, "A", adapter.LiveBusy, now)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, whole[:len(whole)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l := &watch.LiveStates{Engine: e, Harness: adapter.HarnessClaude, Source: claudeLive,
		Transcripts: claudeTranscripts, Sweep: time.Hour, Watch: false, Log: log}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), `msg="live state file"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the half-written file was not read; log:\n%s", logs)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if s, _ := e.Session("A"); !s.Stuck {
		t.Fatalf("a half-written file took A out: %+v", s)
	}
	// The rest of the write lands: no event says so, the sweep is an hour away.
	if err := os.WriteFile(path, whole, 0o600); err != nil {
		t.Fatal(err)
	}
	for {
		if s, _ := e.Session("A"); !s.Stuck {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the completed state file was not read again; log:\n%s", logs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAnsweredDialogWhoseTurnEndedTakesAPlaceOfItsOwn: a dialog answered and a turn over
// so fast that the busy between was never read (seen under stress -c 2: a plan approved,
// the fake model's reply at once) is a new stop, in a place of its own; not an Esc.
func TestAnsweredDialogWhoseTurnEndedTakesAPlaceOfItsOwn(t *testing.T) {
	e, _ := newEngine(t)
	cfg := t.TempDir()
	states, projects := filepath.Join(cfg, "sessions"), filepath.Join(cfg, "projects", "-w")
	for _, dir := range []string{states, projects} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	asked := time.Now().Add(-2 * time.Second).Truncate(time.Millisecond)
	ev := event("A", adapter.KindStuck, asked, "%1")
	ev.Reason, ev.Detail, ev.Summary = adapter.ReasonPermission, "plan", "plan: 1. Read the code"
	ev.TranscriptPath = filepath.Join(projects, "A.jsonl")
	ingest(t, e, ev)
	ended := asked.Add(time.Second)
	line := fmt.Sprintf(`{"type":"assistant","timestamp":%q,"message":{"content":[{"type":"text","text":"done: the plan is in"}],"stop_reason":"end_turn"}}`+"\n",
		ended.UTC().Format(time.RFC3339Nano))
	if err := os.WriteFile(ev.TranscriptPath, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	idleAt := ended.Add(10 * time.Millisecond)
	writeState(t, states, 100, "A", adapter.LiveIdle, idleAt)

	l := &watch.LiveStates{Engine: e, Harness: adapter.HarnessClaude, Source: claudeLive, Transcripts: claudeTranscripts, Sweep: 50 * time.Millisecond, Log: discard}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(3 * time.Second)
	for {
		s, _ := e.Session("A")
		if s.Stuck && s.Reason == adapter.ReasonStopped {
			if s.Detail == liverule.DetailRefused || s.Summary != "done: the plan is in" || !s.Since.Equal(idleAt) {
				t.Fatalf("the answered dialog's turn end: %+v, want a stop with its words since %v", s, idleAt)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the turn's end was not queued: %+v", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
