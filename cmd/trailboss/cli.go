package main

// The helpers every command shares: flag parsing, where the daemon is, how to run this
// binary again. (Shell words are quoted with hooks.ShellWord; ages shown with queue.Age.)

import (
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/trailboss/trailboss/cmd/internal/hotcmd"
)

// selfPath returns how to run this binary again. argv[0] is preferred over the resolved
// executable because a multi-call binary (as the test harness makes) is told apart by name.
func selfPath() string {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	if p, err := os.Executable(); err == nil {
		return p
	}
	return os.Args[0]
}

// firstNonEmpty returns the first of values that is not empty, or "".
func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// parse parses args with fs, refusing positional arguments. -h or --help prints the
// command's help to out (flag.ErrHelp, exit 0); a bad flag is reported once, with the way
// to the help (hotcmd.Parse).
func parse(fs *flag.FlagSet, args []string, out io.Writer) error {
	return hotcmd.Parse(fs, args, out, usageFor)
}

// parseArgs parses flags anywhere among args and returns the other arguments, at most max
// of them (hotcmd.ParseArgs).
func parseArgs(fs *flag.FlagSet, args []string, out io.Writer, max int) ([]string, error) {
	return hotcmd.ParseArgs(fs, args, out, max, usageFor)
}

// place is where the daemon is and where its state lives (hotcmd.Place); navFlags the
// flags of the commands that move a tmux client.
type (
	place    = hotcmd.Place
	navFlags = hotcmd.NavFlags
)

// placeFlags adds --addr and --state-dir to fs; resolve fills in what they left empty.
func placeFlags(fs *flag.FlagSet, p *place) { hotcmd.PlaceFlags(fs, p) }

// daemonAddr returns the TCP address every client uses to reach the daemon (hotcmd.DaemonAddr).
func daemonAddr(given string, getenv func(string) string) string {
	return hotcmd.DaemonAddr(given, getenv)
}

// parsePlace parses args with fs (which has the place flags) and resolves the place.
func parsePlace(fs *flag.FlagSet, p *place, args []string, e *env) error {
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	return p.Resolve(e.getenv)
}
