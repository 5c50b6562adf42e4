package prompt

import (
	"strings"
	"time"
)

// ClaudeTyping is how Claude Code takes an answer typed into its pane. It draws its input
// box again as its turn ends, and keys it gets meanwhile can be lost; since 2.1.318 it
// drops an Enter that comes just as a dialog appears: its input box and its dialogs are
// typed into once the screen has held still a while. It reads a bracketed paste as one
// input. Classify knows its input box, and its dialogs show the command or the file they
// ask about whole (the command between the dashed rules of its Bash dialog); in auto mode
// (2.1.332) its dialogs are unnumbered, and no hook holds them.
var ClaudeTyping = Typing{
	HoldStill:    claudeHoldStill,
	StillView:    claudeStillView,
	Paste:        true,
	InputBox:     InputOwn,
	Offer:        `Claude Code's offer "Auto mode can't check actions in this session"`,
	WholeSubject: true,
}

// claudeHoldStill is how long Claude Code's pane must show the same screen before an
// answer is typed into it. Observed on 2.1.332's auto-mode dialog: an Enter sent within
// 120 ms of the dialog first being seen was dropped 6 times in 9, one sent 140 ms or more
// after it never (9 of 9); arrow keys were taken from 20 ms on (14 of 14).
const claudeHoldStill = 300 * time.Millisecond

// claudeStillView is the part of a Claude Code screen that must hold still: all but its
// banner, whose logo (2.1.332) plays a short animation as a turn ends, a frame every
// 100–200 ms for about 0.8 s, and longer on a loaded machine: at load 16 it never held
// still 300 ms within the 1.5 s an answer waits, and the answer at the stop was refused
// (TestRealClaudeCodeTextAnsweredAtTheStop, 2 runs of 3). The banner is the first lines of
// the screen, up to two lines past its "Claude Code v…" line; once the conversation has
// scrolled it away, the screen is the view.
func claudeStillView(screen string) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines[:min(len(lines), claudeBannerLines)] {
		if strings.Contains(l, "Claude Code v") {
			return strings.Join(lines[min(i+3, len(lines)):], "\n")
		}
	}
	return screen
}

// claudeBannerLines is how far from the top of the screen Claude Code's banner line is
// looked for.
const claudeBannerLines = 6
