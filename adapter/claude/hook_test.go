package claude

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

var emitted = time.Date(2026, 11, 21, 9, 0, 0, 123456789, time.UTC)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseHookFixtures(t *testing.T) {
	meta := Meta{Pane: "%12", Tmux: "/tmp/tmux-1000/default,4242,0", EmittedAt: emitted}
	tests := []struct {
		file    string
		kind    adapter.Kind
		reason  string
		detail  string
		summary string // substring the summary must hold
		backup  bool
	}{
		{"SessionStart.json", adapter.KindStart, "", "startup", "", false},
		{"Stop.json", adapter.KindStuck, adapter.ReasonStopped, "", "Should I also apply it to the webhook client", false},
		{"Stop-no-text.json", adapter.KindStuck, adapter.ReasonStopped, "", "", false},
		{"StopFailure.json", adapter.KindStuck, adapter.ReasonStopped, "error", "overloaded_error: 529 Overloaded — Let me run the migration next.", false},
		{"PermissionRequest-Bash.json", adapter.KindStuck, adapter.ReasonPermission, "Bash", "Bash: rm -rf build/ && make release", false},
		{"PermissionRequest-Edit.json", adapter.KindStuck, adapter.ReasonPermission, "Edit", "Edit: /home/dev/src/shop/internal/pay/client.go", false},
		{"PreToolUse-AskUserQuestion.json", adapter.KindStuck, adapter.ReasonPermission, "question", "Which database should the cache use? [Redis / In-process LRU]", false},
		{"PreToolUse-ExitPlanMode.json", adapter.KindStuck, adapter.ReasonPermission, "plan", "plan: 1. Add retry wrapper 2. Cover it", false},
		{"Notification-permission_prompt.json", adapter.KindStuck, adapter.ReasonPermission, "notification", "needs your permission to use Bash", true},
		{"Notification-idle_prompt.json", adapter.KindStuck, adapter.ReasonStopped, "idle", "waiting for your input", true},
		{"UserPromptSubmit.json", adapter.KindUnstuck, "", "", "", false},
		{"PostToolUse.json", adapter.KindUnstuck, "", "", "", false},
		{"PostToolUseFailure.json", adapter.KindUnstuck, "", "", "", false},
		{"SessionEnd.json", adapter.KindEnd, "", "prompt_input_exit", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ev, err := ParseHook(fixture(t, tt.file), meta)
			if err != nil {
				t.Fatalf("ParseHook: %v", err)
			}
			if ev.Kind != tt.kind || ev.Reason != tt.reason || ev.Detail != tt.detail || ev.Backup != tt.backup {
				t.Errorf("got kind=%s reason=%q detail=%q backup=%v, want %s %q %q %v",
					ev.Kind, ev.Reason, ev.Detail, ev.Backup, tt.kind, tt.reason, tt.detail, tt.backup)
			}
			if !strings.Contains(ev.Summary, tt.summary) || (tt.summary == "" && ev.Summary != "") {
				t.Errorf("summary %q, want it to hold %q", ev.Summary, tt.summary)
			}
			if ev.SessionID != "5b1c2d3e-0f4a-4b5c-8d6e-7f8091a2b3c4" || ev.Pane != "%12" ||
				ev.TmuxSocket != "/tmp/tmux-1000/default" || !ev.At.Equal(emitted) ||
				ev.Cwd != "/home/dev/src/shop" || !strings.HasSuffix(ev.TranscriptPath, ".jsonl") || ev.Harness != Harness {
				t.Errorf("identity not carried over: %+v", ev)
			}
		})
	}
}

func TestParseHookRejects(t *testing.T) {
	meta := Meta{Pane: "%1", EmittedAt: emitted}
	tests := []struct {
		name, body string
		meta       Meta
		want       string // substring of the error
	}{
		{"malformed", `{"session_id":`, meta, "truncated"},
		{"not json", `hello`, meta, "malformed JSON"},
		{"empty", ``, meta, "empty or truncated"},
		{"array", `[1,2]`, meta, "must be one JSON object"},
		{"two values", `{"hook_event_name":"Stop","session_id":"a"} {}`, meta, "more than one"},
		{"wrong type", `{"session_id":42,"hook_event_name":"Stop"}`, meta, `"session_id" must be a string`},
		{"missing session", `{"hook_event_name":"Stop"}`, meta, "missing session_id"},
		{"missing event", `{"session_id":"a"}`, meta, "missing hook_event_name"},
		{"control chars in id", `{"session_id":"a\u001b[2J","hook_event_name":"Stop"}`, meta, "control characters"},
		{"bad pane", `{"session_id":"a","hook_event_name":"Stop"}`, Meta{Pane: "%1;kill-server", EmittedAt: emitted}, "not a tmux pane id"},
		{"pane overflow", `{"session_id":"a","hook_event_name":"Stop"}`, Meta{Pane: "%99999999999999999999", EmittedAt: emitted}, "not a tmux pane id"},
		{"bad TMUX", `{"session_id":"a","hook_event_name":"Stop"}`, Meta{Pane: "%1", Tmux: "garbage", EmittedAt: emitted}, "TMUX value"},
		{"relative socket", `{"session_id":"a","hook_event_name":"Stop"}`, Meta{Pane: "%1", Tmux: "sock,1,0", EmittedAt: emitted}, "absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseHook([]byte(tt.body), tt.meta)
			if !errors.Is(err, adapter.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestParseHookUnknownEventIsNotAnError(t *testing.T) {
	_, err := ParseHook([]byte(`{"session_id":"a","hook_event_name":"SubagentStop","extra":{"x":1}}`), Meta{EmittedAt: emitted})
	if !errors.Is(err, ErrUnknownEvent) || errors.Is(err, adapter.ErrInvalid) {
		t.Fatalf("err = %v, want ErrUnknownEvent only", err)
	}
}

func TestParseHookCleansSummary(t *testing.T) {
	body := `{"session_id":"a","hook_event_name":"Stop","last_assistant_message":"done\u001b[31m red\n\nnext? ` + strings.Repeat("x", 5000) + `"}`
	ev, err := ParseHook([]byte(body), Meta{EmittedAt: emitted})
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

func FuzzParseHook(f *testing.F) {
	entries, _ := os.ReadDir(filepath.Join("testdata", "hooks"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			b, _ := os.ReadFile(filepath.Join("testdata", "hooks", e.Name()))
			f.Add(b, "%3", "/tmp/s,1,0")
		}
	}
	f.Add([]byte(`{"session_id":"x","hook_event_name":"Stop","last_assistant_message":null}`), "", "")
	f.Fuzz(func(t *testing.T, body []byte, pane, tmux string) {
		ev, err := ParseHook(body, Meta{Pane: pane, Tmux: tmux, EmittedAt: emitted})
		if err != nil {
			return
		}
		if verr := ev.Validate(); verr != nil {
			t.Fatalf("ParseHook returned an invalid event: %v", verr)
		}
		if len(ev.Summary) > adapter.MaxSummaryLen {
			t.Fatalf("summary of %d bytes", len(ev.Summary))
		}
	})
}

// TestParseRealHooks reads the payloads the real Claude Code 2.1.197 sent
// (testdata/real/SOURCE.md). A question or a plan keeps its words through the
// PermissionRequest that follows its PreToolUse, and an API error says what the API said.
func TestParseRealHooks(t *testing.T) {
	meta := Meta{Pane: "%3", Tmux: "/tmp/tmux-1000/default,4242,0", EmittedAt: emitted}
	tests := []struct {
		file    string
		kind    adapter.Kind
		reason  string
		detail  string
		summary string // the whole summary
	}{
		{"SessionStart-startup.json", adapter.KindStart, "", "startup", ""},
		{"SessionStart-clear.json", adapter.KindStart, "", "clear", ""},
		{"UserPromptSubmit.json", adapter.KindUnstuck, "", "", ""},
		{"PreToolUse-Bash.json", adapter.KindTouch, "", "", ""},
		{"PermissionRequest-Bash.json", adapter.KindStuck, adapter.ReasonPermission, "Bash", "Bash: ls /tmp"},
		{"PermissionRequest-Write.json", adapter.KindStuck, adapter.ReasonPermission, "Write", "Write: /home/dev/work/hello.txt"},
		{"PreToolUse-AskUserQuestion.json", adapter.KindStuck, adapter.ReasonPermission, DetailQuestion, "Which color do you prefer? [Red / Blue]"},
		{"PermissionRequest-AskUserQuestion.json", adapter.KindStuck, adapter.ReasonPermission, DetailQuestion, "Which color do you prefer? [Red / Blue]"},
		{"PreToolUse-ExitPlanMode.json", adapter.KindStuck, adapter.ReasonPermission, DetailPlan, "plan: 1. Add a greeting file 2. Say hi"},
		{"PermissionRequest-ExitPlanMode.json", adapter.KindStuck, adapter.ReasonPermission, DetailPlan, "plan: 1. Add a greeting file 2. Say hi"},
		{"PostToolUse-Bash.json", adapter.KindUnstuck, "", "", ""},
		{"PostToolUseFailure-Bash.json", adapter.KindUnstuck, "", "", ""},
		{"Stop.json", adapter.KindStuck, adapter.ReasonStopped, "", ""},
		{"StopFailure.json", adapter.KindStuck, adapter.ReasonStopped, "error", "API Error: 400 fake: scripted failure"},
		{"SessionEnd-clear.json", adapter.KindEnd, "", "clear", ""},
		{"SessionEnd-prompt_input_exit.json", adapter.KindEnd, "", "prompt_input_exit", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "real", "hooks", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			ev, err := ParseHook(body, meta)
			if err != nil {
				t.Fatalf("ParseHook: %v", err)
			}
			if ev.Kind != tt.kind || ev.Reason != tt.reason || ev.Detail != tt.detail {
				t.Errorf("got kind=%s reason=%q detail=%q, want %s %q %q", ev.Kind, ev.Reason, ev.Detail, tt.kind, tt.reason, tt.detail)
			}
			if tt.summary != "" && ev.Summary != tt.summary {
				t.Errorf("summary %q, want %q", ev.Summary, tt.summary)
			}
		})
	}
}

// TestHoldable: of the decoded payload, only a PermissionRequest may hold (its dialog is on
// screen while its hook runs); a PreToolUse of the same question runs before it is drawn.
func TestHoldable(t *testing.T) {
	for body, want := range map[string]bool{
		`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`: true,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":{}}`:           false,
		`{"session_id":"s","hook_event_name":"Stop"}`:                                                               false,
	} {
		p, err := DecodeHook([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if p.Holdable() != want {
			t.Errorf("%s: Holdable %v, want %v", body, !want, want)
		}
	}
	if _, err := DecodeHook([]byte(`{"session_id":"s"}`)); !errors.Is(err, adapter.ErrInvalid) {
		t.Errorf("a payload naming no hook event: %v, want invalid", err)
	}
}

// ParseHook is DecodeHook, then the event it says: what the daemon does with one payload.
func ParseHook(body []byte, meta Meta) (adapter.Event, error) {
	p, err := DecodeHook(body)
	if err != nil {
		return adapter.Event{}, err
	}
	return p.event(meta)
}
