package hotcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/client/hot"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// JumpNext is `trailboss jump-next`: it switches a tmux client to the oldest stuck pane. A
// named client (the key binding's) is switched by the daemon, through the tmux control
// client it holds: the key costs this process and one request, and no tmux process.
func JumpNext(ctx context.Context, e *Env, args []string) error {
	return navigate(ctx, e, "jump-next", args, func(d *hot.Client, ctx context.Context, n *Navigator) (wire.Item, bool, error) {
		return d.Jump(ctx, n.Tmux.Socket, n.Pane, n.Client)
	}, "trailboss: nothing stuck")
}

// Skip is `trailboss skip`: it sends the stuck item the client is on (or the head) to the
// back of the queue for the cooldown, and jumps to the next one: a named client is switched
// by the daemon, as by JumpNext.
func Skip(ctx context.Context, e *Env, args []string) error {
	return navigate(ctx, e, "skip", args, func(d *hot.Client, ctx context.Context, n *Navigator) (wire.Item, bool, error) {
		return d.Skip(ctx, n.Tmux.Socket, n.Pane, n.Client)
	}, "trailboss: nothing else is stuck")
}

// Navigator moves one tmux client. It only ever runs switch-client (and display-message to
// say why it did not): navigation never types into a pane.
type Navigator struct {
	Tmux   *tmuxctl.Server
	Client string // tmux client name: the one given, else CurrentClient
	Pane   string // the pane the client is on now, or ""
	Daemon *hot.Client
	derr   error // why Daemon is nil
}

// NavFlags are the flags of jump-next, skip and the popup.
type NavFlags struct {
	Place
	Client string
	Socket string
	Pane   string
}

// Register adds the flags to fs.
func (f *NavFlags) Register(fs *flag.FlagSet) {
	PlaceFlags(fs, &f.Place)
	fs.StringVar(&f.Client, "client", "", "tmux client to move (pass #{client_name} from a key binding)")
	fs.StringVar(&f.Socket, "socket", "", "tmux server socket (default: from $TMUX)")
	fs.StringVar(&f.Pane, "pane", "", "the pane the client is on (pass #{pane_id}); asked of tmux when missing")
}

// NewNavigator returns the navigator of the client f names (else the CurrentClient): its
// tmux server is --socket, else $TMUX's, else (for a named client outside tmux) the stuck
// head's. Its Daemon is nil when no client could be made; Land then says why.
func NewNavigator(ctx context.Context, e *Env, f NavFlags) (*Navigator, error) {
	if err := f.ResolveClient(e.Getenv); err != nil {
		return nil, err
	}
	socket := f.Socket
	if socket == "" {
		s, err := adapter.SocketFromTmuxEnv(e.Getenv("TMUX"))
		if err != nil {
			return nil, err
		}
		socket = s
	}
	daemon, derr := hot.New(f.Addr, f.StateDir, 2*time.Second)
	if socket == "" && f.Client != "" && daemon != nil {
		// Outside tmux, a named client is moved on the tmux server of the stuck item it
		// would land on: the head knows its server.
		if head, found, err := daemon.Next(ctx, "", ""); err == nil && found {
			socket = head.TmuxSocket
		}
	}
	if socket == "" {
		if f.Client != "" {
			return nil, fmt.Errorf("%w: not inside tmux, and no stuck item says which tmux server %s is on: pass --socket", ErrUsage, f.Client)
		}
		return nil, fmt.Errorf("%w: not inside tmux: run it from a tmux key binding, or name the client with --client", ErrUsage)
	}
	n := &Navigator{Tmux: tmuxctl.New(socket), Client: f.Client, Daemon: daemon, derr: derr}
	if f.Pane != "" && !adapter.ValidPane(f.Pane) {
		return nil, fmt.Errorf("%w: --pane %q is not a tmux pane id", ErrUsage, f.Pane)
	}
	if f.Pane != "" {
		n.Pane = f.Pane
	} else if f.Client != "" {
		pane, err := n.Tmux.ClientPane(ctx, f.Client)
		if err != nil {
			return nil, err
		}
		n.Pane = pane
	} else if p := e.Getenv("TMUX_PANE"); adapter.ValidPane(p) {
		n.Pane = p
	}
	if n.Client == "" {
		// Named here, not left to tmux: a switch-client with no client may move the
		// daemon's control client instead of the person's.
		client, err := n.Tmux.CurrentClient(ctx, n.Pane)
		if err != nil {
			return nil, fmt.Errorf("%w: no tmux client to move (%v): attach to tmux, or name the client with --client", ErrUsage, err)
		}
		n.Client = client
	}
	return n, nil
}

// Say shows msg on the client's status line. When tmux cannot show it, the error says so.
func (n *Navigator) Say(ctx context.Context, msg string) error {
	if err := n.Tmux.DisplayMessage(ctx, n.Client, msg); err != nil {
		return fmt.Errorf("%s (and tmux could not show it: %v)", msg, err)
	}
	return nil
}

// Land switches the client to item's pane, or says why there is nowhere to go: err (the
// daemon's answer failed), or empty when nothing was found.
func (n *Navigator) Land(ctx context.Context, it wire.Item, found bool, err error, empty string) error {
	switch {
	case errors.Is(err, hot.ErrDown):
		return n.Say(ctx, "trailboss: "+hot.ErrDown.Error())
	case err != nil:
		return n.Say(ctx, "trailboss: "+err.Error())
	case !found:
		return n.Say(ctx, empty)
	case it.Landed:
		return nil // the daemon switched the client
	case it.Host != "":
		return n.landRemote(ctx, it)
	}
	if err := n.Tmux.SwitchClient(ctx, n.Client, it.Pane); err != nil {
		if errors.Is(err, tmuxctl.ErrNoPane) {
			return n.Say(ctx, "trailboss: pane "+it.Pane+" is gone; it leaves the queue at the next sweep")
		}
		return err
	}
	return nil
}

// navigate asks the daemon where to go (next, or skip and then next) for the client and
// lands it there.
func navigate(ctx context.Context, e *Env, name string, args []string,
	ask func(*hot.Client, context.Context, *Navigator) (wire.Item, bool, error), empty string) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var f NavFlags
	f.Register(fs)
	if err := Parse(fs, args, e.Stderr, usage); err != nil {
		return err
	}
	n, err := NewNavigator(ctx, e, f)
	if err != nil {
		return err
	}
	if n.Daemon == nil {
		return n.Land(ctx, wire.Item{}, false, n.derr, "")
	}
	it, found, err := ask(n.Daemon, ctx, n)
	return n.Land(ctx, it, found, err, empty)
}

// landRemote puts the client on the hub's window for it.Host, made running it.Attach (ssh to
// that host, `trailboss attach` of the item's pane there) on first use. A window that was
// there already shows that host's tmux as it was left: the hub asks that host's daemon to
// move the window's client to the item's pane.
func (n *Navigator) landRemote(ctx context.Context, it wire.Item) error {
	if it.Attach == "" {
		return n.Say(ctx, "trailboss: "+it.Host+" gave no way to attach to "+it.Pane+": update the hub's trailboss")
	}
	made, err := n.Tmux.HostWindow(ctx, n.Client, hostWindowName(it.Host), it.Attach)
	if err != nil {
		return n.Say(ctx, "trailboss: could not open the window for "+it.Host+": "+err.Error())
	}
	if made {
		return nil // its `trailboss attach` lands on the pane itself
	}
	if err := n.Daemon.HostJump(ctx, it.Host, it.TmuxSocket, it.Pane); err != nil {
		return n.Say(ctx, "trailboss: "+err.Error())
	}
	return nil
}

// hostWindowName is the name of the hub's window for host (hosts.WindowName, which this
// binary does not link).
func hostWindowName(host string) string { return "⇄ " + host }
