package liverule_test

import (
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
)

// Hand-made transcript lines, as a transcript reader would return them.
func text(when time.Time) adapter.TranscriptLine {
	return adapter.TranscriptLine{Conversation: true, State: adapter.TailWaiting, At: when, Progress: true, Text: "done?"}
}

func interruptLine(when time.Time) adapter.TranscriptLine {
	return adapter.TranscriptLine{Conversation: true, State: adapter.TailWaiting, At: when, Interrupt: true, Detail: adapter.DetailInterrupted}
}

func TestStuckFromTail(t *testing.T) {
	s := queue.Session{ID: "S", Harness: "claude"}
	ev := liverule.StuckFromTail(s, nil, text(at(3)))
	if ev.Kind != adapter.KindStuck || ev.Reason != adapter.ReasonStopped || ev.Summary != "done?" || !ev.At.Equal(at(3)) {
		t.Fatalf("from a text tail: %+v", ev)
	}
	ev = liverule.StuckFromTail(s, nil, interruptLine(at(4)))
	if ev.Detail != adapter.DetailInterrupted || ev.Summary != "interrupted" {
		t.Fatalf("from an interrupt: detail %q summary %q", ev.Detail, ev.Summary)
	}
	if err := ev.Validate(); err != nil {
		t.Fatal(err)
	}
	// Claude Code's interrupt marker right after a deny through Trail Boss (the refused
	// tool's result had moved the session on already): it says who denied it.
	denied := &queue.Prompt{SessionID: "S", Status: queue.PromptAnswered, Answer: "deny", Channel: "telegram",
		ClosedAt: at(3.9), Ask: adapter.Ask{Question: "Bash: touch x"}}
	ev = liverule.StuckFromTail(s, denied, interruptLine(at(4)))
	if ev.Detail != liverule.DetailDenied || ev.Summary != "denied from Telegram: Bash: touch x — waiting for your next message" {
		t.Fatalf("from an interrupt just after a deny: detail %q summary %q", ev.Detail, ev.Summary)
	}
	// Long after the deny, an interrupt is the person's own Esc.
	if ev = liverule.StuckFromTail(s, denied, interruptLine(at(30))); ev.Detail != adapter.DetailInterrupted {
		t.Fatalf("from an interrupt 26 s after a deny: detail %q summary %q", ev.Detail, ev.Summary)
	}
	allowed := *denied
	allowed.Answer = "allow"
	if ev = liverule.StuckFromTail(s, &allowed, interruptLine(at(4))); ev.Detail != adapter.DetailInterrupted {
		t.Fatalf("from an interrupt just after an allow: detail %q summary %q", ev.Detail, ev.Summary)
	}
}

// A dialog that went away with no hook saying how reads as what happened: denied from the
// channel whose "deny" answered its record of that moment, else Esc at the keyboard.
func TestRefusedSaysWhoDenied(t *testing.T) {
	s := queue.Session{ID: "S", Harness: "claude", Stuck: true, Reason: adapter.ReasonPermission,
		Summary: "Bash: touch x", Since: at(10), LastEventAt: at(10)}
	rec := func(status, answer, channel string, since time.Time) *queue.Prompt {
		return &queue.Prompt{ID: "p1", SessionID: "S", Status: status, Answer: answer, Channel: channel, Since: since}
	}
	const esc = "refused with Esc: Bash: touch x — waiting for your next message"
	for _, tt := range []struct {
		name    string
		rec     *queue.Prompt
		detail  string
		summary string
	}{
		{"no record: Esc", nil, liverule.DetailRefused, esc},
		{"still pending: Esc", rec(queue.PromptPending, "", "", at(10)), liverule.DetailRefused, esc},
		{"denied from the popup", rec(queue.PromptAnswered, "deny", "popup", at(10)), liverule.DetailDenied,
			"denied from the popup: Bash: touch x — waiting for your next message"},
		{"denied from Telegram", rec(queue.PromptAnswered, "deny", "telegram", at(10)), liverule.DetailDenied,
			"denied from Telegram: Bash: touch x — waiting for your next message"},
		{"denied by trailboss reply", rec(queue.PromptAnswered, "deny", "cli", at(10)), liverule.DetailDenied,
			"denied from trailboss reply: Bash: touch x — waiting for your next message"},
		{"allowed, then Esc", rec(queue.PromptAnswered, "allow", "popup", at(10)), liverule.DetailRefused, esc},
		{"a deny of an earlier moment", rec(queue.PromptAnswered, "deny", "popup", at(5)), liverule.DetailRefused, esc},
		{"withdrawn", rec(queue.PromptWithdrawn, "", "", at(10)), liverule.DetailRefused, esc},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev := liverule.Refused(s, tt.rec, at(12))
			if ev.Detail != tt.detail || ev.Summary != tt.summary || ev.Kind != adapter.KindStuck || ev.Reason != adapter.ReasonStopped {
				t.Fatalf("event %+v\nwant detail %q, summary %q", ev, tt.detail, tt.summary)
			}
			if err := ev.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
