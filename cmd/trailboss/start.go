package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/tmuxctl"
)

// daemonSession is the tmux session `trailboss start` runs the daemon in.
const daemonSession = "trailboss"

// runStart starts the daemon unless one runs with this state directory: inside tmux in a
// detached session of its own (so it survives the SSH session), else as a detached
// process logging to daemon.log. It waits until the daemon answers.
func runStart(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	socketFlag := fs.String("socket", "", "tmux server to host the daemon (default: from $TMUX)")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	// Only an address given here is passed on; otherwise the daemon takes its config's.
	explicitAddr := firstNonEmpty(p.addr, e.getenv("TRAILBOSS_ADDR"))
	if err := p.resolve(e.getenv); err != nil {
		return err
	}
	if rec, held := statedir.Holder(p.stateDir); held {
		fmt.Fprintf(e.stdout, "trailboss daemon already running (%s)\n", rec)
		return nil
	}
	if err := addrFree(p.addr); err != nil {
		return err
	}
	socket := *socketFlag
	if socket == "" {
		s, err := adapter.SocketFromTmuxEnv(e.getenv("TMUX"))
		if err != nil {
			return err
		}
		socket = s
	}
	argv := []string{selfPath(), "daemon", "--state-dir", p.stateDir}
	if explicitAddr != "" {
		argv = append(argv, "--addr", explicitAddr)
	}
	where := ""
	if socket != "" {
		if err := startInTmux(ctx, socket, argv); err != nil {
			return err
		}
		where = " in tmux session " + daemonSession
	} else {
		if err := startDetached(p.stateDir, argv); err != nil {
			return err
		}
		where = ", logging to " + filepath.Join(p.stateDir, "daemon.log")
	}
	rec, err := waitRunning(ctx, p, 5*time.Second)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "trailboss daemon started (%s)%s\n", rec, where)
	return nil
}

// addrFree returns an error in the user's words when another program already accepts
// connections at addr (no daemon of ours holds the state directory, so it is not ours):
// the daemon would fail to listen, and waiting for it would only say "did not start".
func addrFree(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return nil
	}
	conn.Close()
	return fmt.Errorf("%s is taken by another program — choose a free address: addr = \"127.0.0.1:4001\" "+
		"in config.toml, or TRAILBOSS_ADDR=127.0.0.1:4001 in the environment", addr)
}

func startInTmux(ctx context.Context, socket string, argv []string) error {
	tmux := tmuxctl.New(socket)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = hooks.ShellWord(a)
	}
	// On failure keep the window for a moment so that the reason can be read.
	cmd := strings.Join(quoted, " ") + ` || { echo "trailboss daemon exited"; sleep 30; }`
	return tmux.NewDetachedSession(ctx, daemonSession, "daemon", cmd)
}

func startDetached(stateDir string, argv []string) error {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(stateDir, "daemon.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // out of our session: no SIGHUP
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start daemon: %w", err)
	}
	return cmd.Process.Release()
}

// waitRunning waits until a daemon holds the lock and answers, and returns its record.
func waitRunning(ctx context.Context, p place, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if rec, held := statedir.Holder(p.stateDir); held {
			if c, err := client.New(statedir.LastAddr(p.stateDir), p.stateDir, time.Second); err == nil {
				if _, err := c.Status(ctx); err == nil {
					return rec, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the daemon did not start within %v; run `trailboss daemon` to see why", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
