package pty

import (
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// A password prompt reported by trailboss run makes a secret record, whether the
// supervisor says so or (an older one) does not; other text prompts are not secret unless
// the supervisor says so (it saw the child's terminal hide what is typed), whatever their
// kind.
func TestPTYPasswordPromptIsSecret(t *testing.T) {
	for _, tt := range []struct {
		rep  adapter.PTYPromptReport
		want bool
	}{
		{adapter.PTYPromptReport{Kind: adapter.AskFreeText, Question: "[sudo] password for deploy:", Secret: true}, true},
		{adapter.PTYPromptReport{Kind: adapter.AskFreeText, Question: "[sudo] password for deploy:"}, true},
		{adapter.PTYPromptReport{Kind: adapter.AskFreeText, Question: "Enter a commit message:"}, false},
		{adapter.PTYPromptReport{Kind: adapter.AskFreeText, Question: "DB_PASS?", Secret: true}, true},
		{adapter.PTYPromptReport{Kind: adapter.AskYesNo, Question: "Continue? (y/n)", Secret: true,
			Choices: []adapter.WireChoice{{Key: "y", Label: "Yes"}, {Key: "n", Label: "No"}}}, true},
		{adapter.PTYPromptReport{Kind: adapter.AskYesNo, Question: "Continue? (y/n)",
			Choices: []adapter.WireChoice{{Key: "y", Label: "Yes"}, {Key: "n", Label: "No"}}}, false},
	} {
		ask, err := askOf(&tt.rep)
		if err != nil {
			t.Fatal(err)
		}
		if ask.Secret != tt.want {
			t.Errorf("%+v: secret %v, want %v", tt.rep, ask.Secret, tt.want)
		}
	}
}

// What the supervisor reports is the event the daemon makes of it: a prompt read off the
// child's screen becomes a stuck session asking the same, in the classifier's words.
func TestReportRoundTrip(t *testing.T) {
	d := detect([]byte("Overwrite config.yaml? (y/n) "))
	if d.prompt == nil {
		t.Fatal("no prompt detected")
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rep := Report{SessionID: "pty-abc", Name: "deploy", State: StatePrompt, Prompt: d.prompt}
	evs, err := Events(rep.Wire(), adapter.Meta{Pane: "%3", Tmux: "/tmp/tmux-1/default,1,0", EmittedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	ev := evs[0]
	if ev.Kind != adapter.KindStuck || ev.Harness != adapter.HarnessPTY || ev.Pane != "%3" || !ev.At.Equal(at) ||
		ev.Summary != "deploy: "+d.prompt.Question {
		t.Errorf("event %+v", ev)
	}
	if ev.Ask == nil || ev.Ask.Kind != adapter.AskYesNo || ev.Ask.From != adapter.AskFromPTY || len(ev.Ask.Choices) != len(d.prompt.Choices) {
		t.Errorf("ask %+v, want the yes/no prompt %+v", ev.Ask, d.prompt)
	}
	if _, err := Events(Report{SessionID: "abc", State: StateStart}.Wire(), adapter.Meta{Tmux: "/tmp/tmux-1/default,1,0"}); err == nil {
		t.Error("a session id without pty- was taken")
	}
}
