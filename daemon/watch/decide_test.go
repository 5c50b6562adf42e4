package watch

import (
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
)

// Hand-made transcript lines, as Claude Code's transcript reader would return them.
func prompt(when time.Time) adapter.TranscriptLine {
	return adapter.TranscriptLine{Conversation: true, State: adapter.TailWorking, At: when, Prompt: true, Progress: true}
}

func text(when time.Time) adapter.TranscriptLine {
	return adapter.TranscriptLine{Conversation: true, State: adapter.TailWaiting, At: when, Progress: true, Text: "done?"}
}

func toolUse(when time.Time) adapter.TranscriptLine {
	return adapter.TranscriptLine{Conversation: true, State: adapter.TailToolPending, At: when, Progress: true}
}

func toolResult(when time.Time) adapter.TranscriptLine {
	return adapter.TranscriptLine{Conversation: true, State: adapter.TailWorking, At: when, Progress: true}
}

func interruptLine(when time.Time) adapter.TranscriptLine {
	return adapter.TranscriptLine{Conversation: true, State: adapter.TailWaiting, At: when, Interrupt: true, Detail: adapter.DetailInterrupted}
}

func TestDecide(t *testing.T) {
	stuck := queue.Session{ID: "S", Harness: "claude", Stuck: true, Since: at(10), LastEventAt: at(10)}
	idle := queue.Session{ID: "S", Harness: "claude", LastEventAt: at(10)}
	stuckOnPermission := stuck
	stuckOnPermission.Reason, stuckOnPermission.Summary = adapter.ReasonPermission, "Bash: touch x"
	var zero time.Time
	tests := []struct {
		name      string
		s         queue.Session
		lines     []adapter.TranscriptLine
		unstuckAt time.Time // zero: no unstuck event
		wait      *adapter.TranscriptLine
	}{
		{"stuck, then a prompt: unstuck at the prompt",
			stuck, []adapter.TranscriptLine{prompt(at(12))}, at(12), nil},
		{"stuck, tail still waiting, only assistant text after since (Stop lag): nothing",
			stuck, []adapter.TranscriptLine{text(at(10.2))}, zero, nil},
		{"stuck, tail still waiting, interrupt after since: nothing",
			stuck, []adapter.TranscriptLine{interruptLine(at(11))}, zero, nil},
		{"stuck on a permission, interrupt after since: relabelled refused, no unstuck",
			stuckOnPermission, []adapter.TranscriptLine{toolResult(at(11)), interruptLine(at(11.1))}, zero, nil},
		{"stuck on a permission, interrupt from before since: nothing",
			stuckOnPermission, []adapter.TranscriptLine{interruptLine(at(9))}, zero, nil},
		{"stuck, prompt then waiting again: unstuck at the prompt, and a new wait",
			stuck, []adapter.TranscriptLine{prompt(at(12)), toolUse(at(13)), toolResult(at(14)), text(at(15))}, at(12), ptr(text(at(15)))},
		{"stuck, tool pending after since: unstuck (permission granted)",
			stuck, []adapter.TranscriptLine{toolUse(at(11))}, at(11), nil},
		{"stuck, tool result after since: unstuck at the latest progress",
			stuck, []adapter.TranscriptLine{toolUse(at(11)), toolResult(at(12))}, at(12), nil},
		{"stuck, progress only from before since: nothing",
			stuck, []adapter.TranscriptLine{prompt(at(8)), toolUse(at(9))}, zero, nil},
		{"stuck, progress exactly at since: nothing",
			stuck, []adapter.TranscriptLine{toolUse(at(10))}, zero, nil},
		{"stuck, lines with zero timestamps: nothing",
			stuck, []adapter.TranscriptLine{prompt(zero), toolUse(zero), toolResult(zero)}, zero, nil},
		{"stuck, prompt and waiting tail with zero timestamps: nothing",
			stuck, []adapter.TranscriptLine{prompt(zero), text(zero)}, zero, nil},
		{"not stuck, waiting tail after the last event: wait",
			idle, []adapter.TranscriptLine{prompt(at(11)), text(at(12))}, zero, ptr(text(at(12)))},
		{"not stuck, interrupt after the last event: wait",
			idle, []adapter.TranscriptLine{toolUse(at(11)), interruptLine(at(12))}, zero, ptr(interruptLine(at(12)))},
		{"not stuck, waiting tail older than the last event: nothing",
			idle, []adapter.TranscriptLine{text(at(9))}, zero, nil},
		{"not stuck, waiting tail at the last event: nothing",
			idle, []adapter.TranscriptLine{text(at(10))}, zero, nil},
		{"not stuck, waiting tail with a zero timestamp: nothing",
			idle, []adapter.TranscriptLine{text(zero)}, zero, nil},
		{"not stuck, working tail: nothing",
			idle, []adapter.TranscriptLine{text(at(11)), toolUse(at(12))}, zero, nil},
		{"no conversation lines: nothing",
			stuck, []adapter.TranscriptLine{{At: at(20)}, {At: at(21), Progress: true}}, zero, nil},
		{"no lines: nothing", idle, nil, zero, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := decide(tt.s, nil, tt.lines)
			if tt.s.Reason == adapter.ReasonPermission && len(tt.lines) > 0 && tt.lines[len(tt.lines)-1].At.After(tt.s.Since) {
				want := liverule.Refused(tt.s, nil, tt.lines[len(tt.lines)-1].At)
				if len(v.events) != 1 || v.events[0] != want || v.wait != nil {
					t.Fatalf("events %+v wait %v, want only %+v", v.events, v.wait, want)
				}
				if want.Reason != adapter.ReasonStopped || want.Detail != liverule.DetailRefused ||
					want.Summary != "refused with Esc: Bash: touch x — waiting for your next message" {
					t.Fatalf("refused event %+v", want)
				}
				return
			}
			if tt.unstuckAt.IsZero() {
				if len(v.events) != 0 {
					t.Errorf("events %+v, want none", v.events)
				}
			} else {
				if len(v.events) != 1 {
					t.Fatalf("events %+v, want one unstuck", v.events)
				}
				ev := v.events[0]
				if ev.Kind != adapter.KindUnstuck || ev.SessionID != "S" || ev.Harness != "claude" || !ev.At.Equal(tt.unstuckAt) {
					t.Errorf("event %+v, want unstuck of S at %v", ev, tt.unstuckAt)
				}
				if err := ev.Validate(); err != nil {
					t.Errorf("the event would be refused: %v", err)
				}
			}
			switch {
			case tt.wait == nil && v.wait != nil:
				t.Errorf("wait %+v, want none", *v.wait)
			case tt.wait != nil && v.wait == nil:
				t.Errorf("no wait, want %+v", *tt.wait)
			case tt.wait != nil && *v.wait != *tt.wait:
				t.Errorf("wait %+v, want %+v", *v.wait, *tt.wait)
			}
		})
	}
}

func ptr(l adapter.TranscriptLine) *adapter.TranscriptLine { return &l }

// TestDecideGivesLateWords: a session its state file queued at its turn's end before the
// transcript had the reply takes the reply's words when they are written, in its place; one
// with words keeps them.
func TestDecideGivesLateWords(t *testing.T) {
	bare := queue.Session{ID: "S", Harness: "claude", Stuck: true, Reason: adapter.ReasonStopped, Since: at(10), LastEventAt: at(10)}
	v := decide(bare, nil, []adapter.TranscriptLine{text(at(9.9))})
	if len(v.events) != 1 || v.events[0].Kind != adapter.KindStuck || v.events[0].Summary == "" || !v.events[0].At.Equal(at(10)) {
		t.Fatalf("a bare stop: %+v", v)
	}
	said := bare
	said.Summary = "hi there"
	if v := decide(said, nil, []adapter.TranscriptLine{text(at(9.9))}); len(v.events) != 0 {
		t.Fatalf("a stop with words: %+v", v)
	}
	// Esc mid-turn: the state file says idle before the interrupt is written down, and the
	// partial reply may come first.
	for _, s := range []queue.Session{bare, said} {
		v = decide(s, nil, []adapter.TranscriptLine{interruptLine(at(10.1))})
		if len(v.events) != 1 || v.events[0].Detail != adapter.DetailInterrupted || v.events[0].Summary != "interrupted" {
			t.Fatalf("a stop (%q), then its interrupt: %+v", s.Summary, v)
		}
	}
}
