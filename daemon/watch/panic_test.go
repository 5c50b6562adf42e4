package watch_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/watch"
)

// TestReconcilePanicCostsOneSession: a transcript reader that panics is logged with the
// session it was reading, and the loop goes on to queue a good session after it. A session
// of a harness with no transcript reader (Codex) whose transcript grows is left alone: its
// file event once took the daemon down.
func TestReconcilePanicCostsOneSession(t *testing.T) {
	log, buf := bufferLog()
	e, _ := newEngine(t)
	dir := t.TempDir()
	paths := map[string]string{}
	for i, h := range []string{"boom", "codex", "claude"} {
		paths[h] = filepath.Join(dir, h+".jsonl")
		appendLines(t, paths[h], userPromptJSON(at(1), "go"))
		ev := event(h+"-session", adapter.KindStart, at(0), "%"+string(rune('1'+i)))
		ev.Harness, ev.TranscriptPath = h, paths[h]
		ingest(t, e, ev)
	}
	r := &watch.Reconciler{Engine: e, Readers: map[string]adapter.TranscriptReader{"boom": panicking{claudeTranscripts}, adapter.HarnessClaude: claudeTranscripts}, Sweep: 20 * time.Millisecond, Settle: 30 * time.Millisecond, Watch: true, Log: log}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- r.Run(ctx) }()
	defer func() { cancel(); <-stopped }()

	for _, h := range []string{"boom", "codex", "claude"} {
		appendLines(t, paths[h], assistantTextJSON(at(2), "All done."))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, _ := e.Session("claude-session")
		if s.Stuck && strings.Contains(buf.String(), "a reader bug") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the good session was not queued after the panic (stuck=%v); log:\n%s", s.Stuck, buf.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	logged := buf.String()
	if !strings.Contains(logged, "session=boom-session") || !strings.Contains(logged, "goroutine") {
		t.Fatalf("the panic was not logged with its session and stack:\n%s", logged)
	}
	if strings.Contains(logged, "codex-session") {
		t.Fatalf("the Codex session's transcript was read (or panicked):\n%s", logged)
	}
	select {
	case err := <-stopped:
		t.Fatalf("the reconcile loop stopped: %v", err)
	default:
	}
}

// panicking is a transcript reader with a bug: it panics on every line.
type panicking struct{ adapter.TranscriptReader }

func (panicking) Line([]byte) adapter.TranscriptLine { panic("a reader bug") }
