package deliver

// Choosing an option of a menu by what the screen calls it (issue 19). An agent may list No
// first in its dialogs, number none of their options, or put another Yes ("Yes, and switch
// to auto mode") among the Yes of its dialog (adapter/prompt's screens): an answer is the
// option whose label says it, as the screen draws the menu now, never a position assumed.

import (
	"path"
	"strings"
	"unicode"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// approvalScreens are the screens an answer to a permission record may pick an option of:
// an agent's approval dialogs. Any other menu of an agent (a question, a startup question
// about its modes) is never answered with a permission's allow or deny.
var approvalScreens = []string{termprompt.ScreenPermission, termprompt.ScreenEdit, termprompt.ScreenPlan, termprompt.ScreenTrust}

// permissionOption returns the position in res.Choices of the option that gives choice
// ("allow" or "deny") to the approval res shows, or a refusal saying why none can: allow
// is the one plain Yes, deny the first No.
func permissionOption(res termprompt.Result, choice string) (int, error) {
	found := -1
	for i, c := range res.Choices {
		switch {
		case choice == adapter.ChoiceAllow && termprompt.IsPlainYes(c.Label):
			if found >= 0 {
				return -1, inPaneOnly("this dialog offers two options that allow it (" + labels(res) + ")")
			}
			found = i
		case choice == adapter.ChoiceDeny && termprompt.IsNo(c.Label) && found < 0:
			found = i
		}
	}
	if found < 0 {
		what := "plain Yes"
		if choice == adapter.ChoiceDeny {
			what = "No"
		}
		return -1, inPaneOnly("this dialog offers no " + what + " (" + labels(res) + ")")
	}
	return found, nil
}

// menuChoice returns the position in res.Choices of the option rec's choice key names: the
// option with the record's label for it, or, for a record without labels, the option of
// that key. It returns -1 when no option, or more than one, fits.
func menuChoice(rec queue.Prompt, res termprompt.Result, key string) int {
	want := rec.Ask.Label(key)
	found := -1
	for i, c := range res.Choices {
		if want == "" && c.Key == key || want != "" && sameText(c.Label, want) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// choose returns what to type to pick option i of the menu res: its own key (a digit, with
// Enter unless the agent's menu acts on the key alone), or, in an unnumbered menu, the
// highlight moved onto it and Enter.
func choose(res termprompt.Result, i int, ownMenu bool) (keystrokes, error) {
	if key := res.Choices[i].Key; key != "" {
		return keystrokes{text: key, enter: !ownMenu}, nil
	}
	if res.Highlight == 0 {
		return keystrokes{}, inPaneOnly("no option of this menu is highlighted")
	}
	return keystrokes{pick: &menuPick{menu: res, from: res.Highlight, to: i + 1}}, nil
}

// inPaneOnly is the refusal of an answer the prompt on screen cannot take from afar.
func inPaneOnly(why string) error {
	return refuse(wire.RefusedChanged, why+": answer it in the pane; nothing was typed")
}

func labels(res termprompt.Result) string {
	ls := make([]string, 0, len(res.Choices))
	for _, c := range res.Choices {
		ls = append(ls, c.Label)
	}
	return strings.Join(ls, " / ")
}

// sameSubject returns "" when the approval on screen (res) asks about what rec was made
// for, as far as the screen names it, and otherwise why it does not. whole says the
// approvals of the screen's program show what they ask about whole (its Typing's
// WholeSubject): its command, or the file of its edit dialog; then an unnumbered dialog,
// which no hook holds (the screen is all that binds the answer to its prompt), must name
// one. Any other approval may show a command's head ("$ …").
func sameSubject(rec queue.Prompt, res termprompt.Result, whole bool) string {
	const other = "the pane asks about another action than this prompt"
	switch {
	case whole && res.Command != "":
		if !sameText(res.Command, recordSubject(rec)) {
			return other
		}
	case whole && res.File != "":
		if path.Base(recordSubject(rec)) != res.File {
			return other
		}
	case whole && len(res.Choices) > 0 && res.Choices[0].Key == "":
		return "the dialog in the pane does not show which action it asks about"
	case !sameCommand(rec, res):
		return other
	}
	return ""
}

// recordSubject is what a permission record asks about: its question without the tool's
// name ("touch x" of "Bash: touch x", as an agent's hooks may make it), or the whole
// question when it names no tool (a record read off the screen).
func recordSubject(rec queue.Prompt) string {
	tool, rest, ok := strings.Cut(rec.Ask.Question, ": ")
	if ok && tool != "" && !strings.ContainsFunc(tool, func(r rune) bool { return unicode.IsSpace(r) || r == ':' }) {
		return rest
	}
	return rec.Ask.Question
}

// sameText reports whether a and b say the same, white space aside (the screen breaks long
// lines, a record folds them): equal, or one of them cut ("…") and the other starting with
// what is left of it, at least 40 characters of it.
func sameText(a, b string) bool {
	a, b = squeeze(a), squeeze(b)
	if a == b {
		return true
	}
	cut := func(x, y string) bool {
		x, ok := strings.CutSuffix(x, "…")
		return ok && len([]rune(x)) >= 40 && strings.HasPrefix(y, x)
	}
	return cut(a, b) || cut(b, a)
}

// squeeze returns s without any white space.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// menuPick is an option of an unnumbered menu to pick: the highlight is moved onto it with
// arrow keys, seen there, and Enter pressed.
type menuPick struct {
	menu     termprompt.Result // the menu as the checks read it
	from, to int               // positions from 1: where the highlight is, the option wanted
}
