package main

// The helpers every command shares: flag parsing, where the daemon is, how to run this
// binary again. (Shell words are quoted with hooks.ShellWord; ages shown with queue.Age.)

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/trailboss/trailboss/daemon/statedir"
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
// to the help.
func parse(fs *flag.FlagSet, args []string, out io.Writer) error {
	rest, err := parseArgs(fs, args, out, 0)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: %s takes no arguments, got %q (see trailboss %s --help)",
			errUsage, fs.Name(), strings.Join(rest, " "), fs.Name())
	}
	return nil
}

// parseArgs parses flags anywhere among args and returns the other arguments, at most max
// of them.
func parseArgs(fs *flag.FlagSet, args []string, out io.Writer, max int) ([]string, error) {
	fs.SetOutput(io.Discard) // the error is reported once, by the caller
	fs.Usage = func() {}
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usageFor(out, fs)
				return nil, err
			}
			return nil, fmt.Errorf("%w: %s: %v (see trailboss %s --help)", errUsage, fs.Name(), err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
	if len(rest) > max {
		return nil, fmt.Errorf("%w: %s takes at most %d argument(s), got %q (see trailboss %s --help)",
			errUsage, fs.Name(), max, strings.Join(rest, " "), fs.Name())
	}
	return rest, nil
}

// place is where the daemon is and where its state lives.
type place struct {
	// addr is the daemon's TCP address when one was asked for, else "": then the daemon is
	// reached through its unix socket in stateDir.
	addr     string
	stateDir string
	// addrFrom says which setting chose addr: "flag", "env", "config", or "socket" (none).
	addrFrom string
}

// where returns where the client reaches the daemon, for messages: the TCP address, or the
// socket's path.
func (p place) where() string {
	if p.addr != "" {
		return p.addr
	}
	if sock, err := statedir.SocketPath(p.stateDir); err == nil {
		return sock
	}
	return filepath.Join(p.stateDir, statedir.SocketFile)
}

// placeFlags adds --addr and --state-dir to fs; resolve fills in what they left empty.
func placeFlags(fs *flag.FlagSet, p *place) {
	fs.StringVar(&p.addr, "addr", "", "reach the daemon over TCP at this loopback address (default $TRAILBOSS_ADDR, else config.toml's addr, else its unix socket in the state directory)")
	fs.StringVar(&p.stateDir, "state-dir", "", "state directory (default $TRAILBOSS_STATE_DIR, $XDG_STATE_HOME/trailboss)")
}

// resolve fills in a client's place: flags, then the environment, then the config file
// (daemonAddr).
func (p *place) resolve(getenv func(string) string) error {
	if p.stateDir == "" {
		d, err := statedir.Default()
		if err != nil {
			return err
		}
		p.stateDir = d
	}
	switch {
	case p.addr != "":
		p.addrFrom = "flag"
	case getenv("TRAILBOSS_ADDR") != "":
		p.addr, p.addrFrom = getenv("TRAILBOSS_ADDR"), "env"
	default:
		p.addr, p.addrFrom = configAddr(getenv)
	}
	return nil
}

// daemonAddr returns the TCP address every client uses to reach the daemon: the one given
// (a flag or TRAILBOSS_ADDR), else config.toml's addr, else "" for the daemon's unix socket.
func daemonAddr(given string, getenv func(string) string) string {
	if given != "" {
		return given
	}
	addr, _ := configAddr(getenv)
	return addr
}

// configAddr returns the config file's addr and "config", or "" and "socket" when it sets
// none (or cannot be read: the daemon would refuse to start with it anyway).
func configAddr(getenv func(string) string) (addr, from string) {
	if cfg, err := loadConfig(getenv); err == nil && cfg.Addr != "" {
		return cfg.Addr, "config"
	}
	return "", "socket"
}

// parsePlace parses args with fs (which has the place flags) and resolves the place.
func parsePlace(fs *flag.FlagSet, p *place, args []string, e *env) error {
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	return p.resolve(e.getenv)
}
