package deliver

import "testing"

func TestStillView(t *testing.T) {
	// Two frames of Claude Code 2.1.332's logo as a turn ends (seen in a tmux pane), over
	// the same input box.
	const box = "\n❯ say hi\n\n● hi from the fake model\n\n✻ Churned for 3s\n────\n❯ \n────\n  ⏵⏵ auto mode on"
	frame1 := " ▐▛███▛█   Claude Code v2.1.332\n▝▜██████▀  Opus 5.5 · API Usage Billing\n ▝▝   ▝▝   ~/work\n" + box
	frame2 := "·▜██████·  Claude Code v2.1.332\n~▜██████~  Opus 5.5 · API Usage Billing\n██▀        ~/work\n" + box
	typed := frame2[:len(frame2)-len(box)] + "\n❯ say hi\n\n● hi from the fake model\n\n✻ Churned for 3s\n────\n❯ s\n────\n  ⏵⏵ auto mode on"
	scrolled := "● hi from the fake model\n" + box

	for _, c := range []struct {
		name    string
		harness string
		a, b    string
		same    bool
	}{
		{"Claude Code's logo animating: still", "claude", frame1, frame2, true},
		{"Claude Code's input box changing: not still", "claude", frame2, typed, false},
		{"no banner on screen: the whole screen", "claude", scrolled, scrolled + "x", false},
		{"another program: the whole screen", "codex", frame1, frame2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := stillView(c.harness, c.a) == stillView(c.harness, c.b); got != c.same {
				t.Fatalf("same view = %v, want %v\n%q\n%q", got, c.same, stillView(c.harness, c.a), stillView(c.harness, c.b))
			}
		})
	}
}
