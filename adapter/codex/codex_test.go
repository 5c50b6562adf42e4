package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

var emitted = time.Date(2026, 11, 21, 9, 0, 0, 123456789, time.UTC)

const thread = "b5f6c1c2-1111-2222-3333-444455556666"

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseNotifyFixtures(t *testing.T) {
	meta := Meta{Pane: "%12", Tmux: "/tmp/tmux-1000/default,4242,0", EmittedAt: emitted}
	tests := []struct {
		file, session, summary, cwd string
		prompted                    bool
	}{
		{"notify-agent-turn-complete.json", thread, "Rename complete and verified `cargo build` succeeds.", "/Users/example/project", true},
		{"notify-no-message.json", thread, "", "/Users/example/project", false},
		// An older Codex sends no thread-id: the pane names the session.
		{"notify-legacy-no-thread.json", "codex:%12@/tmp/tmux-1000/default", "Rename complete and verified `cargo build` succeeds.", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			turn, err := ParseNotifyTurn(fixture(t, tt.file), meta)
			if err != nil {
				t.Fatalf("ParseNotifyTurn: %v", err)
			}
			ev := turn.Event
			if ev.Kind != adapter.KindStuck || ev.Reason != adapter.ReasonStopped || ev.Detail != "" {
				t.Errorf("got kind=%s reason=%q detail=%q, want stuck stopped", ev.Kind, ev.Reason, ev.Detail)
			}
			if ev.Summary != tt.summary || ev.SessionID != tt.session || ev.Cwd != tt.cwd || turn.Prompted != tt.prompted {
				t.Errorf("got session=%q summary=%q cwd=%q prompted=%v", ev.SessionID, ev.Summary, ev.Cwd, turn.Prompted)
			}
			if ev.Harness != Harness || ev.Pane != "%12" || ev.TmuxSocket != "/tmp/tmux-1000/default" || !ev.At.Equal(emitted) {
				t.Errorf("identity not carried over: %+v", ev)
			}
			plain, err := ParseNotify(fixture(t, tt.file), meta)
			if err != nil || plain != ev {
				t.Errorf("ParseNotify = %+v, %v; want the same event as ParseNotifyTurn", plain, err)
			}
		})
	}
}

func TestParseHookFixtures(t *testing.T) {
	meta := Meta{Pane: "%12", Tmux: "/tmp/tmux-1000/default,4242,0", EmittedAt: emitted}
	tests := []struct {
		file    string
		kind    adapter.Kind
		reason  string
		detail  string
		summary string
	}{
		{"hook-SessionStart.json", adapter.KindStart, "", "startup", ""},
		{"hook-UserPromptSubmit.json", adapter.KindUnstuck, "", "", ""},
		{"hook-PreToolUse.json", adapter.KindUnstuck, "", "", ""},
		{"hook-PermissionRequest-Bash.json", adapter.KindStuck, adapter.ReasonPermission, "Bash", "Bash: git push origin main"},
		{"hook-PermissionRequest-network.json", adapter.KindStuck, adapter.ReasonPermission, "Bash",
			"Bash: curl -sSf https://crates.io/api/v1/crates/serde — network-access crates.io"},
		{"hook-PostToolUse.json", adapter.KindUnstuck, "", "", ""},
		{"hook-Stop.json", adapter.KindStuck, adapter.ReasonStopped, "", "Rename complete and verified `cargo build` succeeds. Push it too?"},
		{"hook-StopFailure.json", adapter.KindStuck, adapter.ReasonStopped, "error", "rate_limit: 429 Too Many Requests"},
		{"hook-SessionEnd.json", adapter.KindEnd, "", "other", ""},
		{"hook-Interrupt.json", adapter.KindStuck, adapter.ReasonStopped, adapter.DetailInterrupted, InterruptedSummary},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ev, err := ParseHook(fixture(t, tt.file), meta)
			if err != nil {
				t.Fatalf("ParseHook: %v", err)
			}
			if ev.Kind != tt.kind || ev.Reason != tt.reason || ev.Detail != tt.detail || ev.Summary != tt.summary {
				t.Errorf("got kind=%s reason=%q detail=%q summary=%q, want %s %q %q %q",
					ev.Kind, ev.Reason, ev.Detail, ev.Summary, tt.kind, tt.reason, tt.detail, tt.summary)
			}
			if ev.SessionID != thread || ev.Pane != "%12" || ev.TmuxSocket != "/tmp/tmux-1000/default" ||
				!ev.At.Equal(emitted) || ev.Cwd != "/Users/example/project" || ev.Harness != Harness ||
				!strings.HasSuffix(ev.TranscriptPath, thread+".jsonl") {
				t.Errorf("identity not carried over: %+v", ev)
			}
		})
	}
}

func TestParseTellsTheKindsApart(t *testing.T) {
	meta := Meta{Pane: "%3", Tmux: "/tmp/s,1,0", EmittedAt: emitted}
	// A notify whose turn began with input: what it waited for before was answered.
	evs, err := Parse(fixture(t, "notify-agent-turn-complete.json"), meta)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Kind != adapter.KindUnstuck || evs[1].Kind != adapter.KindStuck ||
		evs[0].SessionID != thread || !evs[0].At.Equal(evs[1].At) || evs[0].Summary != "" || evs[0].Reason != "" {
		t.Fatalf("prompted notify: got %+v, want unstuck then stuck at the same time", evs)
	}
	// A turn without input (an internal turn) keeps the place of what queued the session.
	evs, err = Parse(fixture(t, "notify-no-message.json"), meta)
	if err != nil || len(evs) != 1 || evs[0].Kind != adapter.KindStuck {
		t.Fatalf("unprompted notify: got %+v, %v", evs, err)
	}
	evs, err = Parse(fixture(t, "hook-PermissionRequest-Bash.json"), meta)
	if err != nil || len(evs) != 1 || evs[0].Reason != adapter.ReasonPermission {
		t.Fatalf("hook: got %+v, %v", evs, err)
	}
	if _, err := Parse(fixture(t, "hook-SubagentStop.json"), meta); !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("SubagentStop: err = %v, want ErrUnknownEvent", err)
	}
}

func TestUnknownEventsAreNotErrors(t *testing.T) {
	meta := Meta{EmittedAt: emitted}
	for name, body := range map[string]string{
		"notify type":  `{"type":"approval-requested","thread-id":"t1","extra":{"x":1}}`,
		"SubagentStop": string(fixture(t, "hook-SubagentStop.json")),
		"PreCompact":   `{"session_id":"s1","hook_event_name":"PreCompact","trigger":"auto"}`,
	} {
		_, err := Parse([]byte(body), meta)
		if !errors.Is(err, ErrUnknownEvent) || errors.Is(err, adapter.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrUnknownEvent only", name, err)
		}
	}
	// Unknown, but its identity is still checked.
	_, err := Parse([]byte(`{"session_id":"a\u001b[2J","hook_event_name":"PreCompact"}`), meta)
	if !errors.Is(err, adapter.ErrInvalid) {
		t.Errorf("unknown event with a bad session: err = %v, want ErrInvalid", err)
	}
}

func TestParseRejects(t *testing.T) {
	meta := Meta{Pane: "%1", Tmux: "/tmp/s,1,0", EmittedAt: emitted}
	noPane := Meta{EmittedAt: emitted}
	tests := []struct {
		name, body string
		meta       Meta
		want       string // substring of the error
	}{
		{"empty", ``, meta, "empty or truncated"},
		{"truncated", `{"type":"agent-turn-complete",`, meta, "truncated"},
		{"not json", `agent-turn-complete`, meta, "malformed JSON"},
		{"array", `["agent-turn-complete"]`, meta, "one JSON object"},
		{"two values", `{"type":"agent-turn-complete","thread-id":"t"} {}`, meta, "more than one"},
		{"notify without type", `{"thread-id":"t","last-assistant-message":"hi"}`, meta, "missing type"},
		{"notify wrong type", `{"type":"agent-turn-complete","thread-id":7}`, meta, `"thread-id" must be a string`},
		{"notify messages not strings", `{"type":"agent-turn-complete","thread-id":"t","input-messages":[1]}`, meta, "must be a string"},
		{"notify without thread outside tmux", `{"type":"agent-turn-complete","turn-id":"1"}`, noPane, "missing thread-id"},
		{"notify control chars", `{"type":"agent-turn-complete","thread-id":"t\u0007"}`, meta, "control characters"},
		{"hook without session", `{"hook_event_name":"Stop"}`, meta, "missing session_id"},
		{"hook empty event", `{"session_id":"s","hook_event_name":""}`, meta, "missing hook_event_name"},
		{"hook wrong type", `{"session_id":"s","hook_event_name":"Stop","cwd":["x"]}`, meta, `"cwd" must be a string`},
		{"bad pane", `{"session_id":"s","hook_event_name":"Stop"}`, Meta{Pane: "%1;kill-server", EmittedAt: emitted}, "not a tmux pane id"},
		{"bad TMUX", `{"type":"agent-turn-complete","thread-id":"t"}`, Meta{Pane: "%1", Tmux: "garbage", EmittedAt: emitted}, "TMUX value"},
		{"relative socket", `{"session_id":"s","hook_event_name":"Stop"}`, Meta{Pane: "%1", Tmux: "sock,1,0", EmittedAt: emitted}, "absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.body), tt.meta)
			if !errors.Is(err, adapter.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestSummaryIsCleaned(t *testing.T) {
	body := `{"type":"agent-turn-complete","thread-id":"t","last-assistant-message":"done\u001b[31m red\n\nnext? ` +
		strings.Repeat("x", 5000) + `"}`
	ev, err := ParseNotify([]byte(body), Meta{EmittedAt: emitted})
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(ev.Summary, "\x1b\n") || len(ev.Summary) > adapter.MaxSummaryLen {
		t.Errorf("summary not cleaned: %q (len %d)", ev.Summary[:40], len(ev.Summary))
	}
	if !strings.HasPrefix(ev.Summary, "done [31m red next? xxx") {
		t.Errorf("summary = %q", ev.Summary[:40])
	}
}

func FuzzParse(f *testing.F) {
	entries, _ := os.ReadDir("testdata")
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			b, _ := os.ReadFile(filepath.Join("testdata", e.Name()))
			f.Add(b, "%3", "/tmp/s,1,0")
		}
	}
	f.Add([]byte(`{"type":"agent-turn-complete","last-assistant-message":null,"input-messages":[" "]}`), "%1", "/tmp/s,1,0")
	f.Add([]byte(`{"session_id":"x","hook_event_name":"PermissionRequest","tool_input":null}`), "", "")
	f.Fuzz(func(t *testing.T, body []byte, pane, tmux string) {
		evs, err := Parse(body, Meta{Pane: pane, Tmux: tmux, EmittedAt: emitted})
		if err != nil {
			if len(evs) != 0 {
				t.Fatalf("events beside an error: %+v", evs)
			}
			return
		}
		if len(evs) == 0 || len(evs) > 2 {
			t.Fatalf("%d events", len(evs))
		}
		for _, ev := range evs {
			if verr := ev.Validate(); verr != nil {
				t.Fatalf("Parse returned an invalid event: %v", verr)
			}
			if len(ev.Summary) > adapter.MaxSummaryLen || ev.Harness != Harness {
				t.Fatalf("summary of %d bytes, harness %q", len(ev.Summary), ev.Harness)
			}
		}
	})
}

// realCall is one program run captured from the real Codex 0.169.0 (testdata/real).
type realCall struct {
	Argv  []string          `json:"argv"`
	Stdin string            `json:"stdin"`
	Env   map[string]string `json:"env"`
}

func readRealCall(t *testing.T, name string) (body []byte, meta Meta) {
	t.Helper()
	var c realCall
	if err := json.Unmarshal(fixture(t, filepath.Join("real", name)), &c); err != nil {
		t.Fatal(err)
	}
	body = []byte(c.Stdin)
	if c.Stdin == "" {
		body = []byte(c.Argv[len(c.Argv)-1]) // notify: the payload is the last argument
	}
	return body, Meta{Pane: c.Env["TMUX_PANE"], Tmux: c.Env["TMUX"], EmittedAt: emitted}
}

// TestParseRealCodex reads what the real Codex 0.169.0 ran Trail Boss with: the hooks and
// the turn's notify name the session and the pane; the hidden title thread's notify, which
// carries the same pane, is nobody's session.
func TestParseRealCodex(t *testing.T) {
	const session = "01a202c8-4e99-73e0-93ef-7671e081e4c1"
	// The turns the real payloads name: a prompt's hook and its turn's notify name the same
	// one, and only the notify ends it.
	const sayHi, runProbe = "01a202c8-50fc-7710-ba79-593d4ff2c01b", "01a202c8-894d-7ea2-a39d-c467f74c8987"
	tests := []struct {
		file     string
		kinds    []adapter.Kind
		summary  string
		turn     string
		endsTurn bool
	}{
		{"hook-SessionStart.1.json", []adapter.Kind{adapter.KindStart}, "", "", false},
		{"hook-UserPromptSubmit.1.json", []adapter.Kind{adapter.KindUnstuck}, "", sayHi, false},
		{"hook-PermissionRequest.1.json", []adapter.Kind{adapter.KindStuck}, "Bash: touch probe.txt && ls — Run ls outside the sandbox?", runProbe, false},
		{"hook-PostToolUse.1.json", []adapter.Kind{adapter.KindUnstuck}, "", runProbe, false},
		{"notify-agent-turn-complete.1.json", []adapter.Kind{adapter.KindUnstuck, adapter.KindStuck}, "hi from the fake model", sayHi, true},
		{"notify-agent-turn-complete.3.json", []adapter.Kind{adapter.KindUnstuck, adapter.KindStuck}, "ran it: probe.txt", runProbe, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, meta := readRealCall(t, tt.file)
			evs, err := Parse(body, meta)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(evs) != len(tt.kinds) {
				t.Fatalf("events %+v, want kinds %v", evs, tt.kinds)
			}
			for i, ev := range evs {
				if ev.Kind != tt.kinds[i] || ev.SessionID != session || ev.Pane != "%1" || ev.TmuxSocket != "/tmp/tmux-1000/default" {
					t.Errorf("event %d: %+v", i, ev)
				}
			}
			last := evs[len(evs)-1]
			if last.Summary != tt.summary {
				t.Errorf("summary %q, want %q", last.Summary, tt.summary)
			}
			if last.Turn != tt.turn || last.EndsTurn != tt.endsTurn || evs[0].Turn != tt.turn || (len(evs) > 1 && evs[0].EndsTurn) {
				t.Errorf("turns %+v, want %q ended %v by the last event only", evs, tt.turn, tt.endsTurn)
			}
		})
	}
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("notify-agent-turn-complete-title-thread.%d.json", i)
		body, meta := readRealCall(t, name)
		if evs, err := Parse(body, meta); !errors.Is(err, ErrTitleThread) || !errors.Is(err, adapter.ErrIgnored) || evs != nil {
			t.Errorf("%s: %+v, %v; want it ignored as the title thread", name, evs, err)
		}
	}
}

// TestSpoolFieldsHoldWhatNotifyReads: a notify field the adapter reads must be kept in the
// spool too.
func TestSpoolFieldsHoldWhatNotifyReads(t *testing.T) {
	typ := reflect.TypeOf(notifyPayload{})
	for i := range typ.NumField() {
		if tag := typ.Field(i).Tag.Get("json"); !slices.Contains(SpoolFields, tag) {
			t.Errorf("notify field %q is read but not kept in the spool", tag)
		}
	}
}
