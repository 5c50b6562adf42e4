package prompt

import (
	"strconv"
	"strings"
)

// GitHub Copilot CLI's dialogs, as 1.0.102 draws them (../shared/COPILOT.md). Its
// permission dialog, a box titled with the tool call's description:
//
//	│ write a file                                   │   the title
//	│ ╭────────────────────────────────────────────╮ │
//	│ │ echo hi > out.txt                          │ │   the command
//	│ ╰────────────────────────────────────────────╯ │
//	│ Do you want to run this command?               │
//	│ ❯ 1. Yes                                       │
//	│   2. Yes, and don't ask again for `echo` …     │   (only for some commands)
//	│   3. No, and tell Copilot what to do differently (Esc to stop)
//	│ ↑/↓ to navigate · enter to select · esc to cancel │
//
// a digit picks its option at once. And ask_user's question, under a rule:
//
//	Copilot needs information.
//	Red or blue?
//
//	Color:
//	❯ red
//	  blue
//	  Other (type your answer)
//
//	↑/↓ select · enter accept · ctrl+d decline · esc cancel
//
// whose options are unnumbered: one is chosen by moving the highlight (❯) onto it.

// Footers of Copilot's dialogs, squeezed of white space.
const (
	copilotPermissionFoot = "↑/↓tonavigate·entertoselect·esctocancel"
	copilotQuestionFoot   = "↑/↓select·enteraccept·ctrl+ddecline·esccancel"
	copilotQuestionTitle  = "Copilot needs information."
	copilotOther          = "Other (type your answer)"
)

// copilotReach is how many lines above its footer a dialog's question may be.
const copilotReach = 30

// copilotDialog returns Copilot's permission dialog or question when one ends ls.
func copilotDialog(ls []line) (Result, bool) {
	foot, after := len(ls)-1, 0
	for ; foot >= 0; foot-- {
		if strings.Contains(ls[foot].sq, copilotPermissionFoot) || strings.Contains(ls[foot].sq, copilotQuestionFoot) {
			break
		}
		if ls[foot].content() {
			if after++; after > 1 {
				return Result{}, false
			}
		}
	}
	if foot < 0 {
		return Result{}, false
	}
	if strings.Contains(ls[foot].sq, copilotPermissionFoot) {
		return copilotPermission(ls, foot)
	}
	return copilotQuestion(ls, foot)
}

// copilotPermission reads the permission dialog whose footer is ls[foot]: its numbered
// options, its question, and the command in the box above the question.
func copilotPermission(ls []line, foot int) (Result, bool) {
	var choices []Choice
	highlight, ask := 0, -1
	for i := foot - 1; i >= 0 && i >= foot-copilotReach; i-- {
		text := ls[i].text
		if !ls[i].content() {
			continue
		}
		marked := strings.HasPrefix(text, "❯ ")
		n, lbl, ok := numbered(strings.TrimPrefix(text, "❯ "))
		if ok {
			choices = append([]Choice{{Key: strconv.Itoa(n), Label: lbl}}, choices...)
			if marked {
				highlight = n
			}
			continue
		}
		ask = i
		break
	}
	if ask < 0 || len(choices) == 0 || !strings.HasSuffix(ls[ask].text, "?") {
		return Result{}, false
	}
	res := Result{Kind: MultipleChoice, Confidence: 0.95, Harness: HarnessCopilot, Screen: ScreenPermission,
		Question: question(ls[ask].text), Choices: choices, Default: choices[0], Highlight: highlight}
	var cmd []string
	inBox := false
	for i := ask - 1; i >= 0 && i >= ask-copilotReach; i-- {
		switch {
		case ls[i].rule != notRule && !inBox:
			inBox = true // the command box's bottom
		case ls[i].rule != notRule:
			i = -1 // its top: the command is read
		case inBox && ls[i].content():
			cmd = append([]string{ls[i].text}, cmd...)
		}
	}
	res.Command = question(strings.Join(cmd, " "))
	return res, true
}

// copilotQuestion reads ask_user's question whose footer is ls[foot]: the options above
// it (not "Other", which opens a box for text), the highlighted one, and the line under
// "Copilot needs information.".
func copilotQuestion(ls []line, foot int) (Result, bool) {
	type option struct {
		label  string
		marked bool
	}
	var opts []option // bottom up
	i := foot - 1
	for ; i >= 0 && !ls[i].content(); i-- {
	}
	first := -1
	for ; i >= 0 && ls[i].content() && !strings.HasSuffix(ls[i].text, ":"); i-- {
		opts = append(opts, option{strings.TrimPrefix(ls[i].text, "❯ "), strings.HasPrefix(ls[i].text, "❯ ")})
		first = i
	}
	var choices []Choice
	highlight := 0
	for k := len(opts) - 1; k >= 0; k-- {
		if opts[k].label == copilotOther {
			continue
		}
		choices = append(choices, Choice{Label: label(opts[k].label)})
		if opts[k].marked {
			highlight = len(choices)
		}
	}
	if first < 0 || len(choices) == 0 {
		return Result{}, false
	}
	res := Result{Kind: MultipleChoice, Confidence: 0.9, Harness: HarnessCopilot, Screen: ScreenQuestion,
		Choices: choices, Default: choices[0], Highlight: highlight}
	for j := first - 1; j >= 0 && j >= first-copilotReach; j-- {
		if ls[j].text == copilotQuestionTitle {
			if j+1 < first && ls[j+1].content() {
				res.Question = question(ls[j+1].text)
			}
			return res, true
		}
	}
	return Result{}, false
}

// CopilotTyping is how Copilot CLI takes an answer typed into its pane: Classify does not
// name its input box.
var CopilotTyping = Typing{InputBox: InputUnread}
