package daemon_test

import (
	"encoding/json"
	"github.com/trailboss/trailboss/daemon"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/wire"
)

const testToken = "0123456789abcdef-test-token"

type apiFixture struct {
	engine *daemon.Engine
	h      http.Handler
	now    time.Time
}

func newAPI(t *testing.T) *apiFixture {
	t.Helper()
	e, _ := daemon.NewTestEngine(t)
	f := &apiFixture{engine: e, now: daemon.T0.Add(time.Hour)}
	core := &daemon.Core{Engine: e, Log: daemon.Discard, Ingest: &daemon.Ingestor{Engine: e, Log: daemon.Discard,
		Now: func() time.Time { return f.now }, SocketExists: func(path string) bool { return path == daemon.TestSocket }}}
	a := &httpapi.Server{Core: core, Token: testToken, Version: "v-test", Log: daemon.Discard}
	f.h = a.Handler()
	return f
}

// do serves one request on a loopback Host with the token, after mods.
func (f *apiFixture) do(method, target string, body io.Reader, mods ...func(*http.Request)) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, body)
	req.Host = "127.0.0.1:4000"
	req.Header.Set("Authorization", "Bearer "+testToken)
	for _, m := range mods {
		m(req)
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec
}

func header(k, v string) func(*http.Request) {
	return func(r *http.Request) {
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
}

// hook posts a Claude Code hook payload as the emitter would, from pane.
func (f *apiFixture) hook(body, pane string, mods ...func(*http.Request)) *httptest.ResponseRecorder {
	base := []func(*http.Request){
		header("Content-Type", "application/json"),
		header(wire.HeaderPane, pane),
		header(wire.HeaderTmux, daemon.TestSocket+",4242,0"),
	}
	return f.do(http.MethodPost, "/v1/hooks/claude", strings.NewReader(body), append(base, mods...)...)
}

func mustStatus(t *testing.T, rec *httptest.ResponseRecorder, code int) {
	t.Helper()
	if rec.Code != code {
		t.Fatalf("status %d, want %d; body %s", rec.Code, code, rec.Body.String())
	}
}

// errorMessage returns the message of a JSON error body, failing unless the body is
// exactly {"error": "<non-empty>"} served as JSON.
func errorMessage(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("error Content-Type %q, want application/json", ct)
	}
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("error body is not JSON: %v: %q", err, rec.Body.String())
	}
	msg, ok := body["error"].(string)
	if len(body) != 1 || !ok || msg == "" {
		t.Fatalf(`error body %s, want exactly {"error": "<message>"}`, rec.Body.String())
	}
	return msg
}
