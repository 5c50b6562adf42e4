package prompt

// What the options of an agent's menu say (issue 19). Claude Code 2.1.332 lists No first
// in its auto-mode dialogs and puts "Yes, and switch to auto mode" among the Yes of its
// manual-mode ones, so an option is known by its label, never by its position.

import (
	"regexp"
	"slices"
	"strings"
)

// plainYes are the labels of an approval's option that allows the one action asked and
// nothing more (after a trailing key hint such as "(y)" is taken off): "allow" picks only
// such an option, never "Yes, allow reading from … from this project", "Yes, and switch to
// auto mode" or "Yes, and don't ask again". Codex says "Yes, proceed" and, for network
// access, "Yes, just this once"; Gemini CLI "Allow once" (beside "Allow for this session").
var plainYes = []string{"yes", "yes, proceed", "yes, just this once", "yes, i trust this folder", "allow once"}

// reKeyHint matches the key hint at the end of a label: "(y)", "(esc)", "(shift+tab)".
var reKeyHint = regexp.MustCompile(`\s*\([^()]{1,12}\)$`)

// normalLabel returns label in lower case, without its key hint, its final full stop and
// the white space around it.
func normalLabel(label string) string {
	l := strings.ToLower(strings.TrimSpace(label))
	l = reKeyHint.ReplaceAllString(l, "")
	return strings.TrimSpace(strings.TrimSuffix(l, "."))
}

// IsPlainYes reports whether label is an approval's option that allows the one action
// asked and nothing more: "Yes", "Yes, proceed (y)", never "Yes, and don't ask again".
func IsPlainYes(label string) bool {
	return slices.Contains(plainYes, normalLabel(label))
}

// IsNo reports whether label refuses: "No", "No, and tell Claude what to do differently".
func IsNo(label string) bool {
	l := normalLabel(label)
	return l == "no" || strings.HasPrefix(l, "no,") || strings.HasPrefix(l, "no ")
}

// SameMenu reports whether a and b are the same menu of the same prompt, wherever its
// highlight is.
func SameMenu(a, b Result) bool {
	return a.Kind == b.Kind && a.Harness == b.Harness && a.Screen == b.Screen && a.Question == b.Question &&
		a.Command == b.Command && a.File == b.File && a.Position == b.Position && slices.Equal(a.Choices, b.Choices)
}
