package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
)

// runReply answers the prompt of one stuck session: trailboss reply SESSION|%PANE
// (--choice KEY | TEXT…).
func runReply(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("reply", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	choice := fs.String("choice", "", "the key of one of the prompt's choices (allow, deny, 1, 2, y, n, enter …)")
	rest, err := parseArgs(fs, args, e.stderr, 1000)
	if err != nil {
		return err
	}
	if err := p.Resolve(e.getenv); err != nil {
		return err
	}
	if len(rest) == 0 {
		return fmt.Errorf("%w: say which session or pane to answer: trailboss reply SESSION|%%PANE (--choice KEY | TEXT…)", errUsage)
	}
	target, words := rest[0], rest[1:]
	text := strings.Join(words, " ")
	if (*choice == "") == (text == "") {
		return fmt.Errorf("%w: give either --choice KEY or the text of the reply, not both and not neither", errUsage)
	}
	c, err := client.New(p.Addr, p.StateDir, 10*time.Second)
	if err != nil {
		return err
	}
	items, err := c.Queue(ctx)
	if err != nil {
		return err
	}
	it, err := replyTarget(items, target, e.getenv)
	if err != nil {
		return err
	}
	if it.Prompt == nil {
		return fmt.Errorf("not delivered: %s waits, but %s; answer it in its pane",
			describeItem(it), client.WhyNoPrompt(it, time.Now()))
	}
	switch {
	case it.Prompt.Kind == wire.KindFreeText && *choice != "":
		return fmt.Errorf("not delivered: %s waits for a line of text, not a choice: trailboss reply %s 'your words'",
			describeItem(it), target)
	case it.Prompt.Kind != wire.KindFreeText && text != "":
		keys := make([]string, len(it.Prompt.Choices))
		for i, ch := range it.Prompt.Choices {
			keys[i] = ch.Key
		}
		return fmt.Errorf("not delivered: %s waits for one of its choices (%s), not text: trailboss reply %s --choice KEY",
			describeItem(it), strings.Join(keys, ", "), target)
	}
	out, err := c.Answer(ctx, it.Prompt.ID, wire.Answer{Choice: *choice, Text: text, Channel: "cli"})
	var bad *client.RefusedError
	switch o := wire.OutcomeOf(out, err); {
	case o.Kind == wire.OutcomeRefused:
		return fmt.Errorf("not delivered: %s", o.Message)
	case errors.As(err, &bad): // any other no of the daemon's: a 400 for an answer that does not fit
		return fmt.Errorf("not delivered: %s", bad.Message)
	case err != nil:
		return err
	}
	how := map[string]string{wire.ViaHook: "through its permission hook", wire.ViaKeys: "by typing into pane " + it.Pane,
		wire.ViaPTY: "through trailboss run"}[out.Via]
	if out.Confirmed {
		fmt.Fprintf(e.stdout, "answered %s %s; it took the answer\n", describeItem(it), how)
	} else {
		fmt.Fprintf(e.stdout, "answered %s %s; it has not moved on yet — look at the pane if it still waits\n", describeItem(it), how)
	}
	return nil
}

// replyTarget finds the queue item a reply names: a session id (or a unique prefix of one),
// or a pane id (on this tmux server when run inside tmux).
func replyTarget(items []client.Item, target string, getenv func(string) string) (client.Item, error) {
	var found []client.Item
	if adapter.ValidPane(target) {
		socket, _ := adapter.SocketFromTmuxEnv(getenv("TMUX"))
		for _, it := range items {
			if it.Pane == target && (socket == "" || it.TmuxSocket == socket) {
				found = append(found, it)
			}
		}
	} else {
		for _, it := range items {
			if it.SessionID == target {
				return it, nil
			}
			if strings.HasPrefix(it.SessionID, target) {
				found = append(found, it)
			}
		}
	}
	switch len(found) {
	case 0:
		return client.Item{}, fmt.Errorf("nothing stuck matches %q; trailboss ls shows what waits", adapter.CleanText(target, 60))
	case 1:
		return found[0], nil
	}
	return client.Item{}, fmt.Errorf("%q matches %d stuck sessions; give the whole session id (trailboss ls)", adapter.CleanText(target, 60), len(found))
}

func describeItem(it client.Item) string {
	if it.Pane != "" {
		return "session " + clipRunes(it.SessionID, 12) + " in pane " + it.Pane
	}
	return "session " + clipRunes(it.SessionID, 12)
}

// replyHelp is what `trailboss reply --help` says around the flags.
var replyHelp = commandHelp{
	Args: "SESSION|%N (--choice KEY | TEXT…)",
	About: "Answers the prompt of one stuck session from where you are: a choice it offers\n" +
		"(allow/deny, 1-9, y/n, enter — trailboss ls --json shows them) or a line of text.\n" +
		"It is delivered only if the session still waits on that same prompt in its own pane:\n" +
		"through Claude Code's permission hook when it holds, else typed into the pane.",
	Example: "trailboss reply %3 --choice allow",
}
