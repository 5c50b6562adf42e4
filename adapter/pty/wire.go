package pty

import (
	"fmt"
	"strings"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/prompt"
)

// The "pty" harness's adapter: a supervisor's Report as it goes on the wire (Wire), and
// the event the daemon makes of it (Events), as a hook's adapter makes events of a hook's
// payload.

// MaxChoices caps a reported menu: a choice is one key.
const MaxChoices = 20

// Wire is r as the supervisor sends it (POST /v1/pty/report).
func (r Report) Wire() adapter.PTYReport {
	rep := adapter.PTYReport{SessionID: r.SessionID, Name: r.Name, Cwd: r.Cwd, PID: r.PID, At: r.At,
		State: string(r.State), ExitCode: r.ExitCode}
	if p := r.Prompt; p != nil {
		rep.Prompt = &adapter.PTYPromptReport{Kind: string(p.Kind), Question: p.Question, Choices: []adapter.WireChoice{},
			Excerpt: p.Excerpt, LowConfidence: p.LowConfidence, Secret: p.Secret}
		for _, ch := range p.Choices {
			rep.Prompt.Choices = append(rep.Prompt.Choices, adapter.WireChoice{Key: ch.Key, Label: ch.Label})
		}
	}
	return rep
}

// Events turns a supervisor's report into the event it says. meta is where the supervisor
// runs (its TMUX_PANE and TMUX) and when it reported (the Ingestor has bounded it to now).
func Events(rep adapter.PTYReport, meta adapter.Meta) ([]adapter.Event, error) {
	if !strings.HasPrefix(rep.SessionID, "pty-") || len(rep.SessionID) > 64 {
		return nil, fmt.Errorf("session_id %q is not a trailboss run session (pty-…)", adapter.CleanText(rep.SessionID, 40))
	}
	socket, err := adapter.SocketFromTmuxEnv(meta.Tmux)
	if err != nil {
		return nil, err
	}
	if meta.Pane != "" && !adapter.ValidPane(meta.Pane) {
		return nil, fmt.Errorf("pane %q is not a tmux pane id", adapter.CleanText(meta.Pane, 20))
	}
	name := adapter.CleanText(rep.Name, 80)
	ev := adapter.Event{Harness: adapter.HarnessPTY, SessionID: rep.SessionID, Pane: meta.Pane, TmuxSocket: socket,
		Cwd: adapter.CleanText(rep.Cwd, adapter.MaxPathLen), At: meta.EmittedAt}
	switch rep.State {
	case adapter.PTYStart:
		ev.Kind = adapter.KindStart
	case adapter.PTYWorking:
		ev.Kind = adapter.KindUnstuck
	case adapter.PTYExit:
		ev.Kind, ev.Detail = adapter.KindEnd, fmt.Sprintf("exit %d", rep.ExitCode)
	case adapter.PTYPrompt:
		ask, err := askOf(rep.Prompt)
		if err != nil {
			return nil, err
		}
		what := ask.Question
		if what == "" {
			what = adapter.CleanText(rep.Prompt.Excerpt, 300)
		}
		summary := what
		if name != "" {
			summary = name + ": " + what
		}
		reason, detail := adapter.ReasonPermission, ask.Kind
		if ask.Kind == adapter.AskFreeText {
			reason, detail = adapter.ReasonStopped, "input"
		}
		if rep.Prompt.LowConfidence {
			detail = "unsure"
		}
		ev.Stuck(reason, detail, summary)
		ev.Ask = ask
	default:
		return nil, fmt.Errorf("state %q is not start, prompt, working or exit", adapter.CleanText(rep.State, 20))
	}
	ev, err = adapter.Finish(ev, true, rep.State, nil)
	if err != nil {
		return nil, err
	}
	return []adapter.Event{ev}, nil
}

// askOf is the Ask of a reported prompt, which a supervisor (perhaps another version of
// trailboss run) read with the classifier and sent: checked again here, for the daemon
// takes no one's word for what reaches a terminal.
func askOf(p *adapter.PTYPromptReport) (*adapter.Ask, error) {
	if p == nil {
		return nil, fmt.Errorf("state prompt needs a prompt")
	}
	// A supervisor that says a prompt is secret is taken at its word whatever the kind: it
	// read the child's terminal hiding what is typed, and a secret only takes answers away.
	ask := &adapter.Ask{Kind: p.Kind, Question: adapter.CleanText(p.Question, 300), From: adapter.AskFromPTY, Secret: p.Secret}
	switch p.Kind {
	case adapter.AskYesNo, adapter.AskMenu, adapter.AskPressEnter:
		if len(p.Choices) == 0 || len(p.Choices) > MaxChoices {
			return nil, fmt.Errorf("a %s prompt needs 1 to %d choices", p.Kind, MaxChoices)
		}
	case adapter.AskFreeText:
		if len(p.Choices) > 0 {
			return nil, fmt.Errorf("a free_text prompt has no choices")
		}
		// The supervisor says so; the question is read here too, so that a supervisor that
		// does not say (an older trailboss run) still has its password prompts kept secret.
		ask.Secret = ask.Secret || prompt.Classify(ask.Question).Secret
	default:
		return nil, fmt.Errorf("prompt kind %q is not yes_no, choice, press_enter or free_text", adapter.CleanText(p.Kind, 20))
	}
	for _, c := range p.Choices {
		key := strings.TrimSpace(c.Key)
		if key == "" || len(key) > 16 || strings.ContainsFunc(key, func(r rune) bool { return r < ' ' && r != '\r' }) {
			return nil, fmt.Errorf("choice key %q is not a short printable key", adapter.CleanText(c.Key, 20))
		}
		ask.Choices = append(ask.Choices, adapter.AskChoice{Key: key, Label: adapter.CleanText(c.Label, 200)})
	}
	return ask, nil
}
