package deliver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// registered is a Deliverer that knows the harnesses as the daemon's registry has them.
var registered = &Deliverer{Typing: daemon.TypingRules()}

// screenOf returns a real screen the classifier's tests keep (adapter/prompt/testdata,
// see its SOURCE.md), or, for "codex/…", the Codex adapter's (adapter/codex/testdata/real).
func screenOf(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "adapter", "prompt", "testdata", name)
	if rest, ok := strings.CutPrefix(name, "codex/"); ok {
		p = filepath.Join("..", "..", "adapter", "codex", "testdata", "real", rest)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// edited returns s with old replaced by new, failing when s has no old.
func edited(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the screen has no %q", old)
	}
	return strings.Replace(s, old, new, 1)
}

// hookPermission is a permission record as a Claude Code (or Codex) hook makes it: the
// tool and its input in the question.
func hookPermission(harness, question string) queue.Prompt {
	return queue.Prompt{Harness: harness, Ask: *adapter.PermissionAsk(question, adapter.AskFromHook)}
}

// typed says what keystrokes k type, for comparing: "text" (a key alone), "text+Enter",
// or "pick FROM→TO" (the highlight moved from option FROM to option TO, then Enter).
func typed(k keystrokes) string {
	switch {
	case k.pick != nil:
		return "pick " + string(rune('0'+k.pick.from)) + "→" + string(rune('0'+k.pick.to))
	case k.enter:
		return k.text + "+Enter"
	}
	return k.text
}

// What plan types for an answer to a menu, on the real screens: the option whose label
// gives the answer, by its digit where the menu numbers it, else by moving the highlight
// from where it is; allow is the plain Yes, deny the No, whatever their order.
func TestPlanPicksTheOptionByItsLabel(t *testing.T) {
	auto := screenOf(t, "claude-2.1.332/r-permission-dialog.txt")
	touch := hookPermission("claude", "Bash: touch /tmp/scratch/touched-by-claude")
	write := hookPermission("claude", "Write: /tmp/scratch/hello.txt")
	question := queue.Prompt{Harness: "claude", Ask: adapter.Ask{Kind: adapter.AskMenu, Question: "Which color do you prefer?",
		From: adapter.AskFromHook, Choices: []adapter.AskChoice{{Key: "1", Label: "Red"}, {Key: "2", Label: "Blue"}}}}
	nudge := queue.Prompt{Harness: "claude", Ask: *termprompt.AskOf(
		termprompt.Classify(screenOf(t, "claude-2.1.332/default-startup-nudge.txt")), adapter.AskFromScreen)}
	for _, tt := range []struct {
		name   string
		rec    queue.Prompt
		screen string
		choice string
		want   string
	}{
		// Claude Code 2.1.332, auto mode: unnumbered, No first, the highlight on No.
		{"auto: allow", touch, auto, "allow", "pick 1→2"},
		{"auto: deny", touch, auto, "deny", "pick 1→1"},
		{"auto, highlight on Yes: allow", touch, edited(t, auto, " ❯ No\n   Yes", "   No\n ❯ Yes"), "allow", "pick 2→2"},
		{"auto, highlight on Yes: deny", touch, edited(t, auto, " ❯ No\n   Yes", "   No\n ❯ Yes"), "deny", "pick 2→1"},
		{"auto, Yes first: allow", touch, edited(t, auto, " ❯ No\n   Yes", " ❯ Yes\n   No"), "allow", "pick 1→1"},
		{"auto, a stack count: allow", touch, edited(t, auto, " Bash command", " Bash command          2 of 5"), "allow", "pick 1→2"},
		{"auto Write: allow", write, screenOf(t, "claude-2.1.332/d2-permission-dialog.txt"), "allow", "pick 1→2"},
		{"auto, the record of the dialog before it", hookPermission("claude", "Bash: touch /tmp/scratch/second-of-two"),
			screenOf(t, "claude-2.1.332/t2-second-dialog.txt"), "deny", "pick 1→1"},
		// Manual mode: numbered; the digit alone, as Claude Code acts on it.
		{"manual: allow is 1. Yes", hookPermission("claude", "Bash: ls /tmp"),
			screenOf(t, "claude-2.1.332/default-d-permission-dialog.txt"), "allow", "1"},
		{"manual: deny is 4. No", hookPermission("claude", "Bash: ls /tmp"),
			screenOf(t, "claude-2.1.332/default-d-permission-dialog.txt"), "deny", "4"},
		{"manual Write: deny is 3. No", hookPermission("claude", "Write: /home/dev/work/hello.txt"),
			screenOf(t, "claude-2.1.332/default-d2-permission-dialog.txt"), "deny", "3"},
		{"2.1.197: allow", hookPermission("claude", "Bash: ls /tmp"), screenOf(t, "claude-2.1.197/d-permission-dialog.txt"), "allow", "1"},
		{"2.1.197: deny", hookPermission("claude", "Bash: ls /tmp"), screenOf(t, "claude-2.1.197/d-permission-dialog.txt"), "deny", "3"},
		{"2.1.197 plan: allow", hookPermission("claude", "plan: 1. Read the code"), screenOf(t, "claude-2.1.197/e2-plan.txt"), "allow", "1"},
		{"2.1.197 plan: deny", hookPermission("claude", "plan: 1. Read the code"), screenOf(t, "claude-2.1.197/e2-plan.txt"), "deny", "2"},
		{"Codex: allow", hookPermission("codex", "Bash: touch probe.txt && ls"), screenOf(t, "codex/screen-approval-prompt.txt"), "allow", "1"},
		{"Codex: deny", hookPermission("codex", "Bash: touch probe.txt && ls"), screenOf(t, "codex/screen-approval-prompt.txt"), "deny", "3"},
		{"Codex network access: allow is just this once", hookPermission("codex", `network: crates.io`),
			"  Do you want to approve network access to \"crates.io\"?\n\n› 1. Yes, just this once (y)\n" +
				"  2. Yes, and allow this host for this conversation (a)\n  3. No, and tell Codex what to do differently (esc)\n\n" +
				"  Press enter to confirm or esc to cancel\n", "allow", "1"},
		// A question: by the record's label.
		{"question: Blue", question, screenOf(t, "claude-2.1.332/e-question.txt"), "2", "2"},
		{"unnumbered question: its second option", nudge, screenOf(t, "claude-2.1.332/default-startup-nudge.txt"), "2", "pick 1→2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k, err := registered.plan(tt.rec, wire.Answer{Choice: tt.choice}, tt.screen)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got := typed(k); got != tt.want {
				t.Fatalf("types %q, want %q", got, tt.want)
			}
			if k.pick != nil && (k.text != "" || k.enter) {
				t.Fatalf("a pick types text %q too", k.text)
			}
		})
	}
}

// What plan refuses, typing nothing: a dialog for another action than the record's, one
// whose options cannot give the answer plainly, a screen that is no approval.
func TestPlanRefusesWhatTheMenuCannotTakePlainly(t *testing.T) {
	auto := screenOf(t, "claude-2.1.332/r-permission-dialog.txt")
	touch := hookPermission("claude", "Bash: touch /tmp/scratch/touched-by-claude")
	plan332 := hookPermission("claude", "plan: Greeting plan")
	for _, tt := range []struct {
		name   string
		rec    queue.Prompt
		screen string
		choice string
		why    string
	}{
		{"the next dialog, another command", touch, screenOf(t, "claude-2.1.332/t2-second-dialog.txt"), "allow",
			"another action than this prompt"},
		{"a command that only starts the same", hookPermission("claude", "Bash: touch /tmp/scratch/touched-by-claude-2"), auto, "allow",
			"another action than this prompt"},
		{"a Write record, a Bash dialog", hookPermission("claude", "Write: /tmp/scratch/touched-by-claude"), auto, "allow",
			"another action than this prompt"},
		{"another file", hookPermission("claude", "Write: /tmp/scratch/other.txt"),
			screenOf(t, "claude-2.1.332/d2-permission-dialog.txt"), "allow", "another action than this prompt"},
		{"an unnumbered dialog that names no action", touch, edited(t, auto, " Bash command", " Fetch"), "allow",
			"does not show which action it asks about"},
		{"the offer before the first auto-mode dialog", touch, screenOf(t, "claude-2.1.332/r-end-offer.txt"), "allow",
			"the pane shows Claude Code's offer \"Auto mode can't check actions in this session\", not the dialog of this prompt: " +
				"answer the offer in the pane; nothing was typed"},
		{"2.1.332 plan: no plain Yes", plan332, screenOf(t, "claude-2.1.332/e2-plan.txt"), "allow",
			"offers no plain Yes (Yes, and use auto mode / Yes, manually approve edits / Tell Claude what to change)"},
		{"2.1.332 plan: no No", plan332, screenOf(t, "claude-2.1.332/e2-plan.txt"), "deny", "offers no No ("},
		{"only Yes with more", touch, edited(t, auto, "   Yes", "   Yes, and don't ask again for touch"), "allow", "offers no plain Yes"},
		{"two plain Yes", touch, edited(t, auto, "   Yes", "   Yes\n   Yes, proceed"), "allow", "two options that allow it"},
		{"the startup question is no approval", touch, screenOf(t, "claude-2.1.332/default-startup-nudge.txt"), "deny",
			"no longer shows this prompt"},
		{"a question is no approval", touch, screenOf(t, "claude-2.1.332/e-question.txt"), "allow", "no longer shows this prompt"},
		{"no highlight", touch, edited(t, auto, " ❯ No", "   No"), "allow", "no longer shows this prompt"},
		{"a question's option that the screen calls otherwise", queue.Prompt{Harness: "claude", Ask: adapter.Ask{Kind: adapter.AskMenu,
			Question: "Which color do you prefer?", From: adapter.AskFromHook,
			Choices: []adapter.AskChoice{{Key: "1", Label: "Green"}, {Key: "2", Label: "Red"}}}},
			screenOf(t, "claude-2.1.332/e-question.txt"), "1", "no longer shows this prompt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k, err := registered.plan(tt.rec, wire.Answer{Choice: tt.choice}, tt.screen)
			if err == nil {
				t.Fatalf("types %q, want a refusal", typed(k))
			}
			if r := refusalReason(err); r != wire.RefusedChanged {
				t.Fatalf("refused %q (%v), want %q", r, err, wire.RefusedChanged)
			}
			if !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), "nothing was typed") {
				t.Fatalf("refused with %q, want it to say %q and that nothing was typed", err, tt.why)
			}
		})
	}
}

func TestSameText(t *testing.T) {
	long := strings.Repeat("abcdefghij", 6)
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"touch /tmp/x", "touch /tmp/x", true},
		{"touch /tmp/ x", "touch /tmp/x", true}, // a line broken by the screen
		{"touch /tmp/x", "touch /tmp/X", false},
		{"touch /tmp/x", "touch /tmp/xy", false},
		{long[:45] + "…", long, true},
		{long, long[:45] + "…", true},
		{"touch …", "touch /tmp/x", false}, // too little left to tell
		{long[:45] + "…", "x" + long, false},
	} {
		if got := sameText(tt.a, tt.b); got != tt.want {
			t.Errorf("sameText(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
