package daemon_test

import (
	"bytes"
	"github.com/trailboss/trailboss/daemon"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
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
	t.Cleanup(daemon.SetHookParser("boom", func([]byte, adapter.Meta) ([]adapter.Event, error) {
		panic("a parser bug")
	}))
	log, buf := bufferLog()
	f := newAPI(t)
	a := &httpapi.Server{Token: testToken, Log: log, Core: &daemon.Core{Engine: f.engine, Log: log,
		Ingest: &daemon.Ingestor{Engine: f.engine, Log: log, Now: time.Now, SocketExists: func(path string) bool { return path == daemon.TestSocket }}}}
	f.h = a.Handler()

	rec := f.do(http.MethodPost, "/v1/hooks/boom", strings.NewReader(`{}`))
	mustStatus(t, rec, http.StatusInternalServerError)
	if !strings.Contains(buf.String(), "a parser bug") || !strings.Contains(buf.String(), "goroutine") {
		t.Fatalf("the panic was not logged with its stack: %s", buf.String())
	}
	mustStatus(t, f.hook(daemon.HookBody("s1", "Stop"), "%1"), http.StatusOK)
	if items := f.engine.Items(); len(items) != 1 || items[0].ID != "s1" {
		t.Fatalf("after the panic, a good hook was not queued: %+v", items)
	}
}
