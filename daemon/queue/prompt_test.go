package queue

import (
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

func TestPromptAsk(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	stuck := Session{ID: "s", Harness: "claude", Pane: "%1", TmuxSocket: "/s", Stuck: true, Since: t0,
		Reason: adapter.ReasonPermission, Detail: "Bash", Summary: "Bash: make"}
	allow := adapter.PermissionAsk("Bash: make", adapter.AskFromHook)
	menu := &adapter.Ask{Kind: adapter.AskMenu, Question: "Which colour?", From: adapter.AskFromHook,
		Choices: []adapter.AskChoice{{Key: "1", Label: "Red"}, {Key: "2", Label: "Blue"}}}
	cur := &Prompt{SessionID: "s", Pane: "%1", TmuxSocket: "/s", Since: t0, Ask: *allow, Status: PromptPending}
	transcriptAllow := adapter.PermissionAsk("Bash: make", adapter.AskFromTranscript)
	fromTranscript := &Prompt{SessionID: "s", Pane: "%1", TmuxSocket: "/s", Since: t0, Ask: *transcriptAllow, Status: PromptPending}
	stopped := stuck
	stopped.Reason, stopped.Detail, stopped.Summary = adapter.ReasonStopped, "refused", "refused with Esc"
	later := stuck
	later.Since = t0.Add(time.Second)
	noPane := stuck
	noPane.Pane = ""
	pty := noPane
	pty.Harness = HarnessPTY
	question := stuck
	question.Detail = "question"
	answered := *cur
	answered.Status, answered.ClosedAt = PromptAnswered, t0.Add(2*time.Second)
	stuck.LastEventAt = t0.Add(time.Second)
	afterAnswer := stuck
	afterAnswer.LastEventAt = t0.Add(3 * time.Second)
	unstuck := stuck
	unstuck.Stuck = false
	offer := stuck
	offer.Detail, offer.Summary = "dialog", "auto mode can't check actions in this session: choose in the pane"
	skipped := offer
	skipped.Rank, skipped.Offset = 7, 1234
	earlier := answered
	earlier.Since = t0.Add(-time.Minute)

	for _, c := range []struct {
		name       string
		prev       *Session
		next       Session
		ask        *adapter.Ask
		cur        *Prompt
		want       *adapter.Ask
		wantChange bool
	}{
		{"newly stuck with an ask: that ask", nil, stuck, allow, nil, allow, true},
		{"newly stuck without one: derived from the reason", nil, stopped, nil, nil,
			&adapter.Ask{Kind: adapter.AskFreeText, Question: "refused with Esc", From: "derived"}, true},
		{"the same ask again keeps the record", &stuck, stuck, allow, cur, nil, false},
		{"the hook's own record replaces the same ask read from a transcript (a hook can hold it)", &stuck, stuck, allow, fromTranscript, allow, true},
		{"the same ask read from a transcript keeps the hook's record", &stuck, stuck, transcriptAllow, cur, nil, false},
		{"a repeat without an ask keeps the record", &stuck, stuck, nil, cur, nil, false},
		{"another ask for the same moment replaces it", &stuck, stuck, menu, cur, menu, true},
		{"new words (refused at the dialog) replace it", &stuck, stopped, nil, cur,
			&adapter.Ask{Kind: adapter.AskFreeText, Question: "refused with Esc", From: "derived"}, true},
		{"a new stuck moment makes a new record", &stuck, later, allow, cur, allow, true},
		{"an answered record of the same moment is not asked again", &stuck, stuck, nil, &answered, nil, false},
		{"the same question seen before its answer is the same wait", &stuck, stuck, allow, &answered, nil, false},
		{"the same question seen after its answer is asked anew", &stuck, afterAnswer, allow, &answered, allow, true},
		{"unstuck closes a pending record", &stuck, unstuck, nil, cur, nil, true},
		{"unstuck leaves a closed record alone", &stuck, unstuck, nil, &answered, nil, false},
		{"no pane: nothing to type into", nil, noPane, allow, nil, nil, false},
		{"trailboss run needs no pane", nil, pty, allow, nil, allow, true},
		{"a question without its options is answered in the pane", nil, question, nil, nil, nil, true},
		{"a dialog of several screens is answered in the pane", &stuck, stuck, &adapter.Ask{Kind: adapter.AskNone}, cur, nil, true},
		{"a dialog answered in the pane, its row written again (skipped, its transcript read): still no record",
			&offer, skipped, nil, &earlier, nil, false},
		{"the same with no record ever", &offer, skipped, nil, nil, nil, false},
		{"a wait with no record for want of a pane gets one with its pane", &noPane, stuck, nil, nil,
			adapter.PermissionAsk("Bash: make", "derived"), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, change := PromptAsk(c.prev, c.next, c.ask, c.cur)
			if change != c.wantChange || !got.Same(c.want) {
				t.Fatalf("PromptAsk = %+v, %v; want %+v, %v", got, change, c.want, c.wantChange)
			}
		})
	}
}
