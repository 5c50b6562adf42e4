package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/wire"
)

// postHolding posts a PermissionRequest-like hook payload as a hook that can hold, and
// returns the daemon's answer.
func (s *promptServer) postHolding(t *testing.T, body string) wire.HookAck {
	t.Helper()
	code, b := s.request(t, http.MethodPost, "/v1/hooks/claude", body,
		wire.HeaderPane, "%3", wire.HeaderTmux, testSocket+",1,0", wire.HeaderCanHold, "1")
	if code != http.StatusOK {
		t.Fatalf("hook: %d %s", code, b)
	}
	return decode[wire.HookAck](t, b)
}

// One record, one hook: the same tool call asked twice (Claude Code running two identical
// calls at once) opens one record, and only the first hook holds it; the second's dialog
// is left to the keyboard, so that one answer never decides both.
func TestOnlyOneHookHoldsARecord(t *testing.T) {
	s := newPromptServer(t)
	first := s.postHolding(t, hookBody("s1", "PermissionRequest", permissionTouch))
	second := s.postHolding(t, hookBody("s1", "PermissionRequest", permissionTouch))
	if first.Hold == nil {
		t.Fatal("the first PermissionRequest was not told to hold")
	}
	if second.Hold != nil {
		t.Fatalf("the second PermissionRequest was told to hold %s too (the first holds %s)", second.Hold.PromptID, first.Hold.PromptID)
	}
}

// A question's PermissionRequest comes 30–150 ms after its PreToolUse, which opened the
// record: it is the same wait, and its hook holds that record. The wait says what it asks.
func TestQuestionsPermissionHoldsThePreToolUsesRecord(t *testing.T) {
	s := newPromptServer(t)
	const input = `{"questions":[{"question":"Which colour?","options":[{"label":"Red"},{"label":"Blue"}]}]}`
	tool := `"tool_name":"AskUserQuestion","tool_input":` + input
	if ack := s.postHolding(t, hookBody("s1", "PreToolUse", tool, `"tool_use_id":"t1"`)); ack.Hold != nil {
		t.Fatalf("a PreToolUse was told to hold %s", ack.Hold.PromptID)
	}
	opened, ok := s.engine.PendingPrompt("s1")
	if !ok {
		t.Fatal("the PreToolUse of a question opened no record")
	}
	ack := s.postHolding(t, hookBody("s1", "PermissionRequest", tool))
	if ack.Hold == nil || ack.Hold.PromptID != opened.ID {
		t.Fatalf("the question's PermissionRequest holds %+v, want the PreToolUse's record %s", ack.Hold, opened.ID)
	}
	_, b := s.request(t, http.MethodGet, "/v1/prompts/"+opened.ID+"/wait?timeout=1ms", "")
	if got, want := decode[wire.PromptWait](t, b).Subject, claudeSubject("AskUserQuestion", json.RawMessage(input)); got != want {
		t.Fatalf("the wait says the record asks about %q, want %q", got, want)
	}
}

// claudeSubject is what a Claude Code call of tool with input asks about: the Subject of its
// pending call, as Claude Code's transcript reader (harnesses.go) makes it, which its
// PermissionRequest's hook says too. (The daemon's own tests have the same helper.)
func claudeSubject(tool string, input json.RawMessage) string {
	return daemon.TranscriptReaders()[adapter.HarnessClaude].PendingCall("", tool, "", input).Ask.Subject
}
