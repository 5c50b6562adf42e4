package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/trailboss/trailboss/daemon/wire"
)

// postOpenCode posts a payload of Trail Boss's OpenCode plugin as emit --opencode does when
// holding is on, and returns the daemon's answer.
func (s *promptServer) postOpenCode(t *testing.T, body string) wire.HookAck {
	t.Helper()
	code, b := s.request(t, http.MethodPost, "/v1/hooks/opencode", body,
		wire.HeaderPane, "%3", wire.HeaderTmux, testSocket+",1,0", wire.HeaderCanHold, "1")
	if code != http.StatusOK {
		t.Fatalf("hook: %d %s", code, b)
	}
	return decode[wire.HookAck](t, b)
}

// OpenCode's permission and question hold their records, whose subject is OpenCode's own
// request id; the question keeps its options. A turn's end never holds. The keyboard's
// reply withdraws the record, and the plugin's wait says so.
func TestOpenCodeAsksHoldTheirRecords(t *testing.T) {
	s := newPromptServer(t)
	if ack := s.postOpenCode(t, `{"type":"session.created","properties":{"sessionID":"ses_1"}}`); ack.Hold != nil {
		t.Fatalf("session.created was told to hold %s", ack.Hold.PromptID)
	}
	ack := s.postOpenCode(t, `{"type":"permission.asked","properties":{"id":"per_1","sessionID":"ses_1","permission":"bash","metadata":{"command":"touch x"}}}`)
	if ack.Hold == nil {
		t.Fatal("permission.asked was not told to hold")
	}
	_, b := s.request(t, http.MethodGet, "/v1/prompts/"+ack.Hold.PromptID+"/wait?timeout=1ms", "")
	if w := decode[wire.PromptWait](t, b); w.Subject != "per_1" || w.Status != wire.PromptPending {
		t.Fatalf("wait: %+v, want pending for per_1", w)
	}
	s.postOpenCode(t, `{"type":"permission.replied","properties":{"sessionID":"ses_1","requestID":"per_1","reply":"once"}}`)
	_, b = s.request(t, http.MethodGet, "/v1/prompts/"+ack.Hold.PromptID+"/wait?timeout=1ms", "")
	if w := decode[wire.PromptWait](t, b); w.Status != wire.PromptWithdrawn {
		t.Fatalf("after the keyboard's reply the wait says %+v, want withdrawn", w)
	}

	ack = s.postOpenCode(t, `{"type":"question.asked","properties":{"id":"que_1","sessionID":"ses_1","questions":[{"question":"Which colour?","options":[{"label":"Red"},{"label":"Blue"}]}]}}`)
	if ack.Hold == nil {
		t.Fatal("question.asked was not told to hold")
	}
	p, ok := s.engine.PendingPrompt("ses_1")
	if !ok || p.ID != ack.Hold.PromptID || len(p.Ask.Choices) != 2 || p.Ask.Choices[1].Label != "Blue" {
		t.Fatalf("the question's record: %+v (found %v), want its options", p, ok)
	}
	s.postOpenCode(t, `{"type":"question.rejected","properties":{"sessionID":"ses_1","requestID":"que_1"}}`)
	if ack := s.postOpenCode(t, `{"type":"session.idle","properties":{"sessionID":"ses_1"},"text":"ok"}`); ack.Hold != nil {
		t.Fatalf("session.idle was told to hold %s", ack.Hold.PromptID)
	}
}
