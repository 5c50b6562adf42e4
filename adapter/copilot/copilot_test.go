package copilot

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// captured is one line of testdata/real/hooks-camelcase.jsonl: a hook of the real Copilot
// CLI 1.0.102, its payload and environment as it ran (../shared/COPILOT.md).
type captured struct {
	Event   string            `json:"event"`
	Payload json.RawMessage   `json:"payload"`
	Env     map[string]string `json:"env"`
}

func readCaptured(t *testing.T) []captured {
	t.Helper()
	f, err := os.Open("testdata/real/hooks-camelcase.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []captured
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c captured
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func envelope(t *testing.T, env Envelope) []byte {
	t.Helper()
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseRealHooks: every hook the real Copilot ran says what it should, on the pane of
// its TMUX_PANE, with the session's events.jsonl as its transcript.
func TestParseRealHooks(t *testing.T) {
	want := map[string]adapter.Kind{
		SessionStart: adapter.KindStart, UserPromptSubmit: adapter.KindUnstuck, PermissionRequest: adapter.KindTouch,
		Notification: adapter.KindStuck, PostToolUse: adapter.KindUnstuck, PostToolUseFailure: adapter.KindUnstuck,
		AgentStop: adapter.KindStuck, SessionEnd: adapter.KindEnd,
	}
	seen := map[string]bool{}
	for _, c := range readCaptured(t) {
		if c.Event == "preToolUse" {
			continue // never registered
		}
		getenv := func(k string) string { return c.Env[k] }
		p, err := DecodePayload(c.Payload)
		if err != nil {
			t.Fatalf("%s: %v", c.Event, err)
		}
		meta := adapter.Meta{Pane: c.Env["TMUX_PANE"], Tmux: c.Env["TMUX"], EmittedAt: p.Time(time.Now())}
		evs, err := Parse(envelope(t, Envelope{Event: c.Event, Payload: c.Payload, Home: Home(getenv)}), meta)
		if err != nil {
			t.Fatalf("%s: %v", c.Event, err)
		}
		ev := evs[0]
		seen[c.Event] = true
		if ev.Kind != want[c.Event] || ev.Harness != "copilot" || ev.Pane != c.Env["TMUX_PANE"] {
			t.Errorf("%s: %+v", c.Event, ev)
		}
		if c.Env["TMUX"] != "" && ev.TmuxSocket != "/home/dev/tmux.sock" {
			t.Errorf("%s: socket %q", c.Event, ev.TmuxSocket)
		}
		if !strings.HasSuffix(ev.TranscriptPath, "/session-state/"+ev.SessionID+"/events.jsonl") {
			t.Errorf("%s: transcript %q", c.Event, ev.TranscriptPath)
		}
		if c.Event == Notification && (ev.Reason != adapter.ReasonPermission || ev.Ask == nil) {
			t.Errorf("notification: %+v", ev)
		}
		if c.Event == UserPromptSubmit && (!ev.Submitted || ev.By != adapter.ByHuman) {
			t.Errorf("prompt: %+v", ev)
		}
	}
	for ev := range want {
		if !seen[ev] {
			t.Errorf("the capture has no %s", ev)
		}
	}
}

// TestParsePermission: a notification permission_prompt is queued with its command, asked
// as allow or deny; a permissionRequest is queued only when its hook holds (Copilot shows
// no dialog then), with a subject naming the very call.
func TestParsePermission(t *testing.T) {
	meta := adapter.Meta{Pane: "%3", Tmux: "/tmp/s,1,0", EmittedAt: time.Unix(1, 0)}
	note := json.RawMessage(`{"sessionId":"s1","timestamp":1,"cwd":"/w","message":"Run command: touch x","title":"Permission needed","hook_event_name":"Notification","notification_type":"permission_prompt"}`)
	evs, err := Parse(envelope(t, Envelope{Event: Notification, Payload: note, Home: "/h"}), meta)
	if err != nil {
		t.Fatal(err)
	}
	if ev := evs[0]; ev.Kind != adapter.KindStuck || ev.Summary != "Run command: touch x" || ev.Ask.Kind != adapter.AskPermission ||
		ev.Ask.Question != "Run command: touch x" {
		t.Errorf("permission_prompt: %+v %+v", ev, ev.Ask)
	}
	req := json.RawMessage(`{"hookName":"permissionRequest","sessionId":"s1","timestamp":1,"cwd":"/w","toolName":"bash","toolInput":{"command":"touch x"},"permissionSuggestions":[]}`)
	evs, err = Parse(envelope(t, Envelope{Event: PermissionRequest, Payload: req}), meta)
	if err != nil || evs[0].Kind != adapter.KindTouch {
		t.Errorf("a permissionRequest not held: %+v, %v", evs, err)
	}
	body := envelope(t, Envelope{Event: PermissionRequest, Payload: req, CanHold: true})
	holdable := func(body []byte) bool {
		t.Helper()
		h, err := DecodeHook(body)
		if err != nil {
			t.Fatal(err)
		}
		return h.Holdable()
	}
	if !holdable(body) || holdable(envelope(t, Envelope{Event: PermissionRequest, Payload: req})) ||
		holdable(envelope(t, Envelope{Event: Notification, Payload: note, CanHold: true})) {
		t.Errorf("Holdable: only a permissionRequest whose hook holds")
	}
	evs, err = Parse(body, meta)
	if err != nil {
		t.Fatal(err)
	}
	ev := evs[0]
	if ev.Kind != adapter.KindStuck || ev.Reason != adapter.ReasonPermission || ev.Summary != "bash: touch x" ||
		ev.Ask.Question != "Run command: touch x" || ev.Ask.Subject != Subject("bash", json.RawMessage(`{"command":"touch x"}`)) {
		t.Errorf("a held permissionRequest: %+v %+v", ev, ev.Ask)
	}
	if Subject("bash", json.RawMessage(`{"command":"touch y"}`)) == ev.Ask.Subject {
		t.Errorf("two commands have one subject")
	}
}

// TestParseRefuses: an envelope without its event, a payload without a session, and a
// notification Trail Boss does not use.
func TestParseRefuses(t *testing.T) {
	meta := adapter.Meta{EmittedAt: time.Unix(1, 0)}
	for name, body := range map[string]string{
		"no event":   `{"payload":{"sessionId":"s1"}}`,
		"no session": `{"event":"agentStop","payload":{"timestamp":1}}`,
		"not json":   `{"event":`,
	} {
		if _, err := Parse([]byte(body), meta); !errors.Is(err, adapter.ErrInvalid) {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
	idle := `{"event":"notification","payload":{"sessionId":"s1","notification_type":"agent_idle"}}`
	if _, err := Parse([]byte(idle), meta); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("agent_idle: %v, want ignored", err)
	}
}

// TestTranscriptPath: a session id that could name another folder names no transcript.
func TestTranscriptPath(t *testing.T) {
	if got := TranscriptPath("/h", "abc"); got != "/h/session-state/abc/events.jsonl" {
		t.Errorf("got %q", got)
	}
	for _, bad := range []string{"../x", "..", "a/b", ""} {
		if got := TranscriptPath("/h", bad); got != "" {
			t.Errorf("session %q: %q", bad, got)
		}
	}
	if TranscriptPath("rel", "abc") != "" {
		t.Errorf("a relative home names a transcript")
	}
	env := map[string]string{"HOME": "/home/u", "COPILOT_HOOK_DIR": "/elsewhere/hooks"}
	if got := Home(func(k string) string { return env[k] }); got != "/elsewhere" {
		t.Errorf("Home from the hook's folder: %q", got)
	}
	env["COPILOT_HOME"] = "/ch"
	if got := Home(func(k string) string { return env[k] }); got != "/ch" {
		t.Errorf("Home from COPILOT_HOME: %q", got)
	}
}

// TestTranscriptLines: the real events.jsonl read line by line says prompts, work,
// approvals and the agentStop; an abort (Esc) waits, interrupted; a refused permission is
// not progress.
func TestTranscriptLines(t *testing.T) {
	b, err := os.ReadFile("testdata/real/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var r Transcripts
	count := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		l := r.Line([]byte(line))
		var rec struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(line), &rec)
		switch {
		case l.Prompt:
			count["prompt"]++
		case l.State == adapter.TailWaiting:
			count["waiting"]++
		case rec.Type == "permission.completed" && l.Progress:
			count["approved"]++
		}
	}
	if count["prompt"] != 4 || count["waiting"] != 4 || count["approved"] != 1 {
		t.Errorf("prompts, turn ends, approvals read: %v, want 4, 4, 1", count)
	}
	abort := r.Line([]byte(`{"type":"abort","data":{"reason":"user_initiated"},"timestamp":"2026-12-03T14:35:00Z"}`))
	if !abort.Conversation || abort.State != adapter.TailWaiting || !abort.Interrupt || abort.Detail != adapter.DetailInterrupted {
		t.Errorf("abort: %+v", abort)
	}
	denied := r.Line([]byte(`{"type":"permission.completed","data":{"result":{"kind":"denied-interactively-by-user"}},"timestamp":"2026-12-03T14:35:00Z"}`))
	if denied.Progress || denied.Conversation {
		t.Errorf("a refused permission: %+v", denied)
	}
}

// TestEnrich: an agentStop gets its turn's words, an elicitation_dialog ask_user's
// options, read from events.jsonl up to the hook's own line; without that line (not
// written yet) Enrich waits, then leaves the envelope as it was.
func TestEnrich(t *testing.T) {
	b, err := os.ReadFile("testdata/real/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	const session = "34d66df7-e02a-425b-8df1-e50eb37a6f18"
	path := TranscriptPath(home, session)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	// The first turn's agentStop (timestamp 1796308445624) and the third's (…486081).
	for ts, words := range map[float64]string{1796308445624: "FAKE: hello from the fake model.", 1796308486081: "FAKE: tool finished, all done."} {
		env := Enrich(ctx, Envelope{Event: AgentStop, Home: home}, Payload{SessionID: session, Timestamp: ts})
		if env.Words != words {
			t.Errorf("agentStop at %v: words %q, want %q", ts, env.Words, words)
		}
	}
	env := Enrich(ctx, Envelope{Event: Notification, Home: home},
		Payload{SessionID: session, Timestamp: 1796308499248, NoteType: noteElicitation})
	if env.Question == nil || env.Question.Message != "Red or blue?" || strings.Join(env.Question.Options, ",") != "red,blue" {
		t.Errorf("elicitation: %+v", env.Question)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	start := time.Now()
	env = Enrich(short, Envelope{Event: AgentStop, Home: home}, Payload{SessionID: session, Timestamp: 1})
	if env.Words != "" || time.Since(start) < 40*time.Millisecond {
		t.Errorf("a hook whose line is not written: %+v after %v", env, time.Since(start))
	}
}

// TestDecision: allow and deny are Copilot's behaviours; anything else decides nothing.
func TestDecision(t *testing.T) {
	if d, err := DecisionFor("allow"); err != nil || d.Behavior != "allow" {
		t.Errorf("allow: %+v %v", d, err)
	}
	if d, err := DecisionFor("deny"); err != nil || d.Behavior != "deny" || d.Message == "" {
		t.Errorf("deny: %+v %v", d, err)
	}
	if _, err := DecisionFor("1"); err == nil {
		t.Errorf("a menu key decided a permission")
	}
}

// Parse is DecodeHook, then Events: what the daemon does with one envelope.
func Parse(body []byte, meta adapter.Meta) ([]adapter.Event, error) {
	h, err := DecodeHook(body)
	if err != nil {
		return nil, err
	}
	return h.Events(meta)
}
