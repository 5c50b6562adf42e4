package main

import "context"

func runUnwatch(ctx context.Context, e *env, args []string) error {
	return watchCommand(ctx, e, "unwatch", args, true)
}

// unwatchHelp is what `trailboss unwatch --help` says around the flags.
var unwatchHelp = commandHelp{
	Args:    "[%N]",
	About:   "Stops watching a pane's screen.",
	Example: "trailboss unwatch %3",
}
