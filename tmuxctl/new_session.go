package tmuxctl

import (
	"context"
	"fmt"
)

// NewDetachedSession runs command in window of a detached session named session: it
// creates the session (and the server, if none runs), or respawns that window when the
// session is already there because its last command ended. tmux runs command through the
// default shell.
func (s *Server) NewDetachedSession(ctx context.Context, session, window, command string) error {
	if err := checkClient(session); err != nil {
		return err
	}
	if _, err := s.run(ctx, "has-session", "-t", arg("="+session)); err == nil {
		if _, err := s.run(ctx, "respawn-window", "-k", "-t", arg("="+session+":"+window), arg(command)); err == nil {
			return nil
		}
		// The session is there without that window: add it.
		_, err := s.run(ctx, "new-window", "-d", "-t", arg("="+session+":"), "-n", arg(window), arg(command))
		return err
	}
	// No such session, or no server yet: new-session starts both.
	if _, err := s.run(ctx, "new-session", "-d", "-s", arg(session), "-n", arg(window), arg(command)); err != nil {
		return fmt.Errorf("start session %s: %w", session, err)
	}
	return nil
}
