package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/trailboss/trailboss/cmd/internal/demo"
	"github.com/trailboss/trailboss/cmd/internal/simagent"
)

// runDemo is the demo verb (cmd/internal/demo): an isolated tmux server with the daemon and
// three simulated agents, attached.
func runDemo(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	dir := fs.String("dir", "", "folder for the demo's state (default: a new temp folder, removed when the demo ends)")
	noAttach := fs.Bool("no-attach", false, "set everything up but do not attach (prints how to, and how to stop it)")
	addr := fs.String("addr", "", "a loopback TCP address for the demo's daemon too (default: its unix socket alone)")
	fast := fs.Bool("fast", false, "agents get stuck within a second (for tests)")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	self := selfPath()
	return demo.Run(ctx, demo.Options{Dir: *dir, Addr: *addr, Fast: *fast, NoAttach: *noAttach,
		Self: self, TmuxConf: demoTmuxConf(self), OuterPrefix: demo.OuterTmuxPrefix(e.getenv),
		Stdout: e.stdout, Stderr: e.stderr})
}

// runDemoAgent is the demo-agent verb: the simulated Claude Code session of the demo and the
// tests (cmd/internal/simagent).
func runDemoAgent(ctx context.Context, e *env, args []string) error {
	err := simagent.Run(ctx, args, e.stdin, e.stdout, e.stderr, selfPath())
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return fmt.Errorf("%w: %w (see trailboss demo-agent --help)", errUsage, err)
	}
	return err
}

// demoHelp is what `trailboss demo --help` says around the flags.
var demoHelp = commandHelp{
	Args: "[--no-attach]",
	About: "Try it: an isolated tmux server with the daemon and three simulated agents, each in a\n" +
		"project of its own. Detaching, Ctrl-C or closing the terminal stops it all and leaves\n" +
		"nothing behind.",
	Example: "trailboss demo",
}

// demoAgentHelp is what `trailboss demo-agent --help` says around the flags.
var demoAgentHelp = commandHelp{
	Args:    "[flags]",
	About:   "A simulated Claude Code session, for the demo and the tests.",
	Example: "trailboss demo-agent --session demo-api",
}
