package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
)

// runAttach is what a hub's host window runs on this machine, through `ssh -t`: it tells this
// machine's daemon which tmux client is about to be the hub's (its terminal), so that later
// jumps from the hub move that client, then becomes `tmux attach` of the pane asked for.
func runAttach(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("attach", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	socket := fs.String("socket", "", "the tmux server's socket on this machine")
	pane := fs.String("pane", "", "the pane to land on (%N)")
	if _, err := parseArgs(fs, args, e.stderr, 0); err != nil {
		return err
	}
	switch {
	case *socket == "":
		return fmt.Errorf("%w: which tmux server? pass --socket (the hub passes the item's)", errUsage)
	case !adapter.ValidPane(*pane):
		return fmt.Errorf("%w: --pane %q is not a tmux pane id: give one such as %%3", errUsage, *pane)
	}
	if err := p.Resolve(e.getenv); err != nil {
		return err
	}
	// tmux names a client by its terminal; ours becomes tmux's when this process does.
	tty, err := os.Readlink("/proc/self/fd/0")
	if err != nil || !strings.HasPrefix(tty, "/dev/") {
		return errors.New("standard input is not a terminal: run it through ssh -t, as the hub's host window does")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		return errors.New("tmux is not installed on this machine: install it (apt-get install tmux)")
	}
	c, err := client.New(p.Addr, p.StateDir, 5*time.Second)
	if err != nil {
		return err
	}
	body, err := json.Marshal(wire.Attached{Socket: *socket, Client: tty})
	if err != nil {
		return err
	}
	if err := c.Post(ctx, wire.RouteAttached, body, nil); err != nil {
		return fmt.Errorf("tell this machine's daemon about the host window: %w", err)
	}
	// Not nested in a tmux of this machine's even if ssh passed TMUX on.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			env = append(env, kv)
		}
	}
	argv := []string{"tmux", "-u", "-S", *socket, "select-window", "-t", *pane, ";", "select-pane", "-t", *pane,
		";", "attach-session", "-t", *pane}
	if err := syscall.Exec(tmux, argv, env); err != nil {
		return fmt.Errorf("run tmux attach: %w", err)
	}
	return nil
}

// attachHelp is what `trailboss attach --help` says around the flags.
var attachHelp = commandHelp{
	Args: "--socket SOCKET --pane %N [--state-dir DIR]",
	About: "What another machine's hub runs here through ssh -t, in its window for this machine:\n" +
		"it tells this machine's daemon that the terminal is the hub's tmux client, so that the\n" +
		"hub's next jumps to a pane here move it, then runs tmux attach on that pane. You do not\n" +
		"run it yourself.",
	Example: "ssh -t devbox trailboss attach --socket /tmp/tmux-1000/default --pane %3",
}
