package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/spool"
	"github.com/trailboss/trailboss/daemon/wire"
)

// codex posts a Codex payload as the emitter would, from pane, emitted at at.
func (f *apiFixture) codex(body, pane string, at time.Time) *httptest.ResponseRecorder {
	return f.do(http.MethodPost, "/v1/hooks/codex", strings.NewReader(body),
		header("Content-Type", "application/json"), header(wire.HeaderPane, pane),
		header(wire.HeaderTmux, testSocket+",4242,0"), header(wire.HeaderEmittedAt, at.Format(time.RFC3339Nano)))
}

// codexTurns numbers the turns codexNotify ends: each notify is a turn of its own, as Codex's are.
var codexTurns atomic.Int64

func codexNotify(thread, msg string, inputs ...string) string {
	turn := fmt.Sprint("turn-", codexTurns.Add(1))
	b, _ := json.Marshal(map[string]any{"type": "agent-turn-complete", "thread-id": thread, "turn-id": turn,
		"cwd": "/src/api", "input-messages": append([]string{}, inputs...), "last-assistant-message": msg})
	return string(b)
}

func codexHookBody(session, event string, extra ...string) string {
	fields := []string{`"session_id":"` + session + `"`, `"hook_event_name":"` + event + `"`, `"turn_id":"a-turn-in-progress"`,
		`"transcript_path":null`, `"cwd":"/src/api"`, `"model":"gpt-5.5"`, `"permission_mode":"default"`}
	return "{" + strings.Join(append(fields, extra...), ",") + "}"
}

func queueIDs(f *apiFixture) []string {
	var ids []string
	for _, it := range f.engine.Items() {
		ids = append(ids, it.ID)
	}
	return ids
}

func TestCodexNotifyQueuesTheThread(t *testing.T) {
	f := newAPI(t)
	at := t0.Add(time.Minute)
	mustStatus(t, f.codex(codexNotify("thread-a", "Tests pass. Push?", "run the tests"), "%4", at), http.StatusOK)
	items := f.engine.Items()
	if len(items) != 1 {
		t.Fatalf("queue %+v, want one item", items)
	}
	it := items[0]
	if it.ID != "thread-a" || it.Harness != "codex" || it.Reason != "stopped" || it.Summary != "Tests pass. Push?" ||
		it.Pane != "%4" || it.TmuxSocket != testSocket || it.Cwd != "/src/api" || !it.Since.Equal(at) {
		t.Fatalf("queued %+v", it)
	}
}

func TestCodexApprovalThenProgress(t *testing.T) {
	f := newAPI(t)
	mustStatus(t, f.codex(codexHookBody("thread-a", "SessionStart", `"source":"startup"`), "%4", t0), http.StatusOK)
	if len(f.engine.Items()) != 0 || len(f.engine.Snapshot()) != 1 {
		t.Fatalf("SessionStart: queue %v, sessions %d", queueIDs(f), len(f.engine.Snapshot()))
	}
	mustStatus(t, f.codex(codexHookBody("thread-a", "PermissionRequest", `"tool_name":"Bash"`,
		`"tool_input":{"command":"git push"}`), "%4", t0.Add(time.Second)), http.StatusOK)
	items := f.engine.Items()
	if len(items) != 1 || items[0].Reason != "permission" || items[0].Detail != "Bash" || items[0].Summary != "Bash: git push" {
		t.Fatalf("after PermissionRequest: %+v", items)
	}
	mustStatus(t, f.codex(codexHookBody("thread-a", "PostToolUse", `"tool_name":"Bash"`), "%4", t0.Add(2*time.Second)), http.StatusOK)
	if ids := queueIDs(f); len(ids) != 0 {
		t.Fatalf("after PostToolUse the queue is %v, want empty", ids)
	}
}

// A notify whose turn began with input says that what the thread waited for before was
// answered: without hooks nothing else would take it out of the queue, so it is queued
// afresh; a turn without input keeps the place.
func TestCodexPromptedTurnRequeuesAtItsEnd(t *testing.T) {
	f := newAPI(t)
	mustStatus(t, f.codex(codexNotify("thread-a", "first"), "%4", t0), http.StatusOK)
	mustStatus(t, f.codex(codexNotify("thread-b", "other"), "%5", t0.Add(time.Minute)), http.StatusOK)
	if ids := queueIDs(f); !reflect.DeepEqual(ids, []string{"thread-a", "thread-b"}) {
		t.Fatalf("queue %v", ids)
	}
	// No input: an internal turn. thread-a keeps its place and takes the new words.
	mustStatus(t, f.codex(codexNotify("thread-a", "second"), "%4", t0.Add(2*time.Minute)), http.StatusOK)
	if ids := queueIDs(f); !reflect.DeepEqual(ids, []string{"thread-a", "thread-b"}) {
		t.Fatalf("after an unprompted turn the queue is %v, want thread-a still first", ids)
	}
	// With input: the human answered thread-a, which now waits since this turn's end.
	end := t0.Add(3 * time.Minute)
	rec := f.codex(codexNotify("thread-a", "third", "go on"), "%4", end)
	mustStatus(t, rec, http.StatusOK)
	items := f.engine.Items()
	if len(items) != 2 || items[0].ID != "thread-b" || items[1].ID != "thread-a" ||
		!items[1].Since.Equal(end) || items[1].Summary != "third" {
		t.Fatalf("after a prompted turn: %+v", items)
	}
	if !strings.Contains(rec.Body.String(), `"changed":true`) {
		t.Errorf("reply %s, want changed", rec.Body.String())
	}
}

func TestCodexUnknownAndBadPayloadsChangeNothing(t *testing.T) {
	f := newAPI(t)
	mustStatus(t, f.codex(codexNotify("seed", "done?"), "%1", t0), http.StatusOK)
	before, sessions := f.engine.Items(), len(f.engine.Snapshot())

	rec := f.codex(codexHookBody("other", "SubagentStop", `"agent_id":"x"`), "%1", t0.Add(time.Second))
	mustStatus(t, rec, http.StatusOK)
	if !strings.Contains(rec.Body.String(), `"ignored"`) || !strings.Contains(rec.Body.String(), "SubagentStop") {
		t.Errorf("reply %s, want it to name the ignored event", rec.Body.String())
	}
	for name, tc := range map[string]struct {
		body, want string
		mods       []func(*http.Request)
	}{
		"not JSON":       {body: "agent-turn-complete", want: "malformed JSON"},
		"no type":        {body: `{"thread-id":"x"}`, want: "missing type"},
		"no session":     {body: `{"hook_event_name":"Stop"}`, want: "missing session_id"},
		"missing socket": {body: codexNotify("intruder", "hi"), want: "does not exist", mods: []func(*http.Request){header(wire.HeaderTmux, "/tmp/nope,1,0")}},
		"bad pane":       {body: codexNotify("intruder", "hi"), want: "pane", mods: []func(*http.Request){header(wire.HeaderPane, "%1;kill-server")}},
		"bad time":       {body: codexNotify("intruder", "hi"), want: wire.HeaderEmittedAt, mods: []func(*http.Request){header(wire.HeaderEmittedAt, "soon")}},
	} {
		base := []func(*http.Request){header(wire.HeaderPane, "%2"), header(wire.HeaderTmux, testSocket+",1,0")}
		rec := f.do(http.MethodPost, "/v1/hooks/codex", strings.NewReader(tc.body), append(base, tc.mods...)...)
		mustStatus(t, rec, http.StatusBadRequest)
		if msg := errorMessage(t, rec); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to say %q", name, msg, tc.want)
		}
	}
	if after := f.engine.Items(); !reflect.DeepEqual(after, before) || len(f.engine.Snapshot()) != sessions {
		t.Fatalf("queue changed: %+v", after)
	}
}

func TestSpoolDrainAppliesCodexPayloads(t *testing.T) {
	f := newAPI(t)
	ingest := &daemon.Ingestor{Engine: f.engine, Log: discard, Now: time.Now,
		SocketExists: func(path string) bool { return path == testSocket }}
	dir := t.TempDir()
	at := time.Now().Add(-time.Minute).UTC()
	ev := spool.Event{Harness: "codex", Pane: "%7", Tmux: testSocket + ",1,0", EmittedAt: at,
		Body: []byte(codexNotify("spooled-thread", "Waiting for you"))}
	if _, err := spool.Write(dir, ev); err != nil {
		t.Fatal(err)
	}
	(&daemon.SpoolDrainer{Ingest: ingest, StateDir: dir, Log: discard}).Drain(t.Context())
	items := f.engine.Items()
	if len(items) != 1 || items[0].ID != "spooled-thread" || items[0].Harness != "codex" || items[0].Pane != "%7" ||
		!items[0].Since.Equal(at) {
		t.Fatalf("after draining: %+v", items)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, spool.Dir)); len(left) != 0 {
		t.Fatalf("the spool still holds %d files", len(left))
	}
}
