package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter/pty"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wire"
)

// runLogFile is the supervisor's own log in the state directory (it may not write to the
// terminal its child owns), and runLogMax the size at which it starts over.
const (
	runLogFile = "run.log"
	runLogMax  = 1 << 20
)

// exitStatus is an exit code that a command passes on as its own: trailboss run's is its
// child's.
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// runRun is `trailboss run [flags] -- CMD [ARGS…]`: CMD on a PTY of its own, supervised.
func runRun(ctx context.Context, e *env, args []string) error {
	flags := flag.NewFlagSet("run", flag.ContinueOnError)
	name := flags.String("name", "", "what to call the session in the queue (default: the command's name)")
	settle := flags.Duration("settle", pty.DefaultSettle, "how long output must be quiet before its last lines are read as a prompt")
	stall := flags.Duration("stall", 0, "how long output must be quiet before a child with no prompt on screen counts as waiting (default: settle + 0.5s)")
	var p place
	placeFlags(flags, &p)
	flags.SetOutput(io.Discard) // the error is reported once, below
	flags.Usage = func() {}
	// Flags end at the command: what follows it (after -- or not) is the command's.
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usageFor(e.stdout, flags)
			return err
		}
		return fmt.Errorf("%w: run: %v (see trailboss run --help)", errUsage, err)
	}
	command := flags.Args()
	if len(command) == 0 {
		return fmt.Errorf("%w: run: no command given — put it after --, e.g. trailboss run -- claude", errUsage)
	}
	if *settle <= 0 {
		return fmt.Errorf("%w: run: --settle must be longer than 0, got %v", errUsage, *settle)
	}
	if *stall == 0 {
		*stall = *settle + pty.DefaultStallExtra
	}
	if *stall < *settle {
		return fmt.Errorf("%w: run: --stall (%v) must not be shorter than --settle (%v)", errUsage, *stall, *settle)
	}
	if err := p.Resolve(e.getenv); err != nil {
		return err
	}

	log, closeLog := openRunLog(p.StateDir)
	defer closeLog()
	link := newPTYLink(p.StateDir, p.Addr, e.getenv)
	if e.getenv("TMUX") != "" && e.getenv("TMUX_PANE") != "" {
		link.pane, link.tmux = e.getenv("TMUX_PANE"), e.getenv("TMUX")
	}
	sup, err := pty.New(pty.Config{Args: command, Name: *name, Settle: *settle, Stall: *stall,
		Stdin: e.stdin, Stdout: e.stdout, Link: link, Log: log, Signals: true})
	if err != nil {
		return fmt.Errorf("%w: run: %v", errUsage, err)
	}
	// The signals main turns into ctx's end go to the child instead: it decides when the
	// run ends, and its status is ours.
	code, err := sup.Run(context.WithoutCancel(ctx))
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(e.stderr, "trailboss: run: %s was not found — check its name, or give its full path\n", command[0])
		return &exitStatus{127}
	case err != nil:
		fmt.Fprintf(e.stderr, "trailboss: run: %s could not be started: %v — check that it is a program you may run\n", command[0], err)
		return &exitStatus{126}
	}
	if code == 0 {
		return nil
	}
	return &exitStatus{code}
}

// openRunLog opens the supervisor's log in stateDir (starting it over past runLogMax), or
// a log to nowhere when it cannot.
func openRunLog(stateDir string) (*slog.Logger, func()) {
	discard := slog.New(slog.DiscardHandler)
	if _, _, err := statedir.Ensure(stateDir); err != nil {
		return discard, func() {} // not the user's own directory: nothing of theirs goes there
	}
	path := filepath.Join(stateDir, runLogFile)
	if st, err := os.Stat(path); err == nil && st.Size() > runLogMax {
		_ = os.Rename(path, path+".old")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return discard, func() {}
	}
	return slog.New(slog.NewTextHandler(f, nil)).With("pid", os.Getpid()), func() { f.Close() }
}

// ptyLink is the supervisor's Link to the daemon, over daemon/client. It finds the daemon
// again after every failure: the daemon may have started since (it writes the token) or
// moved to another address.
type ptyLink struct {
	pane, tmux string
	daemon     client.Lazy
}

func newPTYLink(stateDir, pinned string, getenv func(string) string) *ptyLink {
	l := &ptyLink{}
	l.daemon.Make = func() (*client.Client, error) {
		// --addr or $TRAILBOSS_ADDR, asked again each time: the daemon may have moved.
		addr := daemonAddr(firstNonEmpty(pinned, getenv("TRAILBOSS_ADDR")), getenv)
		return client.New(addr, stateDir, 3*time.Second)
	}
	return l
}

// outcome sorts err for the supervisor: a refusal wraps pty.ErrRefused; otherwise the
// client is dropped, so the next call finds the daemon again.
func (l *ptyLink) outcome(err error) error {
	if err == nil {
		return nil
	}
	var refused *client.RefusedError
	if errors.As(err, &refused) && !strings.HasPrefix(refused.Status, "401") {
		return fmt.Errorf("%w: %w", pty.ErrRefused, err)
	}
	l.daemon.Drop() // a 401 too: the daemon may have a new token
	return err
}

func (l *ptyLink) Report(ctx context.Context, r pty.Report) (string, error) {
	c, err := l.daemon.Get()
	if err != nil {
		return "", err
	}
	ack, err := c.PTYReport(ctx, r.Wire(), l.pane, l.tmux)
	return ack.PromptID, l.outcome(err)
}

func (l *ptyLink) Answers(ctx context.Context, session string, fn func(pty.Answer)) error {
	c, err := l.daemon.Get()
	if err != nil {
		return err
	}
	err = c.PTYAnswers(ctx, session, func(a wire.PTYAnswer) {
		fn(pty.Answer{AnswerID: a.AnswerID, PromptID: a.PromptID, Data: a.Data})
	})
	return l.outcome(err)
}

func (l *ptyLink) Written(ctx context.Context, w pty.Written) error {
	c, err := l.daemon.Get()
	if err != nil {
		return err
	}
	return l.outcome(c.PTYWritten(ctx, wire.PTYWritten{SessionID: w.SessionID, AnswerID: w.AnswerID, OK: w.OK, Reason: w.Reason}))
}

// runHelp is what `trailboss run --help` says around the flags.
var runHelp = commandHelp{
	Args: "[--name NAME] [--settle 2s] [--stall 2.5s] -- CMD [ARGS…]",
	About: "Runs CMD on a terminal of its own and passes yours through to it untouched: keys,\n" +
		"window size, signals and its exit status. When its output goes quiet on a question\n" +
		"(y/n, a menu, press Enter, a line to type), the session joins the queue with that\n" +
		"question, and an answer from the popup, trailboss reply or a phone is typed into it.\n" +
		"Quiet for the stall time with no question on screen, it joins as \"waiting for\n" +
		"input\", answered with a line of text. It works without the daemon too, and\n" +
		"reports once the daemon is up. Its own log is run.log in the state directory.",
	Example: "trailboss run --name deploy -- ./deploy.sh staging",
}
