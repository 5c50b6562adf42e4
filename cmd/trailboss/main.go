// Command trailboss is Trail Boss's binary: the daemon, the hook emitter, and the operator's
// commands. (trailboss-hot, beside it, runs the hot ones alone: package hotcmd.) main only
// maps run's error to an exit code; run wires the packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/trailboss/trailboss/cmd/internal/hotcmd"
)

// version is stamped by the Makefile with -ldflags -X main.version=….
var version = "dev"

func main() { os.Exit(mainExit()) }

// mainExit runs the command line with SIGINT, SIGTERM and SIGHUP (a closed terminal)
// cancelling its context, so that every long-running command (the daemon, the demo and its
// agents, the popup) stops cleanly, and returns the exit code.
func mainExit() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return exitCode(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr)
}

// errUsage marks a command line we cannot understand (exit 2).
var errUsage = hotcmd.ErrUsage

// errSilent is an error already reported to the user (exit 1, nothing more printed).
var errSilent = errors.New("")

// exitCode returns the exit code for run's error and reports the error, as the hot
// binary does (hotcmd.ExitCode), besides a command's own exit status and errSilent.
func exitCode(err error, stderr io.Writer) int {
	var status *exitStatus
	switch {
	case errors.As(err, &status):
		return status.code
	case errors.Is(err, errSilent):
		return 1
	default:
		return hotcmd.ExitCode(err, stderr)
	}
}

type command struct {
	name, summary string
	run           func(ctx context.Context, env *env, args []string) error
}

// commands are trailboss's commands; the hot ones (emit, jump-next, skip, status) are
// package hotcmd's, which trailboss-hot runs too.
var commands = slices.Concat([]command{
	{"daemon", "run the daemon (HTTP API on its unix socket, queue, reconcile)", runDaemon},
}, hotCommands(), []command{
	{"ls", "list the queue", runLs},
	{"reply", "answer a stuck session's prompt without going to its pane: reply SESSION|%N (--choice KEY | TEXT…)", runReply},
	{"log", "list the answers delivered (the audit log)", runLog},
	{"watch", "watch a pane's screen for an agent that reports no hooks: watch %N [--harness NAME]", runWatch},
	{"unwatch", "stop watching a pane's screen", runUnwatch},
	{"popup", "the queue picker, for tmux display-popup", runPopup},
	{"focus", "the focus view: the head's window linked beside the queue (prefix F; --next, --leave)", runFocus},
	{"setup", "install (or --undo) the Claude Code hooks (--codex: Codex's too) and the tmux keys and status", runSetup},
	{"tmux-conf", "print the tmux lines: key bindings and status segment", runTmuxConf},
	{"doctor", "check every part of the setup and say how to fix what is broken", runDoctor},
	{"start", "start the daemon in a detached tmux session if none runs", runStart},
	{"stop", "stop the running daemon", runStop},
	{"hosts", "list the other machines whose queues this daemon shows ([[hosts]]), and their state", runHosts},
	{"attach", "attach a hub's window to this machine's tmux, on a pane (what another machine runs through ssh -t)", runAttach},
	{"bridge", "join standard input and output to the daemon's socket (what another machine runs through ssh)", runBridge},
	{"systemd-unit", "print a systemd --user unit for the daemon", runSystemdUnit},
	{"version", "print the version", runVersion},
	{"demo", "try it: an isolated tmux server with the daemon and three simulated agents", runDemo},
	{"demo-agent", "a simulated Claude Code session (used by the demo and the tests)", runDemoAgent},
	{"run", "run a program on a PTY of its own, so that its prompts can be answered from the queue: run [--name NAME] -- CMD", runRun},
	{"telegram", "the Telegram relay: telegram setup pairs your phone, so that prompts can be answered from it", runTelegram},
	{"lab", "the Prompt Lab: replay the delivery failure scenarios against a real daemon and supervisor", runLab},
})

// hotCommands returns hotcmd's verbs as commands.
func hotCommands() []command {
	var out []command
	for _, v := range hotcmd.Verbs {
		out = append(out, command{v.Name, v.Summary, func(ctx context.Context, e *env, args []string) error {
			return v.Run(ctx, e.hot(), args)
		}})
	}
	return out
}

// env is what every command gets from its caller.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// hot returns e as package hotcmd takes it.
func (e *env) hot() *hotcmd.Env {
	return &hotcmd.Env{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Getenv: e.getenv}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return fmt.Errorf("%w: no command given", errUsage)
		}
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "-v" {
		return runVersion(ctx, e, nil)
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	return fmt.Errorf("%w: unknown command %q (trailboss help lists them)", errUsage, args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Trail Boss — a dead-letter queue for a fleet of coding agents in tmux.")
	fmt.Fprintln(w, "\nUsage: trailboss <command> [flags]\n\nCommands:")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintln(w, "\nEnvironment: TRAILBOSS_STATE_DIR (where the state and the daemon's socket live), TRAILBOSS_ADDR (reach the daemon over loopback TCP instead).")
}
