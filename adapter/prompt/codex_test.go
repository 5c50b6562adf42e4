package prompt

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realCodexApproval is the real Codex CLI 0.169.0's approval prompt as capture-pane -p -J
// gave it (trailing spaces kept), below an earlier approved command: the fixture the Codex
// adapter keeps, adapter/codex/testdata/real (see its SOURCES.md).
func realCodexApproval(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "codex", "testdata", "real", "screen-approval-prompt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var codexChoices = []Choice{
	{"1", "Yes, proceed (y)"},
	{"2", "Yes, and don't ask again for commands that start with `touch probe.txt` (p)"},
	{"3", "No, and tell Codex what to do differently (esc)"},
}

func TestCodexApprovalReal(t *testing.T) {
	screen := realCodexApproval(t)
	want := Result{Kind: MultipleChoice, Confidence: 0.95, Question: "Would you like to run the following command?",
		Choices: codexChoices, Default: codexChoices[0], Harness: HarnessCodex, Screen: ScreenPermission,
		Command: "$ touch probe.txt && ls", Reason: "Run ls outside the sandbox?"}
	for name, s := range map[string]string{
		"as captured": screen,
		"CRLF":        strings.ReplaceAll(screen, "\n", "\r\n"),
		// What a PTY tail of the same frame looks like: colours, bold, a dimmed footer.
		"with escapes": strings.NewReplacer(
			"Would you like", "\x1b[1mWould you like", "command?", "command?\x1b[0m",
			"$ touch", "\x1b[2m$\x1b[0m touch", "› 1.", "\x1b[36m›\x1b[39m \x1b[36m1.",
			"Press enter", "\x1b[2mPress enter",
		).Replace(screen),
	} {
		t.Run(name, func(t *testing.T) {
			got := Classify(s)
			if !equalResult(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

// equalResult compares two Results field by field (Choices is a slice).
func equalResult(a, b Result) bool {
	return slices.Equal(a.Choices, b.Choices) && a.Kind == b.Kind && a.Confidence == b.Confidence &&
		a.Question == b.Question && a.Default == b.Default && a.Secret == b.Secret && a.Harness == b.Harness &&
		a.Screen == b.Screen && a.Command == b.Command && a.Reason == b.Reason
}

// codexFrame draws an approval the way Codex lays it out: two spaces of indent, blank
// lines between the parts, the cursor on the first choice.
func codexFrame(body []string, choices ...string) string {
	var b strings.Builder
	b.WriteString("› run it\n\n• Running it\n\n\n")
	for _, l := range body {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("\n")
	for i, c := range choices {
		mark := "  "
		if i == 0 {
			mark = "› "
		}
		b.WriteString(mark + c + "\n")
	}
	b.WriteString("\n  Press enter to confirm or esc to cancel\n\n")
	return b.String()
}

func TestCodexApprovals(t *testing.T) {
	yes, no := "1. Yes, proceed (y)", "3. No, and tell Codex what to do differently (esc)"
	tests := []struct {
		name                              string
		screen                            string
		screenName, question, cmd, reason string
		conf                              float64
		choices                           int
	}{
		{"a command over several lines", codexFrame([]string{
			"Would you like to run the following command?", "", "Reason: Write the notes file?", "",
			"$ cat > notes.txt <<'EOF'", "  first line", "  EOF", "",
		}, yes, "2. Yes, and don't ask again for commands that start with `cat` (p)", no),
			ScreenPermission, "Would you like to run the following command?", "$ cat > notes.txt <<'EOF' first line EOF",
			"Write the notes file?", 0.95, 3},
		{"edits, a diff in the body", codexFrame([]string{
			"Would you like to make the following edits?", "", "Reason: Fix the typo?", "",
			"README.md (+1 -1)", "    1 -teh", "    1 +the",
		}, yes, "2. Yes, and don't ask again for these files (a)", no),
			ScreenEdit, "Would you like to make the following edits?", "", "Fix the typo?", 0.95, 3},
		{"network access", codexFrame([]string{
			`Do you want to approve network access to "crates.io"?`,
		}, "1. Yes, just this once (y)", "2. Yes, and allow this host for this conversation (a)",
			"3. No, and tell Codex what to do differently (esc)"),
			ScreenPermission, `Do you want to approve network access to "crates.io"?`, "", "", 0.95, 3},
		{"the question scrolled away", codexFrame([]string{"$ make deploy"}, yes, "2"+no[1:]),
			ScreenPermission, "", "", "", 0.9, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.screen)
			if got.Kind != MultipleChoice || got.Harness != HarnessCodex || got.Screen != tt.screenName ||
				got.Question != tt.question || got.Command != tt.cmd || got.Reason != tt.reason ||
				got.Confidence != tt.conf || len(got.Choices) != tt.choices || got.Default != got.Choices[0] {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func TestCodexApprovalIsNotThere(t *testing.T) {
	approval := realCodexApproval(t)
	tests := map[string]struct {
		screen string
		want   Kind
	}{
		// Answered: Codex says so and runs it; the old frame is gone.
		"approved": {"› run ls\n\n✔ You approved codex to run touch probe.txt && ls this time\n\n" +
			"• Running touch probe.txt && ls\n\n• Working (3s • esc to interrupt)\n\n› Ask Codex to do anything\n", Busy},
		// Something was printed below the footer: the frame is history.
		"output after it": {approval + "\n$ ls\n" + strings.Repeat("file.txt\n", 8), Unknown},
		// The footer's words without a menu above it are a generic press-enter gate.
		"footer alone": {"Installing...\n\nPress enter to confirm or esc to cancel\n", PressEnter},
		// A menu that another line separates from the footer is not the approval's.
		"menu not above the footer": {"Pick one:\n1. a\n2. b\nloading things\nPress enter to confirm or esc to cancel\n", PressEnter},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := Classify(tt.screen)
			if got.Kind != tt.want || got.Harness == HarnessCodex || got.Command != "" {
				t.Errorf("got %+v, want kind %s and no Codex approval", got, tt.want)
			}
		})
	}
}
