// Command trailboss-hot runs the commands that start on every hook, key press and
// status-line redraw — emit, status, jump-next and skip — exactly as `trailboss VERB` does
// (package hotcmd is both), but as a small pure-Go binary: no cgo, no SQLite, no TUI, so
// that it starts about as fast as any Go program. setup wires the hooks and the keys to it
// when it sits beside trailboss. Build it with CGO_ENABLED=0 (make build does).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/trailboss/trailboss/hotcmd"
)

func main() { os.Exit(mainExit()) }

// mainExit runs the verb with SIGINT, SIGTERM and SIGHUP cancelling its context, as
// trailboss does, and returns the exit code.
func mainExit() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	e := &hotcmd.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	return hotcmd.ExitCode(hotcmd.Run(ctx, e, os.Args[1:]), os.Stderr)
}
