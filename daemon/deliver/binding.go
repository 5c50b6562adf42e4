package deliver

// An answer reaches exactly the prompt the person saw, in the program that asked it, or
// nothing is typed (issue 18). Before keys go into a pane, the pane must still run that
// program (sameProgram) and its screen must show that very prompt (plan); a prompt still
// being drawn gets a short, bounded wait (awaitPrompt).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// maxAwaitPrompt bounds how long an answer waits for its prompt to be on screen: Claude
// Code draws its input box a moment after its Stop hook, and a popup can answer within
// 0.1 s of the stop.
const maxAwaitPrompt = 1500 * time.Millisecond

// UnknownAskerRefusal is what an answer to a prompt whose asker is not known is refused
// with: nothing tells which program would read the keys.
const UnknownAskerRefusal = "Trail Boss cannot tell which program asked this (it came from a generic event, " +
	"or from a hook whose program could not be checked), so it types nothing for it: answer it in its pane"

// sameProgram checks that pane rec.Pane, as now is, still runs the program that asked rec:
// the same tmux server and pane process, and the agent that asked alive, inside the pane
// and in its foreground process group. Under a wrapper shell (sh -c 'claude; sleep 30')
// the pane's command is the shell, and the agent is still the one keys reach; a shell left
// where the agent was fails these checks. A prompt whose asker is not known is never typed
// into: a pane's command name alone proves nothing.
func sameProgram(rec queue.Prompt, now tmuxctl.PaneIdentity) error {
	p := rec.Program
	if !p.Known() {
		return refuse(wire.RefusedUnknownAsker, UnknownAskerRefusal+"; nothing was typed")
	}
	moved := func(format string, args ...any) error {
		return refuse(wire.RefusedPaneMoved, fmt.Sprintf(format, args...)+"; nothing was typed")
	}
	switch {
	case now.ServerPID != p.TmuxPID:
		return moved("the tmux server of pane %s was restarted since the prompt was asked: %s is another program now", rec.Pane, rec.Pane)
	case now.PanePID != p.PanePID:
		return moved("pane %s now runs another program than the one that asked", rec.Pane)
	}
	if why := lineage.AgentGone(p); why != "" {
		return moved("the agent that asked in %s is gone (%s)", rec.Pane, why)
	}
	if !lineage.Within(p.AgentPID, now.PanePID) {
		return moved("the program in %s is no longer the agent that asked", rec.Pane)
	}
	if agent, err := lineage.Read(p.AgentPID); err != nil || !agent.Foreground() {
		return moved("the agent that asked in %s is not what the pane's keys reach now (%s is)", rec.Pane, now.Command)
	}
	return nil
}

// awaitPrompt reads rec's pane until it runs the program that asked and shows the prompt
// rec asks, within maxAwaitPrompt, and returns the screen and what to type for a. A pane
// that runs another program, or a record that stops taking answers, ends the wait at once.
func (d *Deliverer) awaitPrompt(ctx context.Context, tm *tmuxctl.Server, rec queue.Prompt, a wire.Answer) (string, keystrokes, error) {
	deadline := time.Now().Add(maxAwaitPrompt)
	prev, still := "", time.Time{} // the last reading, and since when the pane has shown it
	for {
		id, screen, err := tm.Identity(ctx, rec.Pane)
		if err == nil {
			err = sameProgram(rec, id)
		}
		if errors.Is(err, tmuxctl.ErrNoPane) || errors.Is(err, tmuxctl.ErrNoServer) {
			return "", keystrokes{}, refuse(wire.RefusedPaneMoved, "pane "+rec.Pane+" is gone; nothing was typed")
		}
		if err != nil {
			var refusal *wire.PromptRefusal
			if errors.As(err, &refusal) {
				return "", keystrokes{}, err
			}
			return "", keystrokes{}, fmt.Errorf("read pane %s: %w", rec.Pane, err)
		}
		if view := stillView(rec.Harness, screen); view != prev || still.IsZero() {
			prev, still = view, time.Now()
		}
		keys, err := plan(rec, a, screen)
		if err == nil && settling(rec) && time.Since(still) < claudeHoldStill {
			// Claude Code redraws its screen for a moment after a turn ends, and keys it gets
			// meanwhile can be lost; since 2.1.318 it drops an Enter that comes just as a
			// dialog appears. Its input box and its dialogs are typed into once the screen
			// has held still a while.
			err = refuse(wire.RefusedChanged, "the pane is still being drawn; nothing was typed")
		}
		if err == nil || time.Now().After(deadline) {
			return screen, keys, err
		}
		if _, _, err := d.Engine.CheckPrompt(ctx, rec.ID); err != nil {
			return "", keystrokes{}, err
		}
		select {
		case <-ctx.Done():
			return "", keystrokes{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// claudeHoldStill is how long Claude Code's pane must show the same screen before an
// answer is typed into it. Observed on 2.1.332's auto-mode dialog: an Enter sent within
// 120 ms of the dialog first being seen was dropped 6 times in 9, one sent 140 ms or more
// after it never (9 of 9); arrow keys were taken from 20 ms on (14 of 14).
const claudeHoldStill = 300 * time.Millisecond

// stillView is the part of screen that must hold still before an answer is typed into a
// program of harness: for Claude Code, all but its banner, whose logo (2.1.332) plays a
// short animation as a turn ends, a frame every 100–200 ms for about 0.8 s, and longer on
// a loaded machine: at load 16 it never held still 300 ms within the 1.5 s an answer waits,
// and the answer at the stop was refused (TestRealClaudeCodeTextAnsweredAtTheStop, 2 runs
// of 3). The banner is the first lines of the screen, up to two lines past its "Claude
// Code v…" line; once the conversation has scrolled it away, the screen is the view.
func stillView(harness, screen string) string {
	if harness != "claude" {
		return screen
	}
	lines := strings.Split(screen, "\n")
	for i, l := range lines[:min(len(lines), bannerLines)] {
		if strings.Contains(l, "Claude Code v") {
			return strings.Join(lines[min(i+3, len(lines)):], "\n")
		}
	}
	return screen
}

// bannerLines is how far from the top of the screen Claude Code's banner line is looked for.
const bannerLines = 6

// settling reports whether an answer to rec waits for its pane to hold still for
// claudeHoldStill before it is typed: any answer to Claude Code, whose input box is drawn
// again as its turn ends, and which drops an Enter sent as a dialog appears (2.1.318).
func settling(rec queue.Prompt) bool {
	return rec.Harness == "claude"
}
