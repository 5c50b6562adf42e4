package tmuxctl

import "context"

// CapturePane returns the visible text of pane, wrapped lines joined, one line per row.
// It returns an error wrapping ErrInvalidTarget before running tmux when pane is not a
// pane id, and ErrNoPane when tmux cannot find it.
func (s *Server) CapturePane(ctx context.Context, pane string) (string, error) {
	if err := checkPane(pane); err != nil {
		return "", err
	}
	return s.run(ctx, "capture-pane", "-p", "-J", "-t", pane)
}
