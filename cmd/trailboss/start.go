package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	explicitAddr := firstNonEmpty(p.Addr, e.getenv("TRAILBOSS_ADDR"))
	// A config the daemon would refuse is said now, not after a wait.
	cfg, err := loadConfig(e.getenv)
	if err == nil {
		err = checkConfig(cfg, configPath(e.getenv))
	}
	if err != nil {
		return fmt.Errorf("%w\nfix that line, then run trailboss start again", err)
	}
	if err := p.Resolve(e.getenv); err != nil {
		return err
	}
	if rec, held := statedir.Holder(p.StateDir); held {
		fmt.Fprintf(e.stdout, "trailboss daemon already running (%s)\n", rec)
		return nil
	}
	if _, err := statedir.SocketPath(p.StateDir); err != nil {
		return err
	}
	if p.Addr != "" {
		if err := addrFree(p.Addr, p.AddrFrom, e.getenv); err != nil {
			return err
		}
	}
	tightened, _, err := statedir.Ensure(p.StateDir)
	if err != nil {
		return err
	}
	if tightened {
		fmt.Fprintln(e.stdout, statedir.TightenedNote(p.StateDir))
	}
	socket := *socketFlag
	if socket == "" {
		s, err := adapter.SocketFromTmuxEnv(e.getenv("TMUX"))
		if err != nil {
			return err
		}
		socket = s
	}
	return startDaemonProcess(ctx, e, p, explicitAddr, socket)
}

// startDaemonProcess starts the daemon of p, in a detached session of the tmux server at socket
// (or, with none, as a detached process logging to the state directory), and waits until it
// runs or says why not.
func startDaemonProcess(ctx context.Context, e *env, p place, addr, socket string) error {
	// The daemon writes why it exits into report, so that a start that fails says so at
	// once, in the daemon's own words, wherever its output goes.
	report, err := os.CreateTemp("", "trailboss-start-*")
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	report.Close()
	defer os.Remove(report.Name())
	argv := []string{selfPath(), "daemon", "--state-dir", p.StateDir, "--report-exit", report.Name()}
	if addr != "" {
		argv = append(argv, "--addr", addr)
	}
	where, see := "", ""
	if socket != "" {
		if err := startInTmux(ctx, socket, argv); err != nil {
			return err
		}
		where, see = " in tmux session "+daemonSession, "tmux attach -t "+daemonSession
	} else {
		log := filepath.Join(p.StateDir, "daemon.log")
		// The daemon rotates its own log, so that months of running keep a few megabytes.
		if err := startDetached(p.StateDir, append(argv, "--log-file", log)); err != nil {
			return err
		}
		where, see = ", logging to "+log, "less "+log
	}
	rec, err := waitRunning(ctx, p, report.Name(), 5*time.Second, see)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "trailboss daemon started (%s)%s\n", rec, where)
	return nil
}

// addrFree returns an error in the user's words when another program already accepts
// connections at addr (no daemon of ours holds the state directory, so it is not ours):
// the daemon would fail to listen, and waiting for it would only say "did not start".
func addrFree(addr, source string, getenv func(string) string) error {
	conn, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return nil
	}
	conn.Close()
	return addrTaken(addr, source, getenv)
}

// addrTaken says that another program listens at addr, and how to move the daemon.
func addrTaken(addr, source string, getenv func(string) string) error {
	return fmt.Errorf("%s is taken by another program, so the daemon cannot listen there; %s", addr, takenFix(addr, source, getenv))
}

// takenFix is the advice for a daemon address another program holds: a port that is free
// now, put in the setting that chose addr (a place's addrFrom), so that following it works.
func takenFix(addr, source string, getenv func(string) string) string {
	free := freeNear(addr)
	switch source {
	case "env":
		return "TRAILBOSS_ADDR chose it: set TRAILBOSS_ADDR=" + free + " instead"
	case "flag":
		return "pass another address, such as --addr " + free
	}
	return fmt.Sprintf("put addr = %q in %s (or set TRAILBOSS_ADDR=%s), then run trailboss start again",
		free, configPath(getenv), free)
}

// freeNear returns the first loopback address after addr's port that nothing listens on.
func freeNear(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "127.0.0.1:4001"
	}
	n, _ := strconv.Atoi(port)
	for p := n + 1; p < n+100 && p < 65536; p++ {
		cand := net.JoinHostPort(host, strconv.Itoa(p))
		if l, err := net.Listen("tcp", cand); err == nil {
			l.Close()
			return cand
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(n+1))
}

func startInTmux(ctx context.Context, socket string, argv []string) error {
	tmux := tmuxctl.New(socket)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = hooks.ShellWord(a)
	}
	// On failure keep the window for a moment so that the reason can be read.
	cmd := strings.Join(quoted, " ") + ` || { echo "trailboss daemon exited"; sleep 5; }`
	return tmux.NewDetachedSession(ctx, daemonSession, "daemon", cmd)
}

func startDetached(stateDir string, argv []string) error {
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

// waitRunning waits until a daemon holds the lock and answers on its socket, and returns
// its record. When
// the daemon exits first, the error is its own, from the report file it wrote; see is how
// to read its output.
func waitRunning(ctx context.Context, p place, report string, timeout time.Duration, see string) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if _, held := statedir.Holder(p.StateDir); held {
			if c, err := client.New("", p.StateDir, time.Second); err == nil {
				if _, err := c.Status(ctx); err == nil {
					// Read after it answered: the daemon records itself just before serving.
					if rec, _ := statedir.Holder(p.StateDir); rec != "" {
						return rec, nil
					}
				}
			}
		}
		if b, _ := os.ReadFile(report); len(b) > 0 {
			return "", fmt.Errorf("the daemon did not start: %s", strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the daemon did not answer within %v; to see what it says: %s", timeout, see)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startHelp is what `trailboss start --help` says around the flags.
var startHelp = commandHelp{
	Args:    "[flags]",
	About:   "Starts the daemon in the background if none runs.",
	Example: "trailboss start",
}
