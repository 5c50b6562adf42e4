package tmuxctl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// PaneIdentity is what runs in a pane now, as the delivery of an answer compares it with
// the program that asked.
type PaneIdentity struct {
	ServerPID int    // the tmux server's pid
	PanePID   int    // the pane's first process (pane_pid)
	Command   string // the pane's foreground program (pane_current_command)
}

// Identity returns what runs in pane now, and its visible text as CapturePane returns it,
// read by one tmux command (a tmux client costs far more than tmux's work): the screen an
// answer is checked against belongs to the program that was checked. It returns ErrNoPane
// when tmux cannot find pane, ErrNoServer when no server answers.
func (s *Server) Identity(ctx context.Context, pane string) (PaneIdentity, string, error) {
	if err := checkPane(pane); err != nil {
		return PaneIdentity{}, "", err
	}
	out, err := s.run(ctx, "display-message", "-p", "-t", pane, "#{pid} #{pane_pid} #{pane_current_command}",
		";", "capture-pane", "-p", "-J", "-t", pane)
	if err != nil {
		return PaneIdentity{}, "", err
	}
	first, screen, _ := strings.Cut(out, "\n")
	f := strings.SplitN(first, " ", 3)
	var id PaneIdentity
	if len(f) == 3 {
		id.Command = f[2]
		if id.ServerPID, err = strconv.Atoi(f[0]); err == nil {
			id.PanePID, err = strconv.Atoi(f[1])
		}
	}
	if len(f) != 3 || err != nil {
		return PaneIdentity{}, "", fmt.Errorf("tmux display-message: %q is not a server pid, a pane pid and a command", clip(first))
	}
	return id, screen, nil
}
