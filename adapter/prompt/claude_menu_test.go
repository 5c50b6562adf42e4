package prompt

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realScreen returns a real Claude Code screen of testdata (see testdata/SOURCE.md).
func realScreen(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// replaced returns s with old replaced by new, failing when s does not hold old: a variant
// made by hand from a real screen must change what it says it changes.
func replaced(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the screen has no %q to replace", old)
	}
	return strings.Replace(s, old, new, 1)
}

// noYes is the auto-mode dialog's menu as Claude Code 2.1.332 lists it: unnumbered, No first.
var noYes = []Choice{{Key: "", Label: "No"}, {Key: "", Label: "Yes"}}

// menuWant is what Classify must read off a dialog.
type menuWant struct {
	screen, question, command, file, position string
	choices                                   []Choice
	highlight                                 int
}

func checkMenu(t *testing.T, in string, want menuWant) {
	t.Helper()
	got := Classify(in)
	if got.Kind != MultipleChoice || got.Harness != HarnessClaude || got.Screen != want.screen {
		t.Fatalf("got %v %q %q, want a Claude Code %q menu\nscreen:\n%s", got.Kind, got.Harness, got.Screen, want.screen, in)
	}
	if got.Question != want.question {
		t.Errorf("question %q, want %q", got.Question, want.question)
	}
	if !slices.Equal(got.Choices, want.choices) {
		t.Errorf("choices %q, want %q", got.Choices, want.choices)
	}
	if got.Highlight != want.highlight {
		t.Errorf("highlight %d, want %d", got.Highlight, want.highlight)
	}
	if got.Command != want.command || got.File != want.file || got.Position != want.position {
		t.Errorf("command %q file %q position %q, want %q %q %q", got.Command, got.File, got.Position, want.command, want.file, want.position)
	}
}

// The real Claude Code's dialogs: each option's label, its key when numbered, the option
// the highlight is on, Yes and No in either order, the command of a Bash dialog (between
// its dashed rules) and the file of an edit dialog.
func TestClaudeDialogsReal(t *testing.T) {
	defaultBash := []Choice{{"1", "Yes"}, {"2", "Yes, allow reading from /tmp from this project"},
		{"3", "Yes, and switch to auto mode · auto mode handles these prompts for you"}, {"4", "No"}}
	for _, tt := range []struct {
		file string
		want menuWant
	}{
		{"claude-2.1.332/r-permission-dialog.txt", menuWant{screen: ScreenPermission, question: "Do you want to proceed?",
			command: "touch /tmp/scratch/touched-by-claude", choices: noYes, highlight: 1}},
		{"claude-2.1.332/t2-second-dialog.txt", menuWant{screen: ScreenPermission, question: "Do you want to proceed?",
			command: "touch /tmp/scratch/second-of-two", choices: noYes, highlight: 1}},
		{"claude-2.1.332/r2-keys-deny.txt", menuWant{screen: ScreenPermission, question: "Do you want to proceed?",
			command: "touch /tmp/scratch/touched-by-claude", choices: noYes, highlight: 1}},
		{"claude-2.1.332/d2-permission-dialog.txt", menuWant{screen: ScreenEdit, question: "Do you want to create hello.txt?",
			file: "hello.txt", choices: noYes, highlight: 1}},
		{"claude-2.1.332/default-d-permission-dialog.txt", menuWant{screen: ScreenPermission, question: "Do you want to proceed?",
			command: "ls /tmp", choices: defaultBash, highlight: 1}},
		{"claude-2.1.332/default-d2-permission-dialog.txt", menuWant{screen: ScreenEdit, question: "Do you want to create hello.txt?",
			file: "hello.txt", highlight: 1, choices: []Choice{{"1", "Yes"},
				{"2", "Yes, and switch to accept edits (auto-approve file edits and common file commands) for this session (shift+tab)"},
				{"3", "No"}}}},
		{"claude-2.1.332/default-startup-nudge.txt", menuWant{screen: ScreenQuestion, question: "Make auto mode your default permission mode?",
			highlight: 1, choices: []Choice{{"", "Yes, set auto mode as my default permission mode"}, {"", "No, keep manual mode"}}}},
		{"claude-2.1.332/e2-plan.txt", menuWant{screen: ScreenPlan,
			question: "Claude has written up a plan and is ready to execute. Would you like to proceed?", highlight: 1,
			choices: []Choice{{"1", "Yes, and use auto mode"}, {"2", "Yes, manually approve edits"}, {"3", "Tell Claude what to change"}}}},
		{"claude-2.1.332/e-question.txt", menuWant{screen: ScreenQuestion, question: "Which color do you prefer?", highlight: 1,
			choices: []Choice{{"1", "Red"}, {"2", "Blue"}, {"3", "Type something."}, {"4", "Chat about this"}}}},
		// 2.1.197: its Bash dialog draws the command and what it is for alike, so no command
		// is read; "Exit plan mode?" is the plan's approval.
		{"claude-2.1.197/d-permission-dialog.txt", menuWant{screen: ScreenPermission, question: "Do you want to proceed?", highlight: 1,
			choices: []Choice{{"1", "Yes"}, {"2", "Yes, allow reading from tmp/ from this project"}, {"3", "No"}}}},
		{"claude-2.1.197/e2-plan.txt", menuWant{screen: ScreenPlan, question: "Exit plan mode?", highlight: 1,
			choices: []Choice{{"1", "Yes"}, {"2", "No"}}}},
	} {
		t.Run(tt.file, func(t *testing.T) { checkMenu(t, realScreen(t, tt.file), tt.want) })
	}
}

// Variants made by hand of the real auto-mode dialog: the highlight moved, Yes first, the
// lines drawn with cursor moves instead of spaces, a stack count, a narrow pane.
func TestClaudeUnnumberedMenuVariants(t *testing.T) {
	real := realScreen(t, "claude-2.1.332/r-permission-dialog.txt")
	base := menuWant{screen: ScreenPermission, question: "Do you want to proceed?",
		command: "touch /tmp/scratch/touched-by-claude", choices: noYes, highlight: 1}
	for _, tt := range []struct {
		name string
		in   string
		want func(menuWant) menuWant
	}{
		{"highlight on Yes", replaced(t, real, " ❯ No\n   Yes", "   No\n ❯ Yes"),
			func(w menuWant) menuWant { w.highlight = 2; return w }},
		{"Yes first", replaced(t, real, " ❯ No\n   Yes", " ❯ Yes\n   No"),
			func(w menuWant) menuWant { w.choices = []Choice{{"", "Yes"}, {"", "No"}}; return w }},
		{"three options, the last highlighted", replaced(t, real, " ❯ No\n   Yes", "   No\n   Yes\n ❯ Yes, and don't ask again"),
			func(w menuWant) menuWant {
				w.choices, w.highlight = append(slices.Clone(noYes), Choice{"", "Yes, and don't ask again"}), 3
				return w
			}},
		{"cursor moves for spaces", strings.NewReplacer(" ❯ No", "\x1b[1C\x1b[38;5;174m❯\x1b[39m\x1b[1CNo",
			"   Yes", "\x1b[3CYes").Replace(real), func(w menuWant) menuWant { return w }},
		{"CRLF", strings.ReplaceAll(real, "\n", "\r\n"), func(w menuWant) menuWant { return w }},
		{"stack count on the header", replaced(t, real, " Bash command", " Bash command                                        2 of 5"),
			func(w menuWant) menuWant { w.position = "2 of 5"; return w }},
		{"stack count on a line of its own", replaced(t, real, " Bash command", " (3 of 4)\n Bash command"),
			func(w menuWant) menuWant { w.position = "3 of 4"; return w }},
		{"a long command broken over lines", replaced(t, real, "\n touch /tmp/scratch/touched-by-claude",
			"\n touch /tmp/scratch/touched-by-claude /tmp/scratch/another-file-with-a-long-name\n /tmp/scratch/third"),
			func(w menuWant) menuWant {
				w.command = "touch /tmp/scratch/touched-by-claude /tmp/scratch/another-file-with-a-long-name /tmp/scratch/third"
				return w
			}},
	} {
		t.Run(tt.name, func(t *testing.T) { checkMenu(t, tt.in, tt.want(base)) })
	}
}

// A count that is no stack's: in the command, or above the dialog's top rule.
func TestClaudeStackCountOnlyInTheDialogHead(t *testing.T) {
	real := realScreen(t, "claude-2.1.332/r-permission-dialog.txt")
	for name, in := range map[string]string{
		"in the command":     replaced(t, real, " touch /tmp/scratch/touched-by-claude", " echo 1 of 2"),
		"above the top rule": replaced(t, real, "● Touching a file", "● Touching a file (1 of 2)"),
		"a greater N than M": replaced(t, real, " Bash command", " Bash command 6 of 5"),
	} {
		t.Run(name, func(t *testing.T) {
			if got := Classify(in); got.Kind != MultipleChoice || got.Position != "" {
				t.Errorf("got %v, position %q, want a menu with no position", got.Kind, got.Position)
			}
		})
	}
}

// A prompt of the conversation ("❯ run touch" over indented lines, one ending in "?") is
// no menu: the input box, a spinner or anything but key hints is below it.
func TestClaudeConversationIsNoMenu(t *testing.T) {
	denied := realScreen(t, "claude-2.1.332/d3-permission-denied.txt")
	if got := Classify(denied); got.Kind != FreeText || got.Screen != ScreenIdle {
		t.Errorf("the input box under a refused command: got %v %q, want the idle input box", got.Kind, got.Screen)
	}
	history := "● Which one should I touch?\n\n❯ run touch\n  Touching a file\n  ⎿  $ touch /tmp/x\n"
	for name, in := range map[string]string{
		"under a spinner":        history + "\n✢ Schlepping… (1s · ↓ 19 tokens)\n",
		"at the end of output":   history,
		"under more of the turn": history + "  ⎿  Interrupted · What should Claude do instead?\n● ok\n",
	} {
		t.Run(name, func(t *testing.T) {
			if got := Classify(in); got.Kind == MultipleChoice {
				t.Errorf("read as a menu: %+v", got)
			}
		})
	}
}

// The offer before the first auto-mode dialog is a dialog of its own: Enter stays in auto
// mode; in a narrow pane its key hints break over two lines.
func TestClaudeAutoModeOffer(t *testing.T) {
	real := realScreen(t, "claude-2.1.332/r-end-offer.txt")
	narrow := replaced(t, real, "· shift+Tab to leave for accept edits mode and stop · Esc to cancel",
		"· shift+Tab to leave for\n  accept edits mode and stop · Esc to cancel")
	for name, in := range map[string]string{"as captured": real, "narrow": narrow} {
		t.Run(name, func(t *testing.T) {
			got := Classify(in)
			enter := Choice{Key: KeyEnter, Label: "Stay in auto mode"}
			if got.Kind != PressEnter || got.Screen != ScreenOffer || got.Harness != HarnessClaude ||
				got.Question != "Auto mode can't check actions in this session" ||
				!slices.Equal(got.Choices, []Choice{enter}) || got.Default != enter {
				t.Errorf("got %+v", got)
			}
		})
	}
	// Once the offer is answered, the dialog that follows is read, not the offer's words
	// that stay in the conversation above it.
	if got := Classify(realScreen(t, "claude-2.1.332/r-permission-dialog.txt")); got.Screen != ScreenPermission {
		t.Errorf("the dialog after the offer: got %v %q", got.Kind, got.Screen)
	}
}

// An unnumbered menu is asked of the operator with its options numbered in screen order,
// so that a person can name one; a permission dialog is allow or deny whatever its order.
func TestAskOfUnnumberedMenus(t *testing.T) {
	nudge := AskOf(Classify(realScreen(t, "claude-2.1.332/default-startup-nudge.txt")), "screen")
	if nudge == nil || nudge.Kind != "choice" || len(nudge.Choices) != 2 || nudge.Choices[0].Key != "1" ||
		nudge.Choices[0].Label != "Yes, set auto mode as my default permission mode" || nudge.Choices[1].Key != "2" {
		t.Errorf("the startup question: %+v", nudge)
	}
	perm := AskOf(Classify(realScreen(t, "claude-2.1.332/r-permission-dialog.txt")), "screen")
	if perm == nil || perm.Kind != "permission" || perm.Question != "touch /tmp/scratch/touched-by-claude" {
		t.Errorf("the auto-mode dialog: %+v", perm)
	}
}
