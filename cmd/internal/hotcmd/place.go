package hotcmd

import (
	"flag"
	"os"
	"path/filepath"

	"github.com/trailboss/trailboss/cmd/internal/config"
	"github.com/trailboss/trailboss/daemon/statedir"
)

// Place is where the daemon is and where its state lives.
type Place struct {
	// Addr is the daemon's TCP address when one was asked for, else "": then the daemon is
	// reached through its unix socket in StateDir.
	Addr     string
	StateDir string
	// AddrFrom says which setting chose Addr: "flag", "env", "config", or "socket" (none).
	AddrFrom string
}

// Where returns where the client reaches the daemon, for messages: the TCP address, or the
// socket's path.
func (p Place) Where() string {
	if p.Addr != "" {
		return p.Addr
	}
	if sock, err := statedir.SocketPath(p.StateDir); err == nil {
		return sock
	}
	return filepath.Join(p.StateDir, statedir.SocketFile)
}

// PlaceFlags adds --addr and --state-dir to fs; Resolve fills in what they left empty.
func PlaceFlags(fs *flag.FlagSet, p *Place) {
	fs.StringVar(&p.Addr, "addr", "", "reach the daemon over TCP at this loopback address (default $TRAILBOSS_ADDR, else config.toml's addr, else its unix socket in the state directory)")
	fs.StringVar(&p.StateDir, "state-dir", "", "state directory (default $TRAILBOSS_STATE_DIR, $XDG_STATE_HOME/trailboss)")
}

// Resolve fills in a client's place: flags, then the environment, then the config file.
func (p *Place) Resolve(getenv func(string) string) error {
	if p.StateDir == "" {
		d, err := statedir.Default()
		if err != nil {
			return err
		}
		p.StateDir = d
	}
	switch {
	case p.Addr != "":
		p.AddrFrom = "flag"
	case getenv("TRAILBOSS_ADDR") != "":
		p.Addr, p.AddrFrom = getenv("TRAILBOSS_ADDR"), "env"
	default:
		p.Addr, p.AddrFrom = ConfigAddr(getenv)
	}
	return nil
}

// ResolveClient is Resolve for a client that only reaches the daemon (hot.Find): when no
// flag or environment names an address and the state directory has the daemon's socket,
// the client goes through the socket whatever config.toml says, so the file is not read
// (it is most of what prefix Tab's process does before its request).
func (p *Place) ResolveClient(getenv func(string) string) error {
	if p.Addr == "" && getenv("TRAILBOSS_ADDR") == "" {
		if p.StateDir == "" {
			d, err := statedir.Default()
			if err != nil {
				return err
			}
			p.StateDir = d
		}
		if sock, err := statedir.SocketPath(p.StateDir); err == nil {
			if fi, err := os.Lstat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
				p.AddrFrom = "socket"
				return nil
			}
		}
	}
	return p.Resolve(getenv)
}

// DaemonAddr returns the TCP address every client uses to reach the daemon: the one given
// (a flag or TRAILBOSS_ADDR), else config.toml's addr, else "" for the daemon's unix socket.
func DaemonAddr(given string, getenv func(string) string) string {
	if given != "" {
		return given
	}
	addr, _ := ConfigAddr(getenv)
	return addr
}

// ConfigAddr returns the config file's addr and "config", or "" and "socket" when it sets
// none (or cannot be read: the daemon would refuse to start with it anyway).
func ConfigAddr(getenv func(string) string) (addr, from string) {
	if cfg, err := config.Load(getenv); err == nil && cfg.Addr != "" {
		return cfg.Addr, "config"
	}
	return "", "socket"
}
