package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/enginetest"
	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/wire"
)

// The HTTP face served over a real core: an engine on a store in a temporary directory.

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

const testSocket = "/tmp/tbx-test/s"

var discard = slog.New(slog.DiscardHandler)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func newEngine(t *testing.T) *daemon.Engine {
	e, _ := enginetest.Open(t, daemon.NewEngine)
	return e
}

const testToken = "0123456789abcdef-test-token"

type apiFixture struct {
	engine *daemon.Engine
	h      http.Handler
	now    time.Time
}

func newAPI(t *testing.T) *apiFixture {
	t.Helper()
	e := newEngine(t)
	f := &apiFixture{engine: e, now: t0.Add(time.Hour)}
	core := &daemon.Core{Engine: e, Log: discard, Ingest: &daemon.Ingestor{Engine: e, Log: discard,
		Now: func() time.Time { return f.now }, SocketExists: func(path string) bool { return path == testSocket }}}
	a := &httpapi.Server{Core: core, Token: testToken, Version: "v-test", Log: discard}
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

func hookBody(session, hook string, extra ...string) string {
	fields := []string{`"session_id":"` + session + `"`, `"hook_event_name":"` + hook + `"`,
		`"transcript_path":""`, `"cwd":"/src/shop"`}
	return "{" + strings.Join(append(fields, extra...), ",") + "}"
}

// hook posts a Claude Code hook payload as the emitter would, from pane.
func (f *apiFixture) hook(body, pane string, mods ...func(*http.Request)) *httptest.ResponseRecorder {
	base := []func(*http.Request){
		header("Content-Type", "application/json"),
		header(wire.HeaderPane, pane),
		header(wire.HeaderTmux, testSocket+",4242,0"),
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

// lengthless hides a reader's length, so that the request has no Content-Length.
type lengthless struct{ io.Reader }

func TestAPIRefusesBadRequestsWithoutChangingTheQueue(t *testing.T) {
	f := newAPI(t)
	mustStatus(t, f.hook(hookBody("seed", "Stop", `"last_assistant_message":"done?"`), "%1"), http.StatusOK)
	before := f.engine.Items()
	if len(before) != 1 {
		t.Fatalf("seeding queued %d items, want 1", len(before))
	}

	// Each request below would change the queue if it were accepted: a Stop of a new
	// session, or a prompt that dequeues the seed.
	intruder := hookBody("intruder", "Stop", `"last_assistant_message":"let me in"`)
	dequeue := hookBody("seed", "UserPromptSubmit", `"prompt":"go"`)
	big := hookBody("intruder", "Stop", `"last_assistant_message":"`+strings.Repeat("x", 2<<20)+`"`)

	tests := []struct {
		name string
		code int
		want string // in the error message
		req  func() *httptest.ResponseRecorder
	}{
		{"no token", 401, "token", func() *httptest.ResponseRecorder {
			return f.hook(intruder, "%2", header("Authorization", ""))
		}},
		{"wrong token", 401, "token", func() *httptest.ResponseRecorder {
			return f.hook(dequeue, "%1", header("Authorization", "Bearer "+testToken+"x"))
		}},
		{"token without Bearer", 401, "token", func() *httptest.ResponseRecorder {
			return f.hook(dequeue, "%1", header("Authorization", testToken))
		}},
		{"no token on the queue", 401, "token", func() *httptest.ResponseRecorder {
			return f.do(http.MethodGet, "/v1/queue", nil, header("Authorization", ""))
		}},
		{"no token on skip", 401, "token", func() *httptest.ResponseRecorder {
			return f.do(http.MethodPost, "/v1/skip", nil, header("Authorization", ""))
		}},
		{"Origin header with a valid token", 403, "Origin", func() *httptest.ResponseRecorder {
			return f.hook(dequeue, "%1", header("Origin", "http://127.0.0.1:4000"))
		}},
		{"Origin on skip", 403, "Origin", func() *httptest.ResponseRecorder {
			return f.do(http.MethodPost, "/v1/skip", nil, header("Origin", "null"))
		}},
		{"Host that is not loopback", 403, "evil.example:4000", func() *httptest.ResponseRecorder {
			return f.hook(dequeue, "%1", func(r *http.Request) { r.Host = "evil.example:4000" })
		}},
		{"Host that only starts like localhost", 403, "not a loopback", func() *httptest.ResponseRecorder {
			return f.hook(dequeue, "%1", func(r *http.Request) { r.Host = "localhost.evil.example" })
		}},
		{"malformed JSON", 400, "malformed JSON", func() *httptest.ResponseRecorder {
			return f.hook(`{"session_id": intruder, "hook_event_name": "Stop"}`, "%2")
		}},
		{"truncated JSON", 400, "truncated JSON", func() *httptest.ResponseRecorder {
			return f.hook(`{"session_id":"intruder","hook_event_name":"Stop"`, "%2")
		}},
		{"empty body", 400, "empty", func() *httptest.ResponseRecorder {
			return f.hook(``, "%2")
		}},
		{"two JSON values", 400, "more than one", func() *httptest.ResponseRecorder {
			return f.hook(intruder+intruder, "%2")
		}},
		{"wrong type", 400, `"session_id" must be a string`, func() *httptest.ResponseRecorder {
			return f.hook(`{"session_id":42,"hook_event_name":"Stop"}`, "%2")
		}},
		{"missing session_id", 400, "missing session_id", func() *httptest.ResponseRecorder {
			return f.hook(`{"hook_event_name":"Stop","last_assistant_message":"x"}`, "%2")
		}},
		{"missing session_id on an unknown event", 400, "missing session_id", func() *httptest.ResponseRecorder {
			return f.hook(`{"hook_event_name":"SubagentStop"}`, "%2")
		}},
		{"missing hook_event_name", 400, "hook_event_name", func() *httptest.ResponseRecorder {
			return f.hook(`{"session_id":"intruder"}`, "%2")
		}},
		{"pane with a tmux command", 400, "not a tmux pane id", func() *httptest.ResponseRecorder {
			return f.hook(intruder, "%1;kill-server")
		}},
		{"pane that is a flag", 400, "not a tmux pane id", func() *httptest.ResponseRecorder {
			return f.hook(intruder, "-t")
		}},
		{"pane without digits", 400, "not a tmux pane id", func() *httptest.ResponseRecorder {
			return f.hook(intruder, "%")
		}},
		{"pane number too long", 400, "not a tmux pane id", func() *httptest.ResponseRecorder {
			return f.hook(intruder, "%99999999999999999999")
		}},
		{"pane number over 32 bits", 400, "not a tmux pane id", func() *httptest.ResponseRecorder {
			return f.hook(intruder, "%4294967296")
		}},
		{"TMUX that is not socket,pid,index", 400, "TMUX", func() *httptest.ResponseRecorder {
			return f.hook(intruder, "%2", header(wire.HeaderTmux, "relative/socket,1,0"))
		}},
		{"emitted-at that is not a time", 400, wire.HeaderEmittedAt, func() *httptest.ResponseRecorder {
			return f.hook(dequeue, "%1", header(wire.HeaderEmittedAt, "yesterday"))
		}},
		{"2 MiB body with Content-Length", 413, "limit", func() *httptest.ResponseRecorder {
			return f.hook(big, "%2")
		}},
		{"2 MiB body without Content-Length", 413, "limit", func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/v1/hooks/claude", lengthless{strings.NewReader(big)})
			if req.ContentLength != -1 {
				t.Fatalf("test setup: Content-Length %d, want unknown", req.ContentLength)
			}
			req.Host = "127.0.0.1:4000"
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set(wire.HeaderPane, "%2")
			rec := httptest.NewRecorder()
			f.h.ServeHTTP(rec, req)
			return rec
		}},
		{"bad pane filter on next", 400, "not a tmux pane id", func() *httptest.ResponseRecorder {
			return f.do(http.MethodGet, "/v1/next?pane=-t", nil)
		}},
		{"bad pane filter on skip", 400, "not a tmux pane id", func() *httptest.ResponseRecorder {
			return f.do(http.MethodPost, "/v1/skip?pane=%251%3Bkill-server", nil)
		}},
		{"unknown endpoint", 404, "/v1/nope", func() *httptest.ResponseRecorder {
			return f.do(http.MethodPost, "/v1/nope", nil)
		}},
		{"wrong method", 405, "GET", func() *httptest.ResponseRecorder {
			return f.do(http.MethodGet, "/v1/hooks/claude", nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tt.req()
			mustStatus(t, rec, tt.code)
			if msg := errorMessage(t, rec); !strings.Contains(msg, tt.want) {
				t.Errorf("error %q does not name the problem (want it to contain %q)", msg, tt.want)
			}
			if after := f.engine.Items(); !reflect.DeepEqual(after, before) {
				t.Fatalf("queue changed by a refused request:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

func TestAPIUnknownHookEventIsAcknowledgedAndChangesNothing(t *testing.T) {
	f := newAPI(t)
	mustStatus(t, f.hook(hookBody("seed", "Stop"), "%1"), http.StatusOK)
	before := f.engine.Items()
	snapshot := f.engine.Snapshot()

	rec := f.hook(hookBody("other", "SubagentStop"), "%1") // on the seed's pane: no claim
	mustStatus(t, rec, http.StatusOK)
	var got struct {
		OK      bool   `json:"ok"`
		Changed bool   `json:"changed"`
		Ignored string `json:"ignored"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !got.OK || got.Changed || !strings.Contains(got.Ignored, "SubagentStop") {
		t.Fatalf("reply %s, want ok, unchanged, naming the ignored event", rec.Body.String())
	}
	if after := f.engine.Items(); !reflect.DeepEqual(after, before) {
		t.Fatalf("queue changed: %+v", after)
	}
	if after := f.engine.Snapshot(); len(after) != len(snapshot) {
		t.Fatalf("an ignored event registered a session: %+v", after)
	}
}

func TestAPIHealthzNeedsNoTokenButRefusesBrowsers(t *testing.T) {
	f := newAPI(t)
	rec := f.do(http.MethodGet, "/healthz", nil, header("Authorization", ""))
	mustStatus(t, rec, http.StatusOK)
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got["ok"] != true || got["version"] != "v-test" {
		t.Fatalf("healthz body %s (%v)", rec.Body.String(), err)
	}
	rec = f.do(http.MethodGet, "/healthz", nil, header("Origin", "https://evil.example"))
	mustStatus(t, rec, http.StatusForbidden)
	errorMessage(t, rec)
	for _, host := range []string{"localhost:4000", "localhost", "[::1]:4000", "127.0.0.2:80"} {
		rec := f.do(http.MethodGet, "/healthz", nil, func(r *http.Request) { r.Host = host })
		if rec.Code != http.StatusOK {
			t.Errorf("Host %q refused: %d %s", host, rec.Code, rec.Body.String())
		}
	}
}

type apiItem struct {
	Position  int        `json:"position"`
	SessionID string     `json:"session_id"`
	Pane      string     `json:"pane"`
	Socket    string     `json:"tmux_socket"`
	Reason    string     `json:"reason"`
	Summary   string     `json:"summary"`
	Cwd       string     `json:"cwd"`
	Since     time.Time  `json:"since"`
	Ready     bool       `json:"ready"`
	Cooldown  *time.Time `json:"cooldown_until"`
}

func decodeItem(t *testing.T, rec *httptest.ResponseRecorder) apiItem {
	t.Helper()
	var it apiItem
	if err := json.Unmarshal(rec.Body.Bytes(), &it); err != nil {
		t.Fatalf("item body %q: %v", rec.Body.String(), err)
	}
	return it
}

func TestAPINextSkipStatus(t *testing.T) {
	f := newAPI(t)
	rec := f.do(http.MethodGet, "/v1/next", nil)
	mustStatus(t, rec, http.StatusNoContent)
	if rec.Body.Len() != 0 {
		t.Fatalf("204 with a body: %q", rec.Body.String())
	}
	mustStatus(t, f.do(http.MethodPost, "/v1/skip", nil), http.StatusNoContent)

	emitted := func(sec float64) func(*http.Request) {
		return header(wire.HeaderEmittedAt, at(sec).Format(time.RFC3339Nano))
	}
	mustStatus(t, f.hook(hookBody("A", "PermissionRequest", `"tool_name":"Bash"`, `"tool_input":{"command":"make deploy"}`), "%5", emitted(1)), http.StatusOK)
	mustStatus(t, f.hook(hookBody("B", "Stop", `"last_assistant_message":"done?"`), "%6", emitted(2)), http.StatusOK)

	rec = f.do(http.MethodGet, "/v1/next", nil)
	mustStatus(t, rec, http.StatusOK)
	it := decodeItem(t, rec)
	if it.SessionID != "A" || it.Pane != "%5" || it.Socket != testSocket || it.Reason != "permission" ||
		it.Summary != "Bash: make deploy" || it.Cwd != "/src/shop" || !it.Since.Equal(at(1)) || !it.Ready || it.Position != 1 {
		t.Fatalf("next: %+v", it)
	}
	// On A's pane, next passes over it.
	rec = f.do(http.MethodGet, "/v1/next?pane=%255", nil)
	mustStatus(t, rec, http.StatusOK)
	if it := decodeItem(t, rec); it.SessionID != "B" {
		t.Fatalf("next from %%5: %s, want B", it.SessionID)
	}
	// Another tmux server's client sees nothing.
	mustStatus(t, f.do(http.MethodGet, "/v1/next?socket=/tmp/elsewhere", nil), http.StatusNoContent)

	// Skip from A's pane skips A and returns B.
	rec = f.do(http.MethodPost, "/v1/skip?pane=%255", nil)
	mustStatus(t, rec, http.StatusOK)
	if it := decodeItem(t, rec); it.SessionID != "B" {
		t.Fatalf("skip from %%5 returned %s, want B", it.SessionID)
	}
	rec = f.do(http.MethodGet, "/v1/status", nil)
	mustStatus(t, rec, http.StatusOK)
	var st map[string]int
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st["stuck"] != 2 || st["cooling"] != 1 || st["ready"] != 1 || st["events"] < 2 || len(st) != 4 {
		t.Fatalf("status %s, want stuck 2 (1 cooling) ready 1 and the events applied", rec.Body.String())
	}

	rec = f.do(http.MethodGet, "/v1/queue", nil)
	mustStatus(t, rec, http.StatusOK)
	var q struct {
		Items []apiItem `json:"items"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &q); err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 2 || q.Items[0].SessionID != "B" || q.Items[1].SessionID != "A" ||
		q.Items[1].Ready || q.Items[1].Cooldown == nil || q.Items[0].Cooldown != nil || q.Items[1].Position != 2 {
		t.Fatalf("queue after skipping A: %s", rec.Body.String())
	}

	// A prompt in B's pane dequeues it.
	mustStatus(t, f.hook(hookBody("B", "UserPromptSubmit", `"prompt":"yes"`), "%6", emitted(3)), http.StatusOK)
	rec = f.do(http.MethodGet, "/v1/status", nil)
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st["stuck"] != 1 || st["ready"] != 0 {
		t.Fatalf("status after B's prompt: %s, want stuck 1 ready 0", rec.Body.String())
	}
	mustStatus(t, f.do(http.MethodGet, "/v1/next", nil), http.StatusNoContent)
}

func TestAPIClampsAFutureEmittedAtToNow(t *testing.T) {
	f := newAPI(t)
	future := f.now.Add(time.Hour).Format(time.RFC3339Nano)
	rec := f.hook(hookBody("A", "Stop"), "%1", header(wire.HeaderEmittedAt, future))
	mustStatus(t, rec, http.StatusOK)
	items := f.engine.Items()
	if len(items) != 1 || !items[0].Since.Equal(f.now) {
		t.Fatalf("a Stop from the future queued %+v, want since %v (now)", items, f.now)
	}

	// A real event one second later must still apply.
	later := f.now.Add(time.Second).Format(time.RFC3339Nano)
	f.now = f.now.Add(time.Second)
	rec = f.hook(hookBody("A", "UserPromptSubmit"), "%1", header(wire.HeaderEmittedAt, later))
	mustStatus(t, rec, http.StatusOK)
	if !bytes.Contains(rec.Body.Bytes(), []byte(`"changed":true`)) {
		t.Fatalf("the later prompt changed nothing: %s", rec.Body.String())
	}
	if n := len(f.engine.Items()); n != 0 {
		t.Fatalf("queue holds %d items after the prompt, want 0", n)
	}
}

func TestAPIWithoutEmittedAtUsesNow(t *testing.T) {
	f := newAPI(t)
	mustStatus(t, f.hook(hookBody("A", "Stop"), "%1"), http.StatusOK)
	if items := f.engine.Items(); len(items) != 1 || !items[0].Since.Equal(f.now) {
		t.Fatalf("queued %+v, want since %v", items, f.now)
	}
}

// TestAPIOverRealLoopback checks the Host check against what a real client sends, and a
// body over the limit sent in chunks.
func TestAPIOverRealLoopback(t *testing.T) {
	f := newAPI(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/status", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status over loopback: %d", resp.StatusCode)
	}

	big := hookBody("intruder", "Stop", `"last_assistant_message":"`+strings.Repeat("x", 2<<20)+`"`)
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/v1/hooks/claude", lengthless{strings.NewReader(big)})
	if req.ContentLength != 0 {
		t.Fatalf("test setup: Content-Length %d, want unknown (sent chunked)", req.ContentLength)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked 2 MiB body: status %d, want 413", resp.StatusCode)
	}
	if n := len(f.engine.Items()); n != 0 {
		t.Fatalf("an oversized chunked body queued %d items", n)
	}
}

func TestAPIStatusCountsAsReadyOnlyWhatNextCanReach(t *testing.T) {
	f := newAPI(t)
	// Claude Code outside tmux: no TMUX_PANE, no TMUX.
	mustStatus(t, f.hook(hookBody("A", "Stop"), "", header(wire.HeaderTmux, "")), http.StatusOK)
	mustStatus(t, f.do(http.MethodGet, "/v1/next", nil), http.StatusNoContent)

	rec := f.do(http.MethodGet, "/v1/status", nil)
	var st map[string]int
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st["stuck"] != 1 || st["ready"] != 0 {
		t.Fatalf("status %s, want stuck 1 ready 0: next has nowhere to go", rec.Body.String())
	}
}
