package tmuxctl

import (
	"context"
	"fmt"
	"strings"
)

// HostWindow puts client (or the one tmux picks, for "") on the window named name of its
// session, made running command (through the default shell) when there is none, and says whether it was made. A hub's
// host window holds another machine's tmux (`ssh -t HOST trailboss attach`): made on the
// first jump there, reused after, so that the operator has one way into each machine.
func (s *Server) HostWindow(ctx context.Context, client, name string, command string) (made bool, err error) {
	if command == "" {
		return false, fmt.Errorf("%w: no command for window %q", ErrInvalidTarget, clip(name))
	}
	var c []string
	if client != "" {
		if err := checkClient(client); err != nil {
			return false, err
		}
		c = []string{"-c", arg(client)}
	}
	out, err := s.run(ctx, append(append([]string{"display-message", "-p"}, c...), "#{session_id}")...)
	if err != nil {
		return false, err
	}
	session := strings.TrimSpace(out)
	if !strings.HasPrefix(session, "$") {
		return false, fmt.Errorf("tmux display-message: %w: no session for client %q", ErrNoClient, clip(client))
	}
	out, err = s.run(ctx, "list-windows", "-t", session, "-F", "#{window_id}"+sep+"#{window_name}")
	if err != nil {
		return false, err
	}
	window := ""
	for line := range strings.SplitSeq(out, "\n") {
		if id, n, ok := strings.Cut(line, sep); ok && n == name {
			window = id
			break
		}
	}
	if window == "" {
		args := []string{"new-window", "-d", "-P", "-F", "#{window_id}", "-t", session + ":", "-n", arg(name)}
		args = append(args, arg(command))
		if out, err = s.run(ctx, args...); err != nil {
			return false, err
		}
		window, made = strings.TrimSpace(out), true
	}
	args := append(append([]string{"switch-client"}, c...), "-t", window, ";", "select-window", "-t", window)
	if _, err := s.run(ctx, args...); err != nil {
		return made, err
	}
	return made, nil
}
