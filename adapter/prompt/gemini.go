package prompt

import (
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// Gemini CLI's dialogs, as its terminal UI (0.61.0) draws them in a box in place of its
// input box (../shared/fixtures/real/gemini-0.61.0/screen-06-permission.txt, -08-ask-user):
//
//	╭──────────────────────────────────────────╮
//	│ ? Shell  touch x                         │  the tool and its command
//	│ ╭──────────────────────────────────────╮ │
//	│ │ touch x                              │ │  the command, whole (maybe on several lines)
//	│ ╰──────────────────────────────────────╯ │
//	│ Allow execution of [Shell]?              │  the question
//	│ Redirection detected. To auto-accept, …  │  (a note, sometimes)
//	│                                          │
//	│ ● 1. Allow once                          │  the options; ● marks the highlighted one
//	│   2. Allow for this session              │
//	│   3. No, suggest changes (esc)           │
//	╰──────────────────────────────────────────╯
//
// and a question of its ask_user tool:
//
//	│ Answer Questions                                   │
//	│ Red or blue?                                       │  the question
//	│ ● 1.  red                                          │  the options, each maybe with
//	│       warm                                         │  its description below it
//	│   2.  blue                                         │
//	│       cool                                         │
//	│   3.  Enter a custom value                         │  not a choice: opens a text box
//	│ Enter to select · ↑/↓ to navigate · Esc to cancel  │
//
// A digit picks its option at once, with no Enter (seen against the real CLI).

// HarnessGemini names Gemini CLI's screens in a Result.
const HarnessGemini = adapter.HarnessGemini

// geminiHighlight marks the highlighted option of a Gemini menu.
const geminiHighlight = "●"

// geminiReach is how many lines above its options a dialog's question may be.
const geminiReach = 30

// geminiDialog returns Gemini's permission dialog or question when one ends ls: its
// options are the last content of the screen (a question's footer below them), one of them
// highlighted with ●.
func geminiDialog(ls []line) (Result, bool) {
	end := len(ls) - 1
	for end >= 0 && !ls[end].content() {
		end--
	}
	if end < 0 {
		return Result{}, false
	}
	question := strings.Contains(ls[end].sq, "entertoselect·↑/↓tonavigate·esctocancel")
	if question {
		end--
	}
	choices, first, highlight := geminiOptions(ls, end)
	if first < 0 || highlight == 0 {
		return Result{}, false
	}
	if question {
		return geminiQuestion(ls, first, choices, highlight)
	}
	return geminiPermission(ls, first, choices, highlight)
}

// geminiOptions reads the menu whose last line (an option, or an option's description) is
// ls[end] or above it: the options numbered from 1, the line of the first, and the position
// of the highlighted one (0: none). first is -1 when there is no such menu.
func geminiOptions(ls []line, end int) (choices []Choice, first, highlight int) {
	first = -1
	descriptions := 0
	for i := end; i >= 0 && i > end-geminiReach; i-- {
		l := ls[i]
		if !l.content() {
			continue
		}
		text, marked := strings.CutPrefix(l.text, geminiHighlight+" ")
		n, lbl, ok := numbered(text)
		if !ok {
			if descriptions++; descriptions > 1 || len(choices) > 0 && choices[0].Key == "1" {
				break
			}
			continue
		}
		descriptions = 0
		if len(choices) > 0 && choices[0].Key != itoa(n+1) {
			return nil, -1, 0
		}
		choices = append([]Choice{{Key: itoa(n), Label: lbl}}, choices...)
		if marked {
			highlight = n
		}
		if n == 1 {
			first = i
			break
		}
	}
	if first < 0 || len(choices) < 2 {
		return nil, -1, 0
	}
	return choices, first, highlight
}

func itoa(n int) string {
	if n >= 0 && n < 10 {
		return string(rune('0' + n))
	}
	return ""
}

// geminiPermission reads the approval whose options start at ls[first]: "Allow execution
// of [Shell]?" above them, and the command in the inner box above that.
func geminiPermission(ls []line, first int, choices []Choice, highlight int) (Result, bool) {
	q := -1
	for i := first - 1; i >= 0 && i >= first-geminiReach; i-- {
		if strings.HasPrefix(ls[i].lower, "allow execution of") && strings.HasSuffix(ls[i].text, "?") {
			q = i
			break
		}
	}
	if q < 0 {
		return Result{}, false
	}
	res := Result{Kind: MultipleChoice, Confidence: 0.95, Harness: HarnessGemini, Screen: ScreenPermission,
		Question: question(ls[q].text), Choices: choices, Default: choices[0], Highlight: highlight}
	// The inner box: its bottom border just above the question, its top further up.
	bottom := q - 1
	for bottom >= 0 && ls[bottom].blank() {
		bottom--
	}
	if bottom >= 0 && ls[bottom].rule == ruleBottom {
		var cmd []string
		for i := bottom - 1; i >= 0 && i >= bottom-geminiReach; i-- {
			if ls[i].rule == ruleTop {
				res.Command = question(cmd...)
				break
			}
			cmd = append([]string{ls[i].text}, cmd...)
		}
	}
	return res, true
}

// geminiQuestion reads the question whose options start at ls[first]: the line above them
// is the question, under "Answer Questions". "Enter a custom value" is not a choice.
func geminiQuestion(ls []line, first int, choices []Choice, highlight int) (Result, bool) {
	q := -1
	for i := first - 1; i >= 0 && i >= first-geminiReach; i-- {
		if ls[i].content() {
			q = i
			break
		}
	}
	if q < 0 {
		return Result{}, false
	}
	heading := false
	for i := q - 1; i >= 0 && i >= q-4; i-- {
		if ls[i].lower == "answer questions" {
			heading = true
		}
	}
	if !heading {
		return Result{}, false
	}
	if last := choices[len(choices)-1]; strings.EqualFold(last.Label, "Enter a custom value") {
		choices = choices[:len(choices)-1]
		if highlight > len(choices) {
			highlight = 0
		}
	}
	return Result{Kind: MultipleChoice, Confidence: 0.9, Harness: HarnessGemini, Screen: ScreenQuestion,
		Question: question(ls[q].text), Choices: choices, Default: choices[0], Highlight: highlight}, true
}
