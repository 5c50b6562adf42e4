package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/trailboss/trailboss/focus"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/tmuxctl"
)

// runFocus is `trailboss focus`: it puts the client in its focus view (package focus), or
// takes it out (--leave, or the same key pressed there), or moves the view on to the next
// head (--next, prefix Tab there). --keep is the view's own keeper, run in its window 0.
func runFocus(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("focus", flag.ContinueOnError)
	var f navFlags
	f.Register(fs)
	next := fs.Bool("next", false, "link the next head's window in place of the one in view (prefix Tab in the focus view)")
	leave := fs.Bool("leave", false, "leave the focus view: its window is unlinked, every window stays where it was")
	keep := fs.Bool("keep", false, "run the view's keeper (what window 0 of a focus session runs)")
	session := fs.String("session", "", "with --keep: the focus session")
	after := fs.Duration("advance-after", 0, "with --keep: move on this long after an answer was taken and typing stopped (0: off)")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	if *keep {
		return keepFocus(ctx, e, f, *session, *after)
	}
	if err := f.Resolve(e.getenv); err != nil {
		return err
	}
	sock, err := serverSocket(f.Socket, e.getenv)
	if err != nil {
		return err
	}
	if sock == "" {
		return fmt.Errorf("%w: not inside tmux: run it from tmux (prefix F), or pass --socket and --client", errUsage)
	}
	t := tmuxctl.New(sock)
	client := f.Client
	if client == "" {
		if client, err = t.CurrentClient(ctx, e.getenv("TMUX_PANE")); err != nil {
			return fmt.Errorf("which tmux client to put in the focus view: %w (pass --client)", err)
		}
	}
	v := &focus.View{Tmux: t, Daemon: newLazyDaemon(f.Addr, f.StateDir), Session: focus.SessionName(client)}
	// From a key binding tmux shows nothing a run-shell -b prints: say it on the status line.
	say := func(err error) error {
		if err == nil || f.Client == "" {
			return err
		}
		msg := "trailboss: " + err.Error()
		if derr := t.DisplayMessage(ctx, client, msg); derr != nil {
			return err
		}
		return nil
	}
	switch {
	case *leave:
		return say(v.Leave(ctx, client))
	case *next:
		moved, err := v.Next(ctx)
		if err == nil && !moved {
			err = errors.New("nothing else waits on this tmux server: the view stays")
		}
		return say(err)
	}
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	if err := checkFocus(cfg, "config.toml"); err != nil {
		return err
	}
	keeper := []string{hooks.ShellWord(selfPath()), "focus", "--keep", "--session", v.Session,
		"--socket", hooks.ShellWord(sock), "--state-dir", hooks.ShellWord(f.StateDir),
		"--advance-after", focusAdvance(cfg).String()}
	if f.Addr != "" {
		keeper = append(keeper, "--addr", hooks.ShellWord(f.Addr))
	}
	return say(v.Enter(ctx, client, strings.Join(keeper, " ")))
}

// keepFocus runs the keeper of a focus session until the session ends.
func keepFocus(ctx context.Context, e *env, f navFlags, session string, after time.Duration) error {
	if session == "" || !strings.HasPrefix(session, focus.SessionPrefix) || f.Socket == "" || f.StateDir == "" {
		return fmt.Errorf("%w: --keep is run by trailboss focus in the focus session, with --session, --socket and --state-dir", errUsage)
	}
	v := &focus.View{Tmux: tmuxctl.New(f.Socket), Daemon: newLazyDaemon(f.Addr, f.StateDir), Session: session}
	return v.Keep(ctx, e.stdout, after, focusTick)
}

// focusTick is how often the keeper looks at the queue and the client: the status line
// and auto-advance are at most this late.
const focusTick = 200 * time.Millisecond

// focusHelp is what `trailboss focus --help` says around the flags.
var focusHelp = commandHelp{
	Args:    "[--next | --leave]",
	About:   "Puts this client in its focus view: the head of the queue's window linked beside the queue; prefix Tab moves on, prefix F leaves.",
	Example: "trailboss focus",
}
