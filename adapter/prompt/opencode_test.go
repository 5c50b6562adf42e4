package prompt

import (
	"os"
	"path/filepath"
	"testing"
)

// The screens of the real OpenCode 1.18.33 (testdata/opencode-1.18.33, from
// ../shared/fixtures/real/opencode-1.18.33/screens).
func openCodeScreen(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "opencode-1.18.33", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenCodePermissionDialog(t *testing.T) {
	res := Classify(openCodeScreen(t, "permission-bash"))
	if res.Kind != MultipleChoice || res.Harness != HarnessOpenCode || res.Screen != ScreenPermission {
		t.Fatalf("got %+v, want OpenCode's permission dialog", res)
	}
	if res.Command != "$ touch <WORK>/scratch/x" || res.Reason != "Shell command" {
		t.Errorf("command %q reason %q", res.Command, res.Reason)
	}
	if len(res.Choices) != 3 || res.Choices[0].Label != "Allow once" || res.Choices[2].Label != "Reject" {
		t.Errorf("choices %+v", res.Choices)
	}
	if ask := AskOf(res, "screen"); ask.Kind != "permission" || ask.Question != res.Command {
		t.Errorf("ask %+v, want a permission for the command", ask)
	}
}

func TestOpenCodeExternalDirectoryDialog(t *testing.T) {
	res := Classify(openCodeScreen(t, "permission-external-directory"))
	if res.Screen != ScreenPermission || res.Harness != HarnessOpenCode || res.Reason != "Access external directory <OUTSIDE>" {
		t.Fatalf("got %+v", res)
	}
}

func TestOpenCodeQuestion(t *testing.T) {
	res := Classify(openCodeScreen(t, "question"))
	if res.Kind != MultipleChoice || res.Harness != HarnessOpenCode || res.Screen != ScreenQuestion {
		t.Fatalf("got %+v, want OpenCode's question", res)
	}
	if res.Question != "Which colour do you want?" {
		t.Errorf("question %q", res.Question)
	}
	want := []Choice{{Label: "Red"}, {Label: "Blue"}}
	if len(res.Choices) != 2 || res.Choices[0] != want[0] || res.Choices[1] != want[1] {
		t.Errorf("choices %+v, want %+v", res.Choices, want)
	}
	if res.Highlight != 0 {
		t.Errorf("highlight %d: a captured screen does not show which option is selected", res.Highlight)
	}
}

func TestOpenCodeScreensWithoutADialog(t *testing.T) {
	for _, name := range []string{"startup", "idle-after-turn", "after-reject", "after-question-dismissed", "after-exit"} {
		if res := Classify(openCodeScreen(t, name)); res.Harness == HarnessOpenCode {
			t.Errorf("%s: read as OpenCode's %s", name, res.Screen)
		}
	}
}
