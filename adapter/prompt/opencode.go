package prompt

import (
	"strconv"
	"strings"
)

// OpenCode's dialogs, as its TUI (1.18.33) draws them in place of its input box, each line
// behind a "┃" border, with the session's sidebar text at the right of some lines:
//
//	△ Permission required                               the title
//	  # Shell command                                   what kind: a command, or
//	                                                    "← Access external directory DIR"
//	$ touch /work/scratch/x                             the command
//	 Allow once   Allow always   Reject      ⇆ select  enter confirm
//
// and a question of its question tool:
//
//	Which colour do you want?
//	1. Red
//	   the warm one
//	2. Blue
//	   the cool one
//	3. Type your own answer
//	↑↓ select  enter submit  esc dismiss
//
// Read for a pane without Trail Boss's plugin (trailboss watch); with it, the plugin
// reports both and answers them through OpenCode's own client. Which button or option is
// selected shows only in colour, which a captured screen does not keep: the options are
// unnumbered (Key "") and none is read as highlighted (Highlight 0), so that an answer is
// never typed as keys that could pick another option; such a dialog is answered in its pane.

// Footers of OpenCode's dialogs, squeezed of white space.
const (
	openCodePermissionFoot = "⇆selectenterconfirm"
	openCodeQuestionFoot   = "↑↓selectentersubmitescdismiss"
)

// openCodeReach is how many lines above its footer a dialog's title or question may be.
const openCodeReach = 30

// openCodeFootReach is how many content lines may follow a dialog's footer: the sidebar's
// last lines ("• OpenCode 1.18.33").
const openCodeFootReach = 3

// openCodeDialog returns OpenCode's permission dialog or question when one ends ls.
func openCodeDialog(ls []line) (Result, bool) {
	foot, after := len(ls)-1, 0
	for ; foot >= 0; foot-- {
		l := ls[foot]
		if strings.Contains(l.sq, openCodePermissionFoot) || strings.Contains(l.sq, openCodeQuestionFoot) {
			break
		}
		if l.content() {
			if after++; after > openCodeFootReach {
				return Result{}, false
			}
		}
	}
	if foot < 0 {
		return Result{}, false
	}
	if strings.Contains(ls[foot].sq, openCodePermissionFoot) {
		return openCodePermission(ls, foot)
	}
	return openCodeQuestion(ls, foot)
}

// openCodePermission reads the permission dialog whose footer is ls[foot].
func openCodePermission(ls []line, foot int) (Result, bool) {
	title := -1
	for i := foot - 1; i >= 0 && i >= foot-openCodeReach; i-- {
		if strings.Contains(ls[i].text, "Permission required") {
			title = i
			break
		}
	}
	if title < 0 {
		return Result{}, false
	}
	res := Result{Kind: MultipleChoice, Confidence: 0.95, Harness: HarnessOpenCode, Screen: ScreenPermission,
		Question: "Permission required",
		Choices:  []Choice{{Label: "Allow once"}, {Label: "Allow always"}, {Label: "Reject"}}}
	res.Default = res.Choices[0]
	for _, l := range ls[title+1 : foot] {
		text := leftColumn(l)
		switch {
		case strings.HasPrefix(text, "$ ") && res.Command == "":
			res.Command = question(text)
		case strings.HasPrefix(text, "← ") && res.Reason == "":
			res.Reason = question(strings.TrimPrefix(text, "← "))
		case strings.HasPrefix(text, "# ") && res.Reason == "":
			res.Reason = question(strings.TrimPrefix(text, "# "))
		}
	}
	return res, true
}

// openCodeQuestion reads the question whose footer is ls[foot]: its numbered options, and
// the line above the first of them. "Type your own answer" is not a choice: it opens a box
// for text.
func openCodeQuestion(ls []line, foot int) (Result, bool) {
	var choices []Choice
	first := -1
	for i := foot - 1; i >= 0 && i >= foot-openCodeReach; i-- {
		text := leftColumn(ls[i])
		n, label, ok := numbered(text)
		if !ok {
			continue
		}
		if n == 1 {
			first = i
		}
		if !strings.EqualFold(label, "Type your own answer") {
			choices = append([]Choice{{Label: label}}, choices...)
		}
		if n == 1 {
			break
		}
	}
	if first < 0 || len(choices) == 0 {
		return Result{}, false
	}
	res := Result{Kind: MultipleChoice, Confidence: 0.9, Harness: HarnessOpenCode, Screen: ScreenQuestion,
		Choices: choices, Default: choices[0]}
	for i := first - 1; i >= 0 && i >= first-openCodeReach; i-- {
		if ls[i].content() {
			res.Question = question(leftColumn(ls[i]))
			break
		}
	}
	return res, true
}

// numbered reads "N. label" off text.
func numbered(text string) (int, string, bool) {
	dot := strings.Index(text, ". ")
	if dot < 1 || dot > 2 {
		return 0, "", false
	}
	n, err := strconv.Atoi(text[:dot])
	if err != nil || n < 1 {
		return 0, "", false
	}
	return n, label(strings.TrimSpace(text[dot+2:])), true
}

// leftColumn is l's text without what OpenCode's sidebar draws at its right: the part
// before the first run of three spaces.
func leftColumn(l line) string {
	raw := strings.TrimSpace(l.raw)
	if i := strings.Index(raw, "   "); i >= 0 {
		raw = raw[:i]
	}
	return strings.Join(strings.Fields(raw), " ")
}
