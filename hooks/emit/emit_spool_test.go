package emit

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/spool"
)

// spooled returns what the spool of dir holds.
func spooled(t *testing.T, dir string) []spool.Event {
	t.Helper()
	paths, err := spool.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []spool.Event
	for _, p := range paths {
		ev, err := spool.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	return got
}

func TestEmitSpoolsWhatTheDaemonDidNotAcknowledge(t *testing.T) {
	e := emitter(t, freeAddr(t), strings.NewReader(payload), EmitTimeout)
	e.Getenv = envOf(map[string]string{"TMUX_PANE": "%7", "TMUX": "/tmp/s,1,0"})
	at := time.Date(2026, 11, 21, 9, 0, 0, 5, time.UTC)
	e.Now = func() time.Time { return at }
	err := e.Emit(context.Background())
	if err == nil || !strings.Contains(err.Error(), "kept in the spool") {
		t.Fatalf("Emit to a daemon that is down: %v, want it spooled", err)
	}
	got := spooled(t, e.StateDir)
	if len(got) != 1 {
		t.Fatalf("%d spooled events, want 1", len(got))
	}
	ev := got[0]
	if !sameJSON(t, ev.Body, []byte(payload)) || ev.Pane != "%7" || ev.Tmux != "/tmp/s,1,0" || !ev.EmittedAt.Equal(at) || ev.Harness != "claude" {
		t.Errorf("spooled %+v", ev)
	}
}

func TestEmitDoesNotSpoolWhatTheDaemonRefused(t *testing.T) {
	rc := &recorder{code: 400, reply: `{"error":"missing session_id"}`}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), strings.NewReader(payload), time.Second)
	if err := e.Emit(context.Background()); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Emit of a refused payload: %v", err)
	}
	if n := len(spooled(t, e.StateDir)); n != 0 {
		t.Fatalf("a refused payload was spooled (%d)", n)
	}
}

func TestEmitSpoolsWhenTheDaemonCouldNotStore(t *testing.T) {
	rc := &recorder{code: 503, reply: `{"error":"event not stored: no space left"}`}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), strings.NewReader(payload), time.Second)
	if err := e.Emit(context.Background()); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("Emit on a 503: %v", err)
	}
	if n := len(spooled(t, e.StateDir)); n != 1 {
		t.Fatalf("%d spooled after a 503, want 1", n)
	}
}

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// TestEmitSpoolsOnlyWhatTheAdapterReads: a PostToolUse whose tool_response is almost a
// megabyte is spooled without it, and means the same to the adapter.
func TestEmitSpoolsOnlyWhatTheAdapterReads(t *testing.T) {
	big, _ := json.Marshal(map[string]any{"session_id": "S", "hook_event_name": "PostToolUse", "cwd": "/src",
		"transcript_path": "", "tool_name": "Bash", "tool_input": map[string]any{"command": "cat big.log"},
		"tool_response": map[string]any{"stdout": strings.Repeat("x", 1_000_000)}})
	e := emitter(t, freeAddr(t), bytes.NewReader(big), EmitTimeout)
	if err := e.Emit(context.Background()); err == nil || !strings.Contains(err.Error(), "kept in the spool") {
		t.Fatalf("Emit to a daemon that is down: %v, want it spooled", err)
	}
	got := spooled(t, e.StateDir)
	if len(got) != 1 {
		t.Fatalf("%d spooled events, want 1", len(got))
	}
	if n := len(got[0].Body); n > 4096 {
		t.Fatalf("spooled %d bytes of a PostToolUse", n)
	}
	want, _ := json.Marshal(map[string]any{"session_id": "S", "hook_event_name": "PostToolUse", "cwd": "/src",
		"transcript_path": "", "tool_name": "Bash", "tool_input": map[string]any{"command": "cat big.log"}})
	if !sameJSON(t, got[0].Body, want) {
		t.Fatalf("spooled %s", got[0].Body)
	}
}
