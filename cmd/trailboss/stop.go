package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
)

// runStop stops the daemon of this state directory with SIGTERM and waits until it is gone.
func runStop(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	if err := parsePlace(fs, &p, args, e); err != nil {
		return err
	}
	pid, err := stopDaemon(p.StateDir)
	switch {
	case err != nil:
		return err
	case pid == 0:
		fmt.Fprintln(e.stdout, "trailboss daemon is not running")
	default:
		fmt.Fprintf(e.stdout, "trailboss daemon stopped (pid %d)\n", pid)
	}
	return nil
}

// stopDaemon stops the daemon of stateDir with SIGTERM and waits until it is gone. It
// returns its pid, or 0 when none was running.
func stopDaemon(stateDir string) (int, error) {
	rec, held := statedir.Holder(stateDir)
	if !held {
		return 0, nil
	}
	pid := statedir.HolderPID(rec)
	if pid <= 0 {
		return 0, fmt.Errorf("cannot tell the daemon's pid from %q", rec)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return 0, fmt.Errorf("stop daemon (pid %d): %w", pid, err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, held := statedir.Holder(stateDir); !held {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("the daemon (pid %d) did not stop within 10 s", pid)
}

// stopHelp is what `trailboss stop --help` says around the flags.
var stopHelp = commandHelp{
	Args:    "",
	About:   "Stops the running daemon.",
	Example: "trailboss stop",
}
