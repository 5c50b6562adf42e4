package deliver

// An answer reaches exactly the prompt the person saw, in the program that asked it, or
// nothing is typed (issue 18). Before keys go into a pane, the pane must still run that
// program (sameProgram) and its screen must show that very prompt (plan); a prompt still
// being drawn gets a short, bounded wait (awaitPrompt).

import (
	"context"
	"errors"
	"fmt"
	"time"

	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// maxAwaitPrompt bounds how long an answer waits for its prompt to be on screen: an agent
// may draw its input box a moment after the hook that says its turn ended, and a popup can
// answer within 0.1 s of the stop.
const maxAwaitPrompt = 1500 * time.Millisecond

// UnknownAskerRefusal is what an answer to a prompt whose asker is not known is refused
// with: nothing tells which program would read the keys.
const UnknownAskerRefusal = "Trail Boss cannot tell which program asked this (it came from a generic event, " +
	"or from a hook whose program could not be checked), so it types nothing for it: answer it in its pane"

// sameProgram checks that pane rec.Pane, as now is, still runs the program that asked rec:
// the same tmux server and pane process, and the agent that asked alive, inside the pane
// and in its foreground process group. Under a wrapper shell (sh -c 'AGENT; sleep 30')
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
		typing := d.Typing[rec.Harness]
		if view := stillView(typing, screen); view != prev || still.IsZero() {
			prev, still = view, time.Now()
		}
		keys, err := d.plan(rec, a, screen)
		if err == nil && time.Since(still) < typing.HoldStill {
			// A program that draws its screen again for a moment after its turn ends can
			// lose keys it gets meanwhile, or drop an Enter that comes just as a dialog
			// appears: it is typed into once its screen has held still a while (its
			// harness's Typing, adapter/prompt, says how long).
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

// stillView is the part of screen that must hold still before an answer is typed into a
// program that typing describes: the whole screen, or what its StillView leaves of it.
func stillView(typing termprompt.Typing, screen string) string {
	if typing.StillView == nil {
		return screen
	}
	return typing.StillView(screen)
}
