package prompt

import (
	"os"
	"strings"
	"testing"
)

func readGemini(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/gemini-0.61.0/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGeminiPermission reads the real permission dialog of Gemini CLI 0.61.0: its
// command, its options numbered (a digit picks one at once) with the highlight, and the
// one plain allow and the one No among them.
func TestGeminiPermission(t *testing.T) {
	res := Classify(readGemini(t, "screen-06-permission.txt"))
	if res.Kind != MultipleChoice || res.Harness != HarnessGemini || res.Screen != ScreenPermission {
		t.Fatalf("read as %+v", res)
	}
	if res.Command != "echo hi-from-fake > fake_out.txt" || res.Question != "Allow execution of [Shell]?" || res.Highlight != 1 {
		t.Errorf("command %q, question %q, highlight %d", res.Command, res.Question, res.Highlight)
	}
	want := []Choice{{"1", "Allow once"}, {"2", "Allow for this session"}, {"3", "No, suggest changes (esc)"}}
	if len(res.Choices) != 3 || res.Choices[0] != want[0] || res.Choices[1] != want[1] || res.Choices[2] != want[2] {
		t.Errorf("choices %+v", res.Choices)
	}
	if !IsPlainYes(res.Choices[0].Label) || IsPlainYes(res.Choices[1].Label) || !IsNo(res.Choices[2].Label) {
		t.Errorf("labels: allow once must be the plain yes, allow for this session not, and No the no")
	}
}

// TestGeminiQuestion reads the real ask_user dialog: the question and its options, without
// "Enter a custom value", which opens a text box.
func TestGeminiQuestion(t *testing.T) {
	res := Classify(readGemini(t, "screen-08-ask-user.txt"))
	if res.Kind != MultipleChoice || res.Harness != HarnessGemini || res.Screen != ScreenQuestion ||
		res.Question != "Red or blue?" || res.Highlight != 1 {
		t.Fatalf("read as %+v", res)
	}
	if len(res.Choices) != 2 || res.Choices[0] != (Choice{"1", "red"}) || res.Choices[1] != (Choice{"2", "blue"}) {
		t.Errorf("choices %+v", res.Choices)
	}
}

// TestGeminiNotADialog: the idle box, the spinner and the screen after an approval are no
// Gemini dialog, whatever menu-like lines stay above them.
func TestGeminiNotADialog(t *testing.T) {
	for _, name := range []string{"screen-04-ready.txt", "screen-05-hello.txt", "screen-07-after-approve.txt"} {
		if res := Classify(readGemini(t, name)); res.Harness == HarnessGemini {
			t.Errorf("%s read as Gemini's %s", name, res.Screen)
		}
	}
	// The dialog scrolled above the idle box is not on screen any more.
	s := readGemini(t, "screen-06-permission.txt") + "\n" + readGemini(t, "screen-04-ready.txt")
	if res := Classify(s); res.Harness == HarnessGemini {
		t.Errorf("a dialog above the input box read as %+v", res)
	}
	if strings.Contains(readGemini(t, "screen-08-ask-user.txt"), "❯") {
		t.Fatal("the capture is not Gemini's")
	}
}
