package prompt

import "testing"

func TestClaudeStillView(t *testing.T) {
	// Two frames of Claude Code 2.1.332's logo as a turn ends (seen in a tmux pane), over
	// the same input box.
	const box = "\n❯ say hi\n\n● hi from the fake model\n\n✻ Churned for 3s\n────\n❯ \n────\n  ⏵⏵ auto mode on"
	frame1 := " ▐▛███▛█   Claude Code v2.1.332\n▝▜██████▀  Opus 5.5 · API Usage Billing\n ▝▝   ▝▝   ~/work\n" + box
	frame2 := "·▜██████·  Claude Code v2.1.332\n~▜██████~  Opus 5.5 · API Usage Billing\n██▀        ~/work\n" + box
	typed := frame2[:len(frame2)-len(box)] + "\n❯ say hi\n\n● hi from the fake model\n\n✻ Churned for 3s\n────\n❯ s\n────\n  ⏵⏵ auto mode on"
	scrolled := "● hi from the fake model\n" + box
	for _, c := range []struct {
		name string
		a, b string
		same bool
	}{
		{"Claude Code's logo animating: still", frame1, frame2, true},
		{"Claude Code's input box changing: not still", frame2, typed, false},
		{"no banner on screen: the whole screen", scrolled, scrolled + "x", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			view := ClaudeTyping.StillView
			if got := view(c.a) == view(c.b); got != c.same {
				t.Fatalf("same view = %v, want %v\n%q\n%q", got, c.same, view(c.a), view(c.b))
			}
		})
	}
	// Any other program's screen holds still whole.
	for name, typing := range map[string]Typing{"Codex": CodexTyping, "Copilot": CopilotTyping} {
		if typing.StillView != nil || typing.HoldStill != 0 {
			t.Errorf("%s's screen has a still view or a hold: it does not settle after its turn", name)
		}
	}
}
