// Package hotcmd is the commands that run on every hook, key press and status-line redraw:
// emit, status, jump-next and skip. They are written once, here, for both binaries:
// trailboss runs them as its subcommands, and trailboss-hot, a small binary of these verbs
// alone (no cgo, no SQLite, no TUI), starts fast enough for a hook. Nothing in what this
// package links may do real work at package init (no regexp.MustCompile at top level):
// every hook would pay for it.
//
// Also here, because these verbs need them: the command line's shared preamble (the env
// a command gets, flag parsing, -h, where the daemon is) and its exit codes.
package hotcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Env is what every command gets from its caller.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// ErrUsage marks a command line we cannot understand (exit 2).
var ErrUsage = errors.New("usage")

// ExitCode returns the exit code for a command's error, and reports the error on stderr
// as "trailboss: …" when it is one to say: 0 for none or -h, 2 for ErrUsage, else 1.
func ExitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintln(stderr, "trailboss:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "trailboss:", err)
		return 1
	}
}

// A Verb is one hot command.
type Verb struct {
	Name, Summary string
	Run           func(ctx context.Context, e *Env, args []string) error
	// Interruptible says that trailboss-hot cancels the verb's context on SIGINT, SIGTERM
	// and SIGHUP rather than dying at once: emit, whose hold ends cleanly and whose event is
	// spooled. The other verbs take a few milliseconds and hold nothing, and catching
	// signals is not free: it starts a thread, about a third of trailboss-hot status's
	// start-up cost above a bare Go program's.
	Interruptible bool
}

// Verbs are the hot commands, as `trailboss help` lists them.
var Verbs = []Verb{
	{"emit", "the hook command (Claude Code; --codex for Codex; --opencode for OpenCode's plugin; --generic for scripts): exit 0, print only a held decision", Emit, true},
	{"jump-next", "switch a tmux client to the oldest stuck pane", JumpNext, false},
	{"skip", "skip the current stuck item (tail + cooldown) and jump to the next", Skip, false},
	{"status", "print \"⚠ N stuck\" for a status line (nothing when none)", Status, false},
}

// Run runs the hot verb args[0] with the rest of args: what trailboss-hot does. Any other
// command is a usage error that says to run it with trailboss.
func Run(ctx context.Context, e *Env, args []string) error {
	v, err := verb(args)
	if err != nil {
		return err
	}
	return v.Run(ctx, e, args[1:])
}

// verb returns the hot verb args[0] names.
func verb(args []string) (Verb, error) {
	if len(args) == 0 {
		return Verb{}, fmt.Errorf("%w: no command given (trailboss-hot runs emit, status, jump-next and skip; trailboss help lists every command)", ErrUsage)
	}
	for _, v := range Verbs {
		if v.Name == args[0] {
			return v, nil
		}
	}
	return Verb{}, fmt.Errorf("%w: unknown command %q: trailboss-hot runs only emit, status, jump-next and skip; run trailboss %s", ErrUsage, args[0], args[0])
}

// Main is trailboss-hot's main: it runs the verb of the command line, an Interruptible
// one with SIGINT, SIGTERM and SIGHUP cancelling its context as trailboss does, and
// returns the exit code.
func Main() int {
	args := os.Args[1:]
	v, err := verb(args)
	if err != nil {
		return ExitCode(err, os.Stderr)
	}
	ctx := context.Background()
	if v.Interruptible {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer stop()
	}
	e := &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	return ExitCode(v.Run(ctx, e, args[1:]), os.Stderr)
}
