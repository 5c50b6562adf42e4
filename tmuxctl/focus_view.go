package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The tmux commands of the focus view (package focus): a session of Trail Boss's own into
// which an agent's window is linked (link-window) and out of which it is unlinked
// (unlink-window). Linking adds a reference to the window; it never moves the window, its
// panes or its place in its own session, which join-pane would.

// ErrOnlyLink says a window could not be unlinked because the session asked about is the
// last one it is linked to: unlinking it would destroy the window and kill its programs.
var ErrOnlyLink = errors.New("the window is linked to no other session")

// checkSession returns an error wrapping ErrInvalidTarget unless name can be a session
// target: not empty, not a flag, none of the separators tmux reads in a target.
func checkSession(name string) error {
	if name == "" || strings.HasPrefix(name, "-") || strings.ContainsAny(name, ":.;\n") {
		return fmt.Errorf("%w: session name %q", ErrInvalidTarget, clip(name))
	}
	return nil
}

// HasSession reports whether a session named exactly name exists.
func (s *Server) HasSession(ctx context.Context, name string) (bool, error) {
	if err := checkSession(name); err != nil {
		return false, err
	}
	_, err := s.run(ctx, "has-session", "-t", "="+name)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrNoServer) {
		return false, err
	}
	if strings.Contains(err.Error(), "can't find session") {
		return false, nil
	}
	return false, err
}

// NewSessionAt makes a detached session named name whose only window, named window and
// running command (through the default shell), is at index 0 whatever base-index says,
// so that index 1 is free for a linked window.
func (s *Server) NewSessionAt(ctx context.Context, name, window, command string) error {
	if err := checkSession(name); err != nil {
		return err
	}
	out, err := s.run(ctx, "new-session", "-d", "-P", "-F", "#{window_index}", "-s", name, "-n", arg(window), arg(command))
	if err != nil {
		return fmt.Errorf("make session %s: %w", name, err)
	}
	if idx := strings.TrimSpace(out); idx != "0" {
		if _, err := s.run(ctx, "move-window", "-s", "="+name+":"+idx, "-t", "="+name+":0"); err != nil {
			return fmt.Errorf("move the first window of %s to 0: %w", name, err)
		}
	}
	return nil
}

// SetSessionOptions sets options of one session (set-option -t) in one tmux invocation.
// Names are user options ("@…") or the status-line options a focus session sets.
func (s *Server) SetSessionOptions(ctx context.Context, session string, opts [][2]string) error {
	if err := checkSession(session); err != nil {
		return err
	}
	var args []string
	for _, kv := range opts {
		if !validUserOption(kv[0]) && !strings.HasPrefix(kv[0], "status") {
			return fmt.Errorf("%w: session option %q", ErrInvalidTarget, clip(kv[0]))
		}
		if args != nil {
			args = append(args, ";")
		}
		// "=name:" — set-option reads -t as a pane target, where "=name" alone is refused.
		args = append(args, "set-option", "-t", "="+session+":", "--", kv[0], arg(kv[1]))
	}
	if args == nil {
		return nil
	}
	_, err := s.run(ctx, args...)
	return err
}

// SessionOption returns a user option of session ("" when unset).
func (s *Server) SessionOption(ctx context.Context, session, name string) (string, error) {
	if err := checkSession(session); err != nil {
		return "", err
	}
	if !validUserOption(name) {
		return "", fmt.Errorf("%w: user option name %q", ErrInvalidTarget, clip(name))
	}
	out, err := s.run(ctx, "show-options", "-qv", "-t", "="+session+":", name)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(out, "\n"), nil
}

// SessionClients returns the clients attached to session.
func (s *Server) SessionClients(ctx context.Context, session string) ([]Client, error) {
	if err := checkSession(session); err != nil {
		return nil, err
	}
	out, err := s.run(ctx, "list-clients", "-t", "="+session, "-F", clientFormat)
	if err != nil {
		return nil, err
	}
	clients, err := parseClients(out)
	if err != nil {
		return nil, fmt.Errorf("tmux list-clients: %w", err)
	}
	return clients, nil
}

// WindowPanes returns the ids of the panes of the window at index of session, in order;
// none when there is no window there.
func (s *Server) WindowPanes(ctx context.Context, session string, index int) ([]string, error) {
	if err := checkSession(session); err != nil {
		return nil, err
	}
	out, err := s.run(ctx, "list-panes", "-s", "-t", "="+session, "-F", "#{window_index}"+sep+"#{pane_id}")
	if err != nil {
		return nil, err
	}
	var panes []string
	for line := range strings.SplitSeq(strings.TrimSuffix(out, "\n"), "\n") {
		idx, pane, ok := strings.Cut(line, sep)
		if ok && idx == strconv.Itoa(index) {
			panes = append(panes, pane)
		}
	}
	return panes, nil
}

// LinkPaneWindow makes the window of pane the window at index of session (linked: it stays
// where it is in its own session too), replacing the one linked there (unlinked, never
// killed: replace says one is there), and makes it current in session with pane active.
// It returns an error wrapping ErrOnlyLink when the window being replaced is linked to no
// other session, and then changes nothing.
func (s *Server) LinkPaneWindow(ctx context.Context, session string, index int, pane string, replace bool) error {
	if err := checkSession(session); err != nil {
		return err
	}
	if err := checkPane(pane); err != nil {
		return err
	}
	out, err := s.run(ctx, "display-message", "-p", "-t", pane, "#{window_id}")
	if err != nil {
		return err
	}
	window := strings.TrimSpace(out)
	if !strings.HasPrefix(window, "@") {
		return fmt.Errorf("tmux display-message: %w: no window for %s", ErrNoPane, pane)
	}
	dst := "=" + session + ":" + strconv.Itoa(index)
	var args []string
	if replace {
		// unlink-window without -k refuses to remove a window's last link, and the commands
		// after it do not run: nothing is destroyed, nothing half-done.
		args = append(args, "unlink-window", "-t", dst, ";")
	}
	args = append(args, "link-window", "-d", "-s", window, "-t", dst,
		";", "select-window", "-t", dst, ";", "select-pane", "-t", pane)
	if _, err := s.run(ctx, args...); err != nil {
		if strings.Contains(err.Error(), "linked to one session") || strings.Contains(err.Error(), "only linked") {
			return fmt.Errorf("%w: %w", ErrOnlyLink, err)
		}
		return err
	}
	return nil
}

// UnlinkWindow unlinks the window at index of session, which stays in every other session
// it is linked to. It returns an error wrapping ErrOnlyLink when session is its last.
func (s *Server) UnlinkWindow(ctx context.Context, session string, index int) error {
	if err := checkSession(session); err != nil {
		return err
	}
	_, err := s.run(ctx, "unlink-window", "-t", "="+session+":"+strconv.Itoa(index))
	if err != nil && (strings.Contains(err.Error(), "linked to one session") || strings.Contains(err.Error(), "only linked")) {
		return fmt.Errorf("%w: %w", ErrOnlyLink, err)
	}
	return err
}

// KillSession ends session. Windows linked to other sessions as well stay there.
func (s *Server) KillSession(ctx context.Context, session string) error {
	if err := checkSession(session); err != nil {
		return err
	}
	_, err := s.run(ctx, "kill-session", "-t", "="+session)
	return err
}

// SwitchClientTo switches client to target (a session "=name", "=name:1", or a pane id).
func (s *Server) SwitchClientTo(ctx context.Context, client, target string) error {
	if err := checkClient(client); err != nil {
		return err
	}
	if target == "" || strings.HasPrefix(target, "-") {
		return fmt.Errorf("%w: target %q", ErrInvalidTarget, clip(target))
	}
	_, err := s.run(ctx, "switch-client", "-c", arg(client), "-t", arg(target))
	return err
}

// SessionNames returns the names of the server's sessions.
func (s *Server) SessionNames(ctx context.Context) ([]string, error) {
	out, err := s.run(ctx, "list-sessions", "-F", "#{session_name}")
	if err != nil {
		return nil, err
	}
	out = strings.TrimSuffix(out, "\n")
	if out == "" {
		return nil, nil
	}
	return strings.Split(out, "\n"), nil
}

// SessionWasAttached reports whether a client has ever been attached to session (tmux
// keeps the time of the last attach; it is empty until the first).
func (s *Server) SessionWasAttached(ctx context.Context, session string) (bool, error) {
	if err := checkSession(session); err != nil {
		return false, err
	}
	out, err := s.run(ctx, "display-message", "-p", "-t", "="+session+":", "#{session_last_attached}")
	if err != nil {
		return false, err
	}
	v := strings.TrimSpace(out)
	return v != "" && v != "0", nil
}
