package client

import (
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// TestWhyNoPrompt: an item with no prompt to answer is refused with what happened to it,
// never a guess ("no pane, or expired") that may be neither.
func TestWhyNoPrompt(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	closed := func(status, channel, answer string) *wire.ClosedPrompt {
		return &wire.ClosedPrompt{ID: "p0123456789abcdef", Status: status, Channel: channel, Answer: answer,
			ClosedAt: now.Add(-40 * time.Second)}
	}
	for _, tc := range []struct {
		name string
		it   Item
		want string
	}{
		{"answered by key", Item{Pane: "%4", PromptClosed: closed(wire.PromptAnswered, "popup", "allow")},
			"its prompt was already answered (allow, from popup, 40s ago), yet it still waits: it may not have taken the answer"},
		{"answered with text", Item{Pane: "%4", PromptClosed: closed(wire.PromptAnswered, "telegram", "")},
			"its prompt was already answered (a typed reply, from telegram, 40s ago)"},
		{"expired", Item{Pane: "%4", PromptClosed: closed(wire.PromptExpired, "", "")},
			"its prompt expired unanswered 40s ago (prompt_ttl in config.toml)"},
		{"withdrawn", Item{Pane: "%4", PromptClosed: closed(wire.PromptWithdrawn, "", "")},
			"what it asks changed, and Trail Boss cannot tell what it asks now"},
		{"ended", Item{Pane: "%4", PromptClosed: closed(wire.PromptFailed, "", "")}, "its session has ended"},
		{"no pane", Item{Harness: "claude"}, "does not know its tmux pane"},
		{"run without a pane", Item{Harness: "pty"}, "cannot tell what it asks"},
		{"nothing to read", Item{Pane: "%4", Harness: "claude"}, "cannot tell what it asks"},
	} {
		if got := WhyNoPrompt(tc.it, now); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.name, got, tc.want)
		}
	}
}
