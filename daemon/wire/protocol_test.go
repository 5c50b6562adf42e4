package wire

import (
	"encoding/json"
	"testing"
	"time"
)

// The typed answers are written exactly as the daemon wrote its maps before them (keys
// in sorted order), so that a client of an older release reads them the same.
func TestAnswersKeepTheirBytes(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		v    any
		want string
	}{
		{HookAck{OK: true}, `{"changed":false,"ok":true}`},
		{HookAck{OK: true, Changed: true, Ignored: "subagent stop", Hold: &Hold{PromptID: "p1", ExpiresAt: at}},
			`{"changed":true,"hold":{"prompt_id":"p1","expires_at":"2026-01-02T03:04:05Z"},"ignored":"subagent stop","ok":true}`},
		{EventAck{OK: true, Duplicate: true}, `{"changed":false,"duplicate":true,"ok":true}`},
		{EnvelopeRefused{Error: "e", Reason: "r", Problems: []string{"p"}}, `{"error":"e","problems":["p"],"reason":"r"}`},
		{Health{OK: true, Version: "v1"}, `{"ok":true,"version":"v1"}`},
		{OK{OK: true}, `{"ok":true}`},
		{Unwatched{OK: true, WasWatched: true}, `{"ok":true,"was_watched":true}`},
		{PTYWrittenAck{OK: true, Expected: true}, `{"expected":true,"ok":true}`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%T: %s, want %s", tc.v, b, tc.want)
		}
	}
}

func TestPromptRoute(t *testing.T) {
	if got := PromptRoute(RouteAnswer, "p0123456789abcdef"); got != "/v1/prompts/p0123456789abcdef/answer" {
		t.Errorf("answer route %q", got)
	}
	if got := PromptRoute(RouteWait, "a/b"); got != "/v1/prompts/a%2Fb/wait" {
		t.Errorf("wait route %q", got)
	}
	if got := HookRoute("claude"); got != "/v1/hooks/claude" {
		t.Errorf("hook route %q", got)
	}
}
