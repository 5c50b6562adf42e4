package tmuxctl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Client is one tmux client attached to a session.
type Client struct {
	Name        string // what -c and -t take for a client: its tty, "/dev/pts/3"
	TTY         string
	PID         int    // pid of the tmux client process
	SessionName string // the session it is attached to
	PaneID      string // the pane it is looking at: its session's current window's active pane
	Activity    time.Time
}

const clientFormat = "#{client_name}" + sep + "#{client_tty}" + sep + "#{client_pid}" + sep +
	"#{client_session}" + sep + "#{pane_id}" + sep + "#{client_activity}" + sep + "#{client_flags}"

const clientFields = 7

// ListClients returns the clients attached to the server, the operators' terminals: a
// control-mode client sent no pane output (a Pool's, or another program's watcher) shows
// nothing to anyone and is left out.
func (s *Server) ListClients(ctx context.Context) ([]Client, error) {
	out, err := s.run(ctx, "list-clients", "-F", clientFormat)
	if err != nil {
		return nil, err
	}
	clients, err := parseClients(out)
	if err != nil {
		return nil, fmt.Errorf("tmux list-clients: %w", err)
	}
	return clients, nil
}

// ClientPane returns the id of the pane that client is looking at, or an error wrapping
// ErrNoClient when no such client is attached.
//
// It reads list-clients rather than "display-message -c client -p '#{pane_id}'": tmux
// 3.3a answers that for an unknown client with another client's pane and exit status 0.
func (s *Server) ClientPane(ctx context.Context, client string) (string, error) {
	if client == "" {
		return "", fmt.Errorf("tmux client pane: %w: empty client name", ErrInvalidTarget)
	}
	clients, err := s.ListClients(ctx)
	if err != nil {
		return "", err
	}
	for _, c := range clients {
		if c.Name == client {
			return c.PaneID, nil
		}
	}
	return "", fmt.Errorf("tmux client pane: %w: %q is not attached", ErrNoClient, clip(client))
}

// CurrentClient returns the name of the client a command run in pane (its $TMUX_PANE, or
// "") acts on: the most recently active client looking at pane, else the most recently
// active one of all; an error wrapping ErrNoClient when none is attached. A switch-client
// that names no client leaves that choice to tmux, which may take a control client (a
// Pool's, busy with its commands, is often the most recently active): ListClients leaves
// those out.
func (s *Server) CurrentClient(ctx context.Context, pane string) (string, error) {
	clients, err := s.ListClients(ctx)
	if err != nil {
		return "", err
	}
	var best *Client
	for i := range clients {
		c := &clients[i]
		switch {
		case best == nil,
			c.PaneID == pane && best.PaneID != pane,
			(c.PaneID == pane) == (best.PaneID == pane) && c.Activity.After(best.Activity):
			best = c
		}
	}
	if best == nil {
		return "", fmt.Errorf("tmux current client: %w: no client is attached", ErrNoClient)
	}
	return best.Name, nil
}

// parseClients parses list-clients output in clientFormat, one client a line. It returns
// an error naming the first malformed line.
func parseClients(out string) ([]Client, error) {
	if out == "" {
		return nil, nil
	}
	if !strings.HasSuffix(out, "\n") {
		return nil, fmt.Errorf("output does not end with a newline: %q", clipTail(out))
	}
	var clients []Client
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		c, err := parseClient(line)
		if err != nil {
			return nil, fmt.Errorf("client line %d: %w", i+1, err)
		}
		if !watcherFlags(line[strings.LastIndex(line, sep)+len(sep):]) {
			clients = append(clients, c)
		}
	}
	return clients, nil
}

// watcherFlags reports whether a client's flags (#{client_flags}, "attached,control-mode,
// no-output,…"; "" before tmux 3.2) are a control client's that is sent no pane output.
func watcherFlags(flags string) bool {
	var control, noOutput bool
	for _, f := range strings.Split(flags, ",") {
		control = control || f == "control-mode"
		noOutput = noOutput || f == "no-output"
	}
	return control && noOutput
}

func parseClient(line string) (Client, error) {
	f := strings.Split(line, sep)
	if len(f) != clientFields {
		return Client{}, fmt.Errorf("%d fields, want %d: %q", len(f), clientFields, clip(line))
	}
	c := Client{Name: f[0], TTY: f[1], SessionName: f[3], PaneID: f[4]}
	if c.Name == "" {
		return Client{}, fmt.Errorf("empty client name: %q", clip(line))
	}
	var err error
	if c.PID, err = parsePositive(f[2]); err != nil {
		return Client{}, fmt.Errorf("client %s: pid: %w", clip(c.Name), err)
	}
	if !adapter.ValidPane(c.PaneID) {
		return Client{}, fmt.Errorf("client %s: pane id %q is not %% and digits", clip(c.Name), clip(c.PaneID))
	}
	if f[5] == "" || strings.TrimLeft(f[5], "0123456789") != "" {
		return Client{}, fmt.Errorf("client %s: activity %q is not a number", clip(c.Name), clip(f[5]))
	}
	secs, err := strconv.ParseInt(f[5], 10, 64)
	if err != nil {
		return Client{}, fmt.Errorf("client %s: activity %q is out of range", clip(c.Name), clip(f[5]))
	}
	c.Activity = time.Unix(secs, 0)
	return c, nil
}
