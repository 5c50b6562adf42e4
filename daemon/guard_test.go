package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/httpapi"
)

// syncBuffer is a log sink that the daemon's goroutines and the test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func bufferLog() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, nil)), buf
}

// TestRequestThatPanicsIsAnswered500AndTheDaemonGoesOn: a bug met while handling one hook
// answers that request 500, is logged with its stack, and every other request is served
// as before (the engine's lock was not left held).
func TestRequestThatPanicsIsAnswered500AndTheDaemonGoesOn(t *testing.T) {
	hookParsers["boom"] = func([]byte, adapter.Meta) ([]adapter.Event, error) {
		panic("a parser bug")
	}
	t.Cleanup(func() { delete(hookParsers, "boom") })
	log, buf := bufferLog()
	f := newAPI(t)
	a := &httpapi.Server{Token: testToken, Log: log, Core: &Core{Engine: f.engine, Log: log,
		Ingest: &Ingestor{Engine: f.engine, Log: log, Now: time.Now, SocketExists: func(path string) bool { return path == testSocket }}}}
	f.h = a.Handler()

	rec := f.do(http.MethodPost, "/v1/hooks/boom", strings.NewReader(`{}`))
	mustStatus(t, rec, http.StatusInternalServerError)
	if !strings.Contains(buf.String(), "a parser bug") || !strings.Contains(buf.String(), "goroutine") {
		t.Fatalf("the panic was not logged with its stack: %s", buf.String())
	}
	mustStatus(t, f.hook(hookBody("s1", "Stop"), "%1"), http.StatusOK)
	if items := f.engine.Items(); len(items) != 1 || items[0].ID != "s1" {
		t.Fatalf("after the panic, a good hook was not queued: %+v", items)
	}
}

// TestReconcilePanicCostsOneSession: a transcript reader that panics is logged with the
// session it was reading, and the loop goes on to queue a good session after it. A session
// of a harness with no transcript reader (Codex) whose transcript grows is left alone: its
// file event once took the daemon down.
func TestReconcilePanicCostsOneSession(t *testing.T) {
	classifiers["boom"] = func([]byte) claude.Line { panic("a reader bug") }
	t.Cleanup(func() { delete(classifiers, "boom") })
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
	r := &Reconciler{Engine: e, Sweep: 20 * time.Millisecond, Settle: 30 * time.Millisecond, Watch: true, Log: log}
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
