package tmuxctl

import "context"

// SwitchClient lands client on pane: it switches the client to the pane's session and
// makes the pane's window current in that session and the pane active in its window, in
// one tmux invocation. With client "" tmux picks the client (the most recently active
// one, or one looking at the session of $TMUX_PANE when that is set). It returns an error
// wrapping ErrInvalidTarget before running tmux when pane is not a pane id or client
// starts with "-", ErrNoPane or ErrNoClient when tmux cannot find them.
//
// Windows are shared by every client of a session: another client looking at the same
// session sees its current window change too.
func (s *Server) SwitchClient(ctx context.Context, client, pane string) error {
	if err := checkPane(pane); err != nil {
		return err
	}
	args := []string{"switch-client"}
	if client != "" {
		if err := checkClient(client); err != nil {
			return err
		}
		args = append(args, "-c", arg(client))
	}
	args = append(args, "-t", pane,
		";", "select-window", "-t", pane,
		";", "select-pane", "-t", pane)
	_, err := s.run(ctx, args...)
	return err
}
