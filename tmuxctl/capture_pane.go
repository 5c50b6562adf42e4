package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// CapturePane returns the visible text of pane, wrapped lines joined, one line per row.
// It returns an error wrapping ErrInvalidTarget before running tmux when pane is not a
// pane id, and ErrNoPane when tmux cannot find it.
func (s *Server) CapturePane(ctx context.Context, pane string) (string, error) {
	if err := checkPane(pane); err != nil {
		return "", err
	}
	return s.run(ctx, "capture-pane", "-p", "-J", "-t", pane)
}

// CapturePanes returns the visible text of each of panes as CapturePane does, in one tmux
// call however many panes there are: starting a tmux client costs far more than tmux
// copying a screen. A pane that is gone by then is missing from the result; other errors
// are returned. It returns an error wrapping ErrInvalidTarget before running tmux when any
// of panes is not a pane id.
func (s *Server) CapturePanes(ctx context.Context, panes []string) (map[string]string, error) {
	if len(panes) == 0 {
		return map[string]string{}, nil
	}
	for _, p := range panes {
		if err := checkPane(p); err != nil {
			return nil, err
		}
	}
	// Each screen is followed by a marker line that no screen can forge, since it is
	// chosen afresh for every call. One pane tmux cannot find stops the whole sequence:
	// then each pane is captured on its own.
	end := newRecordEnd()
	args := make([]string, 0, 9*len(panes))
	for i, p := range panes {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, "capture-pane", "-p", "-J", "-t", p, ";", "display-message", "-p", end)
	}
	out, err := s.run(ctx, args...)
	if errors.Is(err, ErrNoPane) {
		return s.capturePanesOneByOne(ctx, panes)
	}
	if err != nil {
		return nil, err
	}
	screens, err := splitScreens(out, end, len(panes))
	if err != nil {
		return nil, fmt.Errorf("tmux capture-pane: %w", err)
	}
	got := make(map[string]string, len(panes))
	for i, p := range panes {
		got[p] = screens[i]
	}
	return got, nil
}

func (s *Server) capturePanesOneByOne(ctx context.Context, panes []string) (map[string]string, error) {
	got := make(map[string]string, len(panes))
	for _, p := range panes {
		screen, err := s.CapturePane(ctx, p)
		switch {
		case errors.Is(err, ErrNoPane):
			continue
		case err != nil:
			return nil, err
		}
		got[p] = screen
	}
	return got, nil
}

// splitScreens splits the output of n captures, each followed by the line end, into the n
// screens, each as CapturePane returns it.
func splitScreens(out, end string, n int) ([]string, error) {
	term := end + "\n"
	if !strings.HasSuffix(out, term) {
		return nil, fmt.Errorf("output does not end with a complete screen: %q", clipTail(out))
	}
	screens := strings.Split(strings.TrimSuffix(out, term), term)
	if len(screens) != n {
		return nil, fmt.Errorf("%d screens, want %d", len(screens), n)
	}
	return screens, nil
}
