package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// SetUserOptions sets each global user option (a name starting with "@") to its value in
// one tmux invocation, then asks every attached client to redraw its status line so that
// a status line showing the options is current. It returns an error wrapping
// ErrInvalidTarget before running tmux when a name is not "@" followed by letters,
// digits, "_" or "-". An empty map runs nothing.
func (s *Server) SetUserOptions(ctx context.Context, opts map[string]string) error {
	if len(opts) == 0 {
		return nil
	}
	names := make([]string, 0, len(opts))
	for name := range opts {
		if !validUserOption(name) {
			return fmt.Errorf("%w: user option name %q", ErrInvalidTarget, clip(name))
		}
		names = append(names, name)
	}
	slices.Sort(names)
	var args []string
	for _, name := range names {
		if args != nil {
			args = append(args, ";")
		}
		args = append(args, "set-option", "-g", "--", name, arg(opts[name]))
	}
	if _, err := s.run(ctx, args...); err != nil {
		return err
	}
	// tmux 3.3a already redraws every client when an option changes; the explicit refresh
	// keeps older servers current too.
	clients, err := s.ListClients(ctx)
	if err != nil {
		return err
	}
	var refresh []string
	for _, c := range clients {
		if refresh != nil {
			refresh = append(refresh, ";")
		}
		refresh = append(refresh, "refresh-client", "-S", "-t", arg(c.Name))
	}
	if refresh == nil {
		return nil
	}
	_, err = s.run(ctx, refresh...)
	if errors.Is(err, ErrNoClient) {
		return nil // a client detached between list-clients and refresh-client
	}
	return err
}

func validUserOption(name string) bool {
	if len(name) < 2 || len(name) > 128 || name[0] != '@' {
		return false
	}
	return strings.Trim(name[1:],
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
}
