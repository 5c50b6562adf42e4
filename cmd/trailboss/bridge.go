package main

import (
	"context"
	"flag"

	"github.com/trailboss/trailboss/daemon/client/bridge"
	"github.com/trailboss/trailboss/daemon/client/hot"
	"github.com/trailboss/trailboss/daemon/statedir"
)

// runBridge joins standard input and output to this machine's daemon socket, for a hub that
// runs `ssh host trailboss bridge` where the ssh server forwards no unix socket. Standard
// output carries the daemon's bytes and nothing else: help and errors go to standard error.
func runBridge(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("bridge", flag.ContinueOnError)
	stateDir := fs.String("state-dir", "", "state directory (default $TRAILBOSS_STATE_DIR, $XDG_STATE_HOME/trailboss)")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	if *stateDir == "" {
		d, err := statedir.Default()
		if err != nil {
			return err
		}
		*stateDir = d
	}
	sock, err := statedir.SocketPath(*stateDir)
	if err != nil {
		return err
	}
	// No token: the bridge carries the caller's bytes, and whoever calls through it sends
	// what the daemon asks of any caller.
	return bridge.Run(ctx, hot.Target{Socket: sock}, e.stdin, e.stdout)
}

// bridgeHelp is what `trailboss bridge --help` says around the flags.
var bridgeHelp = commandHelp{
	Args: "[--state-dir DIR]",
	About: "Joins standard input and output to this machine's daemon socket, as the user it runs\n" +
		"as, until either side ends the stream. Another machine's Trail Boss runs it through ssh\n" +
		"when the ssh server here does not forward unix sockets; you do not run it yourself.\n" +
		"It writes nothing on standard output but the daemon's bytes; when the daemon is not\n" +
		"running it says so on standard error and exits 1.",
	Example: "ssh devbox trailboss bridge",
}
