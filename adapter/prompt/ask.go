package prompt

import (
	"strconv"

	"github.com/trailboss/trailboss/adapter"
)

// KeyEnterName is the choice key of a press-enter prompt in an Ask: a name a person can
// type, where Choice.Key is the carriage return itself.
const KeyEnterName = adapter.ChoiceEnter

// AskOf is the Ask that r puts to the operator, or nil when r is no prompt (Unknown,
// Busy). An agent's approval dialog (a permission, an edit, a plan) is a permission:
// allow or deny, whatever its menu numbers them or in whatever order it lists them;
// another menu keeps its own keys, and the options of an unnumbered one are numbered 1, 2,
// … in screen order (a name for the option: delivery moves the highlight to the option of
// that label, and types no digit). A prompt for a password or the like (r.Secret) is a
// Secret free-text Ask: answered at the keyboard only.
func AskOf(r Result, from string) *adapter.Ask {
	if r.Kind == MultipleChoice {
		switch r.Screen {
		case ScreenPermission, ScreenEdit, ScreenPlan, ScreenTrust:
			q := r.Question
			if r.Command != "" {
				q = r.Command
			}
			return adapter.PermissionAsk(q, from)
		}
	}
	return askOf(r, from)
}

// KeyedAskOf is the Ask that r puts to an operator whose answer is typed as a key, as
// trailboss run's supervisor writes it to its child: every menu, an agent's approval
// dialog too, keeps the keys its screen numbers it with, and an unnumbered menu, which only
// moving its highlight answers, is no Ask (nil), as no prompt is.
func KeyedAskOf(r Result, from string) *adapter.Ask {
	if r.Kind == MultipleChoice && (len(r.Choices) == 0 || r.Choices[0].Key == "") {
		return nil
	}
	return askOf(r, from)
}

// askOf is AskOf with a menu's keys as its screen gives them (or numbered 1, 2, …).
func askOf(r Result, from string) *adapter.Ask {
	switch r.Kind {
	case YesNo:
		return &adapter.Ask{Kind: adapter.AskYesNo, Question: r.Question, From: from, Choices: askChoices(r.Choices)}
	case PressEnter:
		return &adapter.Ask{Kind: adapter.AskPressEnter, Question: r.Question, From: from,
			Choices: []adapter.AskChoice{{Key: KeyEnterName, Label: "Press Enter"}}}
	case MultipleChoice:
		return &adapter.Ask{Kind: adapter.AskMenu, Question: r.Question, From: from, Choices: askChoices(r.Choices)}
	case FreeText:
		return &adapter.Ask{Kind: adapter.AskFreeText, Question: r.Question, From: from, Secret: r.Secret}
	}
	return nil
}

func askChoices(cs []Choice) []adapter.AskChoice {
	out := make([]adapter.AskChoice, 0, len(cs))
	for i, c := range cs {
		key := c.Key
		switch key {
		case KeyEnter:
			key = KeyEnterName
		case "":
			key = strconv.Itoa(i + 1)
		}
		out = append(out, adapter.AskChoice{Key: key, Label: c.Label})
	}
	return out
}
