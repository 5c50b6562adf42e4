package prompt

import (
	"os"
	"strings"
	"testing"
)

// TestCopilotScreens: the real Copilot CLI 1.0.102's permission dialog and ask_user
// question, as captured (../shared/COPILOT.md), are read as Copilot's: the dialog's
// numbered options and command, the question's unnumbered options without "Other" and
// the highlighted one; its idle input box is a text prompt.
func TestCopilotScreens(t *testing.T) {
	read := func(name string) Result {
		b, err := os.ReadFile("testdata/copilot-1.0.102/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return Classify(string(b))
	}
	perm := read("screen-04-permission.txt")
	if perm.Harness != HarnessCopilot || perm.Screen != ScreenPermission || perm.Kind != MultipleChoice ||
		perm.Command != "echo hi-from-fake > fake_out.txt" || perm.Question != "Do you want to run this command?" ||
		len(perm.Choices) != 2 || perm.Choices[0] != (Choice{Key: "1", Label: "Yes"}) ||
		perm.Choices[1].Key != "2" || !strings.HasPrefix(perm.Choices[1].Label, "No, and tell Copilot") || perm.Highlight != 1 {
		t.Errorf("permission: %+v", perm)
	}
	if !IsPlainYes(perm.Choices[0].Label) || IsPlainYes(perm.Choices[1].Label) || !IsNo(perm.Choices[1].Label) {
		t.Errorf("allow is not the one Yes, or deny not the No: %+v", perm.Choices)
	}
	q := read("screen-07-ask-user.txt")
	if q.Harness != HarnessCopilot || q.Screen != ScreenQuestion || q.Question != "Red or blue?" ||
		len(q.Choices) != 2 || q.Choices[0].Label != "red" || q.Choices[1].Label != "blue" || q.Choices[0].Key != "" || q.Highlight != 1 {
		t.Errorf("question: %+v", q)
	}
	if idle := read("screen-03-hello.txt"); idle.Kind != FreeText {
		t.Errorf("idle: %+v", idle)
	}
	// The question with the highlight on its second option.
	b, _ := os.ReadFile("testdata/copilot-1.0.102/screen-07-ask-user.txt")
	moved := strings.Replace(strings.Replace(string(b), " ❯ red", "   red", 1), "   blue", " ❯ blue", 1)
	if q := Classify(moved); q.Highlight != 2 {
		t.Errorf("highlight on blue: %+v", q)
	}
}
