package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/trailboss/trailboss/daemon/statedir"
)

// defaultAddr is where the daemon listens unless told otherwise.
const defaultAddr = "127.0.0.1:4000"

// place is where the daemon is and where its state lives, from flags over the environment.
type place struct {
	addr     string
	stateDir string
}

// placeFlags adds --addr and --state-dir to fs; resolve fills in what they left empty.
func placeFlags(fs *flag.FlagSet, p *place) {
	fs.StringVar(&p.addr, "addr", "", "daemon address (default $TRAILBOSS_ADDR or "+defaultAddr+")")
	fs.StringVar(&p.stateDir, "state-dir", "", "state directory (default $TRAILBOSS_STATE_DIR, $XDG_STATE_HOME/trailboss)")
}

func (p *place) resolve(getenv func(string) string) error {
	if p.addr == "" {
		p.addr = getenv("TRAILBOSS_ADDR")
	}
	if p.addr == "" {
		p.addr = defaultAddr
	}
	if p.stateDir == "" {
		d, err := statedir.Default()
		if err != nil {
			return err
		}
		p.stateDir = d
	}
	return nil
}

// parse parses args with fs, turning flag errors into usage errors and refusing
// positional arguments.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s takes no arguments, got %q", errUsage, fs.Name(), fs.Args())
	}
	return nil
}
