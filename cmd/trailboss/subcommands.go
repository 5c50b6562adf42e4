package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
)

// subcommand is one verb of a command that takes several (lab run, telegram setup).
type subcommand struct {
	name   string
	run    func(ctx context.Context, e *env, args []string) error
	hidden bool // run by Trail Boss itself, so not offered to a user
}

// runSubcommand runs the subcommand of cmd that args name; offered lists them, in the order
// a user is told of them.
func runSubcommand(ctx context.Context, e *env, cmd string, args []string, offered []subcommand) error {
	var names []string
	for _, s := range offered {
		if !s.hidden {
			names = append(names, s.name)
		}
	}
	list := strings.Join(names, " or ")
	if len(args) == 0 {
		return fmt.Errorf("%w: %s needs a subcommand: %s (see trailboss %s --help)", errUsage, cmd, list, cmd)
	}
	for _, s := range offered {
		if s.name == args[0] {
			return s.run(ctx, e, args[1:])
		}
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usageFor(e.stdout, flag.NewFlagSet(cmd, flag.ContinueOnError))
		return flag.ErrHelp
	}
	return fmt.Errorf("%w: %s: unknown subcommand %q: use %s (see trailboss %s --help)", errUsage, cmd, args[0], list, cmd)
}
