package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/tmuxctl"
)

// navigator moves one tmux client. It only ever runs switch-client (and display-message to
// say why it did not): navigation never types into a pane.
type navigator struct {
	tmux   *tmuxctl.Server
	client string // tmux client name, or "" for the one tmux picks
	pane   string // the pane the client is on now, or ""
	daemon *client.Client
	derr   error // why daemon is nil
}

// navFlags are the flags of jump-next and skip.
type navFlags struct {
	place
	client string
	socket string
	pane   string
}

func (f *navFlags) register(fs *flag.FlagSet) {
	placeFlags(fs, &f.place)
	fs.StringVar(&f.client, "client", "", "tmux client to move (pass #{client_name} from a key binding)")
	fs.StringVar(&f.socket, "socket", "", "tmux server socket (default: from $TMUX)")
	fs.StringVar(&f.pane, "pane", "", "the pane the client is on (pass #{pane_id}); asked of tmux when missing")
}

func newNavigator(ctx context.Context, e *env, f navFlags) (*navigator, error) {
	if err := f.resolve(e.getenv); err != nil {
		return nil, err
	}
	socket := f.socket
	if socket == "" {
		s, err := adapter.SocketFromTmuxEnv(e.getenv("TMUX"))
		if err != nil {
			return nil, err
		}
		socket = s
	}
	daemon, derr := client.New(f.addr, f.stateDir, 2*time.Second)
	if socket == "" && f.client != "" && daemon != nil {
		// Outside tmux, a named client is moved on the tmux server of the stuck item it
		// would land on: the head knows its server.
		if head, found, err := daemon.Next(ctx, "", ""); err == nil && found {
			socket = head.TmuxSocket
		}
	}
	if socket == "" {
		if f.client != "" {
			return nil, fmt.Errorf("%w: not inside tmux, and no stuck item says which tmux server %s is on: pass --socket", errUsage, f.client)
		}
		return nil, fmt.Errorf("%w: not inside tmux: run it from a tmux key binding, or name the client with --client", errUsage)
	}
	n := &navigator{tmux: tmuxctl.New(socket), client: f.client, daemon: daemon, derr: derr}
	if f.pane != "" && !adapter.ValidPane(f.pane) {
		return nil, fmt.Errorf("%w: --pane %q is not a tmux pane id", errUsage, f.pane)
	}
	if f.pane != "" {
		n.pane = f.pane
	} else if f.client != "" {
		pane, err := n.tmux.ClientPane(ctx, f.client)
		if err != nil {
			return nil, err
		}
		n.pane = pane
	} else if p := e.getenv("TMUX_PANE"); adapter.ValidPane(p) {
		n.pane = p
	}
	return n, nil
}

// say shows msg on the client's status line. When tmux cannot show it, the error says so.
func (n *navigator) say(ctx context.Context, msg string) error {
	if err := n.tmux.DisplayMessage(ctx, n.client, msg); err != nil {
		return fmt.Errorf("%s (and tmux could not show it: %v)", msg, err)
	}
	return nil
}

// land switches the client to item's pane, or says why there is nowhere to go.
func (n *navigator) land(ctx context.Context, it client.Item, found bool, err error, empty string) error {
	switch {
	case errors.Is(err, client.ErrDown):
		return n.say(ctx, "trailboss: "+client.ErrDown.Error())
	case err != nil:
		return n.say(ctx, "trailboss: "+err.Error())
	case !found:
		return n.say(ctx, empty)
	}
	if err := n.tmux.SwitchClient(ctx, n.client, it.Pane); err != nil {
		if errors.Is(err, tmuxctl.ErrNoPane) {
			return n.say(ctx, "trailboss: pane "+it.Pane+" is gone; it leaves the queue at the next sweep")
		}
		return err
	}
	return nil
}

// navigate asks the daemon where to go (next, or skip and then next) for the client and
// lands it there.
func navigate(ctx context.Context, e *env, name string, args []string,
	ask func(*client.Client, context.Context, string, string) (client.Item, bool, error), empty string) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var f navFlags
	f.register(fs)
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	n, err := newNavigator(ctx, e, f)
	if err != nil {
		return err
	}
	if n.daemon == nil {
		return n.land(ctx, client.Item{}, false, n.derr, "")
	}
	it, found, err := ask(n.daemon, ctx, n.tmux.Socket, n.pane)
	return n.land(ctx, it, found, err, empty)
}
