package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/client"
)

// runWatch asks the daemon to watch a pane's screen: for an agent that reports no hooks.
// Panes running the programs the registry names (daemon.ScreenCommands) are found without asking.
func runWatch(ctx context.Context, e *env, args []string) error {
	return watchCommand(ctx, e, "watch", args, false)
}

func watchCommand(ctx context.Context, e *env, name string, args []string, stop bool) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	harness := fs.String("harness", "", "what runs in the pane (shown in the queue)")
	socket := fs.String("socket", "", "tmux server socket (default: from $TMUX)")
	rest, err := parseArgs(fs, args, e.stderr, 1)
	if err != nil {
		return err
	}
	pane := e.getenv("TMUX_PANE")
	switch {
	case len(rest) == 1:
		pane = rest[0]
		if !adapter.ValidPane(pane) {
			return fmt.Errorf("%w: %q is not a tmux pane id: give one such as %%3 (tmux display -p '#{pane_id}' prints yours)", errUsage, pane)
		}
	case pane == "":
		return fmt.Errorf("%w: which pane? give its id, as in: trailboss %s %%3 (or run it inside that pane)", errUsage, name)
	}
	if err := p.Resolve(e.getenv); err != nil {
		return err
	}
	sock := *socket
	if sock == "" {
		s, err := adapter.SocketFromTmuxEnv(e.getenv("TMUX"))
		if err != nil {
			return err
		}
		sock = s
	}
	if sock == "" {
		return fmt.Errorf("%w: not inside tmux: pass --socket", errUsage)
	}
	c, err := client.New(p.Addr, p.StateDir, 2*time.Second)
	if err != nil {
		return err
	}
	return c.Watch(ctx, sock, pane, *harness, stop)
}

// watchHelp is what `trailboss watch --help` says around the flags.
var watchHelp = commandHelp{
	Args: "[%N] [--harness NAME]",
	About: "Watches a pane's screen for an agent that reports no hooks, and queues it when its\n" +
		"screen waits for you. Panes running claude, codex, opencode, gemini or aider are found\n" +
		"without asking. Without %N, the pane you run it in.",
	Example: "trailboss watch %3 --harness aider",
}
