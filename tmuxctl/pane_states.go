package tmuxctl

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// PaneState is what one cheap list-panes call tells about every pane's output, for
// watching many panes without capturing them: when any of Changed's fields moves, the pane
// drew something.
type PaneState struct {
	ID      string
	Dead    bool
	Changed string // history size, cursor position and window activity, as one comparable value
	Command string // the pane's foreground process name (pane_current_command)
}

const paneStateFields = 4

func paneStateFormat(end string) string {
	return strings.Join([]string{
		"#{pane_id}", "#{pane_dead}",
		"#{history_size},#{cursor_x},#{cursor_y},#{window_activity}",
		"#{pane_current_command}", // any bytes: last
	}, sep) + end
}

// PaneStates returns the output state of every pane of the server, in one tmux call.
func (s *Server) PaneStates(ctx context.Context) ([]PaneState, error) {
	end := newRecordEnd()
	out, err := s.run(ctx, "list-panes", "-a", "-F", paneStateFormat(end))
	if err != nil {
		return nil, err
	}
	states, err := parsePaneStates(out, end)
	if err != nil {
		return nil, fmt.Errorf("tmux list-panes: %w", err)
	}
	return states, nil
}

func parsePaneStates(out, end string) ([]PaneState, error) {
	if out == "" {
		return nil, nil
	}
	term := end + "\n"
	if !strings.HasSuffix(out, term) {
		return nil, fmt.Errorf("output does not end with a complete record: %q", clipTail(out))
	}
	var states []PaneState
	for i, rec := range strings.Split(strings.TrimSuffix(out, term), term) {
		f := strings.SplitN(rec, sep, paneStateFields)
		if len(f) != paneStateFields {
			return nil, fmt.Errorf("pane record %d: %d fields, want %d: %q", i+1, len(f), paneStateFields, clip(rec))
		}
		if !adapter.ValidPane(f[0]) {
			return nil, fmt.Errorf("pane record %d: pane id %q is not %% and digits", i+1, clip(f[0]))
		}
		dead, err := parseFlag(f[1])
		if err != nil {
			return nil, fmt.Errorf("pane %s: dead: %w", f[0], err)
		}
		for _, n := range strings.Split(f[2], ",") {
			if _, err := strconv.ParseInt(n, 10, 64); err != nil || len(strings.Split(f[2], ",")) != 4 {
				return nil, fmt.Errorf("pane %s: output state %q is not four numbers", f[0], clip(f[2]))
			}
		}
		states = append(states, PaneState{ID: f[0], Dead: dead, Changed: f[2], Command: f[3]})
	}
	return states, nil
}
