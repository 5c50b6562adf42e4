package claude

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// real2332 reads a file the real Claude Code 2.1.332 wrote (testdata/real-2.1.332/SOURCE.md).
func real2332(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata", "real-2.1.332"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// envPayload returns the payload of a whole hook log line (hooks/extra/*.env.json).
func envPayload(t *testing.T, name string) []byte {
	t.Helper()
	var line struct {
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(real2332(t, "hooks", "extra", name), &line); err != nil {
		t.Fatal(err)
	}
	return line.Payload
}

// TestAutoModeCallsRideAlong: in auto mode a permission dialog fires no PermissionRequest.
// A PreToolUse queues nothing, but carries the call as a permission for it would be asked;
// its PostToolUse ends that very call; a default-mode PreToolUse asks exactly what the
// PermissionRequest after it asks, so that the two are one prompt record.
func TestAutoModeCallsRideAlong(t *testing.T) {
	meta := Meta{Pane: "%0", Tmux: "/tmp/tmux-1000/default,3957,0", EmittedAt: emitted}
	parse := func(parts ...string) adapter.Event {
		t.Helper()
		ev, err := ParseHook(real2332(t, parts...), meta)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	pre := parse("hooks", "auto-mode", "PreToolUse-Bash.json")
	c := pre.Call
	if pre.Kind != adapter.KindTouch || c == nil || c.Done || c.ID != "toolu_e80ebeb42ef54ba69c928ddf" || c.Tool != "Bash" ||
		c.Mode != "auto" || c.Detail != "Bash" || c.Summary != "Bash: touch /tmp/scratch/touched-by-claude" {
		t.Fatalf("auto-mode PreToolUse: %+v call %+v", pre, c)
	}
	if c.Ask == nil || c.Ask.Kind != adapter.AskPermission || c.Ask.Question != c.Summary || c.Ask.From != adapter.AskFromHook ||
		len(c.Ask.Choices) != 2 || c.Ask.Choices[0].Key != "allow" || c.Ask.Choices[1].Key != "deny" || !strings.HasPrefix(c.Ask.Subject, "sha256:") {
		t.Fatalf("the call's ask: %+v", c.Ask)
	}
	write := parse("hooks", "auto-mode", "PreToolUse-Write.json").Call
	if write.Detail != "Write" || write.Summary != "Write: /tmp/scratch/hello.txt" {
		t.Fatalf("Write call: %+v", write)
	}
	post := parse("hooks", "auto-mode", "PostToolUse-Bash.json")
	if post.Kind != adapter.KindUnstuck || post.Call == nil || !post.Call.Done || post.Call.ID != c.ID {
		t.Fatalf("PostToolUse: %+v", post)
	}
	if fail := parse("hooks", "auto-mode", "PostToolUseFailure-Bash.json"); fail.Call == nil || !fail.Call.Done || fail.Call.ID != "toolu_2b3470e3b32643ac869a60e8" {
		t.Fatalf("PostToolUseFailure: %+v", fail)
	}
	// (The fixtures' first Bash PreToolUse is of a command that did not ask.)
	for _, tool := range []string{"Write", "AskUserQuestion", "ExitPlanMode"} {
		call := parse("hooks", "default-mode", "PreToolUse-"+tool+".json").Call
		req := parse("hooks", "default-mode", "PermissionRequest-"+tool+".json")
		if !call.Ask.Same(req.Ask) || call.Summary != req.Summary || call.Detail != req.Detail {
			t.Errorf("%s: PreToolUse asks %+v (%q), its PermissionRequest %+v (%q)", tool, call.Ask, call.Summary, req.Ask, req.Summary)
		}
	}
	// The offer is a dialog of its own: no record takes allow or deny for it.
	offer := parse("hooks", "auto-mode", "Notification-agent_needs_input.json")
	if offer.Kind != adapter.KindStuck || !offer.Backup || offer.Ask == nil || offer.Ask.Kind != adapter.AskNone {
		t.Fatalf("agent_needs_input: %+v", offer)
	}
}

// TestWhoSubmitted: a typed prompt is its operator's; the prompt Claude Code submits when a
// background task ends is not, nor one a source other than the user submitted.
func TestWhoSubmitted(t *testing.T) {
	meta := Meta{EmittedAt: emitted}
	typed, err := ParseHook(real2332(t, "hooks", "auto-mode", "UserPromptSubmit.json"), meta)
	if err != nil || typed.Kind != adapter.KindUnstuck || typed.By != adapter.ByHuman {
		t.Fatalf("typed prompt: %+v %v", typed, err)
	}
	woken, err := ParseHook(envPayload(t, "UserPromptSubmit-task-notification.env.json"), meta)
	if err != nil || woken.Kind != adapter.KindUnstuck || woken.By != adapter.ByOther {
		t.Fatalf("task notification: %+v %v", woken, err)
	}
	for source, want := range map[string]string{"user": adapter.ByHuman, "": adapter.ByHuman, "sdk": adapter.ByOther, "schedule": adapter.ByOther} {
		body := `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"go on","source":"` + source + `"}`
		ev, err := ParseHook([]byte(body), meta)
		if err != nil || ev.By != want {
			t.Errorf("source %q: by %q (%v), want %q", source, ev.By, err, want)
		}
	}
	bg, err := ParseHook(envPayload(t, "PreToolUse-Bash-run_in_background.env.json"), meta)
	if err != nil || bg.Kind != adapter.KindTouch || bg.Call == nil {
		t.Fatalf("a background command's PreToolUse: %+v %v", bg, err)
	}
}

// TestReadRealLiveStates2332: 2.1.332's state files, with where the process runs.
func TestReadRealLiveStates2332(t *testing.T) {
	tests := []struct {
		file, status, waitingFor, pane string
	}{
		{"idle-at-start.json", LiveIdle, "", "%0"},
		{"busy.json", LiveBusy, "", "%0"},
		{"waiting-permission.json", LiveWaiting, WaitingPermission, "%0"},
		{"waiting-end-offer.json", LiveWaiting, WaitingDialog, "%0"},
		{"waiting-question.json", LiveWaiting, WaitingInput, "%0"},
		{"waiting-plan.json", LiveWaiting, WaitingPermission, "%0"},
		{"shell-background-task.json", LiveShell, "", "%0"},
		{"no-tmux-pane-idle.json", LiveIdle, "", ""},
	}
	for _, tt := range tests {
		st, err := ReadLiveState(filepath.Join("testdata", "real-2.1.332", "sessions", "auto-mode", tt.file))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if st.Status != tt.status || st.WaitingFor != tt.waitingFor || st.TmuxPane() != tt.pane || st.Cwd != "/home/dev/work" ||
			st.Kind != "interactive" || st.ProcStart == 0 || st.At.Before(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("%s: %+v (pane %q)", tt.file, st, st.TmuxPane())
		}
	}
	if _, err := ReadLiveState(filepath.Join("testdata", "real-2.1.332", "sessions", "auto-mode", "created.json")); err == nil {
		t.Error("the first write, with no status yet, was taken")
	}
	for tmux, pane := range map[string]string{"rc:@0.%0": "%0", "a.b:@12.%345": "%345", "x:@1.%": "", "%3": "", "s:@1.%3;rm": "", "": ""} {
		if got := (LiveState{Tmux: tmux}).TmuxPane(); got != pane {
			t.Errorf("tmux %q: pane %q, want %q", tmux, got, pane)
		}
	}
}

// TestTranscriptPathOfLiveState: a transcript is found from the state file's folder, as
// Claude Code names it (the fixtures' /home/dev/work is -home-dev-work; observed on this
// machine: /tmp/i19live/m1/work is -tmp-i19live-m1-work).
func TestTranscriptPathOfLiveState(t *testing.T) {
	cfg := t.TempDir()
	if got := TranscriptPath("/home/dev/.claude", "/home/dev/work", "9daaa803"); got != "/home/dev/.claude/projects/-home-dev-work/9daaa803.jsonl" {
		t.Errorf("fixture path: %s", got)
	}
	if got := TranscriptPath(cfg, "/tmp/x_1.y z", "s1"); got != filepath.Join(cfg, "projects", "-tmp-x-1-y-z", "s1.jsonl") {
		t.Errorf("other characters: %s", got)
	}
	// A name Claude Code cut and hashed: the one folder holding the session's file.
	long := filepath.Join(cfg, "projects", "-cut-and-hashed-1234")
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(long, "s2.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := TranscriptPath(cfg, "/"+strings.Repeat("deep/", 60), "s2"); got != filepath.Join(long, "s2.jsonl") {
		t.Errorf("cut name: %s", got)
	}
	for _, bad := range [][2]string{{"relative/dir", "s"}, {"/w", "../s"}, {"/w", "a/b"}, {"/w", ""}} {
		if got := TranscriptPath(cfg, bad[0], bad[1]); got != "" {
			t.Errorf("cwd %q id %q: %s", bad[0], bad[1], got)
		}
	}
}

// TestCallsInARealTranscript: the call a dialog is about is in the transcript before the
// dialog is answered, and its result after.
func TestCallsInARealTranscript(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "real-2.1.332", "transcripts", "auto-mode-session-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	used, resulted, prompts, modes := map[string]string{}, map[string]bool{}, 0, map[string]int{}
	for sc.Scan() {
		c := Calls(sc.Bytes())
		for _, u := range c.Uses {
			used[u.ID] = u.Name + " " + string(u.Input)
		}
		for _, id := range c.Results {
			resulted[id] = true
		}
		if c.Prompt {
			prompts++
		}
		modes[c.Mode]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	touch := used["toolu_e80ebeb42ef54ba69c928ddf"]
	if !strings.HasPrefix(touch, "Bash ") || !strings.Contains(touch, "touch /tmp/scratch/touched-by-claude") || !resulted["toolu_e80ebeb42ef54ba69c928ddf"] {
		t.Fatalf("the touch call: %q, result %v", touch, resulted["toolu_e80ebeb42ef54ba69c928ddf"])
	}
	if prompts < 5 || modes["auto"] < 10 || modes["plan"] != 1 {
		t.Fatalf("%d prompts found, permission modes %v", prompts, modes)
	}
	// Who submitted each prompt: its operator typed all but the one a background task's
	// end submitted.
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	sc = bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	by := map[string]int{}
	for sc.Scan() {
		if l := ClassifyLine(sc.Bytes()); l.Prompt {
			by[l.By]++
		}
	}
	if by[adapter.ByOther] != 1 || by[adapter.ByHuman] < 10 || by[""] != 0 {
		t.Fatalf("who submitted the prompts: %v", by)
	}
	for line, want := range map[string]string{
		`{"type":"user","message":{"role":"user","content":"go on"}}`:                                           "",
		`{"type":"user","message":{"role":"user","content":"<task-notification>\n<status>completed</status>"}}`: adapter.ByOther,
		`{"type":"user","promptSource":"typed","message":{"role":"user","content":"go on"}}`:                    adapter.ByHuman,
		`{"type":"user","origin":{"kind":"scheduled"},"message":{"role":"user","content":"go on"}}`:             adapter.ByOther,
	} {
		if got := ClassifyLine([]byte(line)).By; got != want {
			t.Errorf("%s: by %q, want %q", line, got, want)
		}
	}
	if c := Calls([]byte(`{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","id":"x","name":"Bash","input":{}}]}}`)); c.Uses != nil || c.Results != nil || c.Prompt {
		t.Fatal("a subagent's call was taken for its parent's")
	}
}
