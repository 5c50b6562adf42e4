package daemon_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/enginetest"
	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/wire"
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
	e, _ := enginetest.Open(t, daemon.NewEngine)
	const token = "0123456789abcdef-test-token"
	h := (&httpapi.Server{Token: token, Log: log, Core: &daemon.Core{Engine: e, Log: log,
		Ingest: &daemon.Ingestor{Engine: e, Log: log, Now: time.Now, SocketExists: func(path string) bool { return path == daemon.TestSocket }}}}).Handler()
	// post serves one hook from pane %1 on a loopback Host with the token, as the emitter sends it.
	post := func(path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Host = "127.0.0.1:4000"
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(wire.HeaderPane, "%1")
		req.Header.Set(wire.HeaderTmux, daemon.TestSocket+",4242,0")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	if rec := post("/v1/hooks/boom", `{}`); rec.Code != http.StatusInternalServerError {
		t.Fatalf("the panicking request: status %d, want 500; body %s", rec.Code, rec.Body)
	}
	if !strings.Contains(buf.String(), "a parser bug") || !strings.Contains(buf.String(), "goroutine") {
		t.Fatalf("the panic was not logged with its stack: %s", buf.String())
	}
	stop := `{"session_id":"s1","hook_event_name":"Stop","transcript_path":"","cwd":"/src/shop"}`
	if rec := post("/v1/hooks/claude", stop); rec.Code != http.StatusOK {
		t.Fatalf("a good hook after the panic: status %d, want 200; body %s", rec.Code, rec.Body)
	}
	if items := e.Items(); len(items) != 1 || items[0].ID != "s1" {
		t.Fatalf("after the panic, a good hook was not queued: %+v", items)
	}
}
