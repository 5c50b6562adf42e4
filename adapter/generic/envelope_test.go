package generic

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

var now = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func TestParseValid(t *testing.T) {
	p, err := Parse([]byte(`{"v":1,"id":"e-1","type":"session.stuck","session":"build-42","pane":"%3",
		"tmux":"/tmp/tmux-0/default,77,0","harness":"ci","reason":"permission","summary":"deploy to prod?",
		"at":"2026-11-21T08:59:00Z","unknown":"ignored"}`), now)
	if err != nil {
		t.Fatal(err)
	}
	ev := p.Event
	if p.ID != "e-1" || ev.SessionID != "build-42" || ev.Kind != adapter.KindStuck || ev.Pane != "%3" ||
		ev.TmuxSocket != "/tmp/tmux-0/default" || ev.Harness != "ci" || ev.Reason != "permission" ||
		ev.Summary != "deploy to prod?" || !ev.At.Equal(now.Add(-time.Minute)) {
		t.Errorf("parsed %+v", p)
	}
}

func TestParseDefaults(t *testing.T) {
	p, err := Parse([]byte(`{"v":1,"id":"e","type":"session.stuck","session":"s","tmux":"/tmp/s","pane":"%1"}`), now)
	if err != nil {
		t.Fatal(err)
	}
	if p.Event.Reason != adapter.ReasonStopped || p.Event.Harness != "generic" || !p.Event.At.Equal(now) {
		t.Errorf("defaults: %+v", p.Event)
	}
	p, err = Parse([]byte(`{"v":1,"id":"e","type":"session.unstuck","session":"s","reason":"permission"}`), now)
	if err != nil || p.Event.Reason != "" || p.Event.Kind != adapter.KindUnstuck {
		t.Errorf("unstuck keeps no reason: %+v %v", p.Event, err)
	}
	p, _ = Parse([]byte(`{"v":1,"id":"e","type":"session.end","session":"s","at":"2999-01-01T00:00:00Z"}`), now)
	if !p.Event.At.Equal(now) {
		t.Errorf("a future at was believed: %v", p.Event.At)
	}
}

// Each validation rule, and that one error lists every problem at once.
func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, body, reason string
		problems           []string
	}{
		{"not JSON", `{"v":1,`, ReasonInvalidJSON, []string{"empty or truncated JSON"}},
		{"not an object", `[1]`, ReasonInvalidJSON, []string{"must be one JSON object, not a array"}},
		{"two values", `{"v":1} {}`, ReasonInvalidJSON, []string{"more than one JSON value"}},
		{"unknown version", `{"v":2,"type":"whatever"}`, ReasonUnsupportedVersion, []string{"v 2 is not supported: this daemon reads v 1"}},
		{"everything missing", `{}`, ReasonInvalidEnvelope, []string{"missing v", "missing id", "missing type", "missing session"}},
		{"empty strings", `{"v":1,"id":"","type":"","session":""}`, ReasonInvalidEnvelope, []string{"id is empty", "type is empty", "session is empty"}},
		{"every wrong type listed", `{"v":"one","id":7,"type":"session.stuck","session":["x"],"summary":{}}`, ReasonInvalidEnvelope,
			[]string{"v must be a number", "id must be a string", "session must be a string", "summary must be a string"}},
		{"unknown type", `{"v":1,"id":"e","type":"session.paused","session":"s"}`, ReasonInvalidEnvelope,
			[]string{`type "session.paused" is not one of session.end, session.start, session.stuck, session.unstuck`}},
		{"bad timestamp named", `{"v":1,"id":"e","type":"session.stuck","session":"s","at":"yesterday"}`, ReasonInvalidEnvelope,
			[]string{`at "yesterday" is not an RFC 3339 time`}},
		{"bad reason", `{"v":1,"id":"e","type":"session.stuck","session":"s","reason":"bored"}`, ReasonInvalidEnvelope,
			[]string{`reason "bored" is neither "permission" nor "stopped"`}},
		{"bad pane", `{"v":1,"id":"e","type":"session.stuck","session":"s","pane":"%1;kill-server","tmux":"/tmp/s"}`, ReasonInvalidEnvelope,
			[]string{"not a tmux pane id"}},
		{"relative socket", `{"v":1,"id":"e","type":"session.stuck","session":"s","pane":"%1","tmux":"sock"}`, ReasonInvalidEnvelope,
			[]string{"absolute socket path"}},
		{"control characters in session", `{"v":1,"id":"e","type":"session.stuck","session":"a\u001bb"}`, ReasonInvalidEnvelope,
			[]string{"control characters"}},
		{"several at once", `{"v":1,"type":"session.nap","session":"s","at":"noon"}`, ReasonInvalidEnvelope,
			[]string{"missing id", `type "session.nap"`, `at "noon"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.body), now)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, adapter.ErrInvalid) {
				t.Fatalf("err = %v, want a generic.Error that is ErrInvalid", err)
			}
			if e.Reason != tt.reason {
				t.Errorf("reason %q, want %q", e.Reason, tt.reason)
			}
			all := strings.Join(e.Problems, "; ")
			for _, want := range tt.problems {
				if !strings.Contains(all, want) {
					t.Errorf("problems %q do not say %q", all, want)
				}
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"v":1,"id":"e","type":"session.stuck","session":"s","pane":"%1","tmux":"/tmp/s,1,0"}`))
	f.Add([]byte(`{"v":2}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := Parse(body, now)
		if err != nil {
			return
		}
		if verr := p.Event.Validate(); verr != nil || p.ID == "" {
			t.Fatalf("Parse accepted an invalid event: %v %+v", verr, p)
		}
	})
}
