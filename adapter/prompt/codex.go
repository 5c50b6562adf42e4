package prompt

import (
	"strings"
)

// Codex CLI's approval prompt, as its terminal UI (0.169.0) draws it at the bottom of the
// screen in place of its input box:
//
//	  Would you like to run the following command?     the question
//
//	  Environment: local
//
//	  Reason: Run ls outside the sandbox?                why Codex asks (the model's words)
//
//	  $ touch probe.txt && ls                            the command, maybe over several lines
//
//	› 1. Yes, proceed (y)                                the choices, each with its own key
//	  2. Yes, and don't ask again for commands that start with `touch probe.txt` (p)
//	  3. No, and tell Codex what to do differently (esc)
//
//	  Press enter to confirm or esc to cancel            the footer: the last line
//
// Other approvals share the frame with another question: "Would you like to make the
// following edits?" (a diff instead of a command), "… grant these permissions?", "… send
// input to the existing terminal?", "Do you want to approve network access to …?".

// codexFooter is the last line of every Codex approval, squeezed of white space.
const codexFooter = "pressentertoconfirmoresctocancel"

// codexQuestionReach is how far above its choices an approval's question may be: a diff or
// a long command sits between them.
const codexQuestionReach = 30

// codexApproval returns Codex's approval prompt when it ends ls.
func codexApproval(ls []line) (Result, bool) {
	foot := len(ls) - 1
	for foot >= 0 && !ls[foot].content() {
		foot--
	}
	if foot < 0 || !strings.Contains(ls[foot].sq, codexFooter) {
		return Result{}, false
	}
	m, ok := lastMenu(ls[:foot])
	if !ok {
		return Result{}, false
	}
	for _, l := range ls[m.last+1 : foot] {
		if l.content() {
			return Result{}, false // the menu is not the one the footer closes
		}
	}
	res := Result{Kind: MultipleChoice, Confidence: 0.9, Harness: HarnessCodex, Screen: ScreenPermission}
	q := -1
	for i := m.first - 1; i >= 0 && i >= m.first-codexQuestionReach; i-- {
		if codexQuestion(ls[i]) {
			q = i
			break
		}
	}
	if q >= 0 {
		res.Confidence = 0.95
		res.Question = question(ls[q].text)
		if strings.Contains(ls[q].lower, "edit") {
			res.Screen = ScreenEdit
		}
		res.Command, res.Reason = codexSubject(ls[q+1 : m.first])
	}
	res.Choices, res.Highlight = m.choices()
	res.Default = res.Choices[0]
	return res, true
}

// codexQuestion reports whether l is the question of a Codex approval.
func codexQuestion(l line) bool {
	return l.content() && strings.HasSuffix(l.text, "?") &&
		(strings.HasPrefix(l.lower, "would you like to ") || strings.HasPrefix(l.lower, "do you want to "))
}

// codexSubject reads an approval's body, the lines between its question and its choices:
// the command ("$ …" and the lines that continue it, up to a blank line) and the reason.
func codexSubject(body []line) (command, reason string) {
	var cmd []string
	in := false
	for _, l := range body {
		switch {
		case !l.content():
			in = false
		case strings.HasPrefix(l.text, "$ ") && cmd == nil:
			cmd, in = append(cmd, l.text), true
		case in:
			cmd = append(cmd, l.text)
		case strings.HasPrefix(l.lower, "reason:") && reason == "":
			reason = strings.TrimSpace(l.text[len("reason:"):])
		}
	}
	return question(cmd...), question(reason)
}

// CodexTyping is how Codex CLI takes an answer typed into its pane: it reads a bracketed
// paste as one input, and Classify does not name its input box.
var CodexTyping = Typing{Paste: true, InputBox: InputUnread}
