package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"

	"github.com/trailboss/trailboss/cmd/internal/hotcmd"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/popup"
)

// runPopup shows the queue picker in the terminal it runs in (a tmux display-popup -E)
// and, when the operator picks an item, switches the client that opened it (--client)
// there, and no other.
//
// It draws on stderr and reads keys from stdin, as gum does. In a display-popup both are
// the popup's one pty, so either would do; stderr keeps stdout free for what a script may
// one day want from the picker, and the lipgloss renderer is made for the same file, so
// the colour profile is detected on the terminal that is drawn on. The choice comes back
// through the final model and the jump is made here, after the program has let go of the
// terminal.
func runPopup(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("popup", flag.ContinueOnError)
	var f navFlags
	f.Register(fs)
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	in, inOK := e.stdin.(*os.File)
	out, outOK := e.stderr.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		return fmt.Errorf("%w: popup needs a terminal: run it from a tmux key binding with display-popup -E", errUsage)
	}
	if err := f.Resolve(e.getenv); err != nil { // newNavigator resolves its own copy
		return err
	}
	n, err := hotcmd.NewNavigator(ctx, e.hot(), f)
	if err != nil {
		return err
	}
	daemon := newLazyDaemon(f.Addr, f.StateDir)

	r := lipgloss.NewRenderer(out)
	if e.getenv("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
	}
	styles := popup.NewStyles(r)
	w, h, _ := term.GetSize(out.Fd())
	// The queue is fetched before the program starts, so the first frame is the list.
	lctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	first := popup.Load(lctx, daemon, n.Tmux)
	cancel()
	m := popup.New(popup.Options{Daemon: daemon, Tmux: n.Tmux, Socket: n.Tmux.Socket, Client: n.Client, Styles: &styles,
		Width: w, Height: h, First: &first})
	pctx, orphaned := context.WithCancel(ctx)
	defer orphaned()
	go endWhenOrphaned(pctx, orphaned)
	// Signals are ours, not bubbletea's: its handler sends a hang-up into an event loop that
	// may have ended already, and the program then never exits (seen: popups of killed tmux
	// servers running for hours, deaf to SIGTERM).
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case <-sigs:
			orphaned()
			exitSoon()
		case <-pctx.Done():
		}
	}()
	final, err := tea.NewProgram(m, tea.WithContext(pctx), tea.WithInput(in), tea.WithOutput(out),
		tea.WithAltScreen(), tea.WithoutSignalHandler()).Run()
	if pctx.Err() != nil && ctx.Err() == nil {
		return nil // its tmux server (or whatever ran it) is gone: nobody to show anything to
	}
	if err != nil {
		return fmt.Errorf("popup: %w", err)
	}
	it, ok := final.(popup.Model).Choice()
	if !ok {
		return nil
	}
	// display-popup -E closes with the program: an error printed now would never be seen,
	// so it goes to the client's status line.
	if err := n.Land(ctx, it, true, nil, ""); err != nil {
		return n.Say(ctx, "trailboss: "+err.Error())
	}
	return nil
}

// endWhenOrphaned calls end, and exits the process soon after, once the process that
// started the popup (tmux's display-popup, in the tmux server) is gone: a killed server
// leaves the popup with a terminal nobody reads, and it would refresh the queue forever.
func endWhenOrphaned(ctx context.Context, end func()) {
	parent := os.Getppid()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if os.Getppid() != parent {
				end()
				exitSoon()
			}
		}
	}
}

// exitSoon ends the process if the popup has not returned by itself within a moment: its
// terminal may be gone, and nothing is left to show or to do.
func exitSoon() {
	time.Sleep(2 * time.Second)
	os.Exit(0)
}

// lazyDaemon is the daemon's client, made on first use: a popup opened while the daemon is
// down (no token yet) finds it once it has started, at the next refresh.
type lazyDaemon struct{ client.Lazy }

func newLazyDaemon(addr, stateDir string) *lazyDaemon {
	return &lazyDaemon{client.Lazy{Make: func() (*client.Client, error) { return client.New(addr, stateDir, 2*time.Second) }}}
}

func (d *lazyDaemon) QueueView(ctx context.Context) (wire.Queue, error) {
	c, err := d.Get()
	if err != nil {
		return wire.Queue{}, err
	}
	return c.QueueView(ctx)
}

func (d *lazyDaemon) SkipSession(ctx context.Context, id string) error {
	c, err := d.Get()
	if err != nil {
		return err
	}
	return c.SkipSession(ctx, id)
}

func (d *lazyDaemon) Dismiss(ctx context.Context, id string) error {
	c, err := d.Get()
	if err != nil {
		return err
	}
	return c.Dismiss(ctx, id)
}

// Answer waits as long as the popup's own deadline (popup.AnswerTimeout) rather than the
// client's 2 s: typing into a pane and seeing the agent take it takes a few seconds.
func (d *lazyDaemon) Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error) {
	c, err := d.Get()
	if err != nil {
		return wire.Delivered{}, err
	}
	return c.WithTimeout(popup.AnswerTimeout).Answer(ctx, id, a)
}

// popupHelp is what `trailboss popup --help` says around the flags.
var popupHelp = commandHelp{
	Args: "[--client NAME]",
	About: "The queue picker, for tmux display-popup (prefix g): pick an item to jump to it, skip\n" +
		"or dismiss items.",
	Example: "tmux display-popup -E trailboss popup",
}
