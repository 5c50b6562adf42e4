package tmuxctl

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// PaneState is what one cheap list-panes call tells about every pane's output, for
// watching many panes without capturing them.
//
// Drawn moves when the pane scrolls or its cursor moves: then it surely drew something.
// Activity moves when anything at all was written to the pane's window: text drawn in place
// (a spinner, a clock), but also output that changes nothing on screen (a program rewriting
// the terminal title every second, as Codex does while it waits for an approval), and output
// of another pane of the same window. Only the screen's content tells these apart.
type PaneState struct {
	ID       string
	Dead     bool
	Drawn    string // history size and cursor position, as one comparable value
	Activity int64  // window_activity: the last second anything was written to the window
	PID      int    // pane_pid: the pane's first process (its shell, or the command it ran)
	Command  string // the pane's foreground process name (pane_current_command)
}

const paneStateFields = 6

func paneStateFormat(end string) string {
	return strings.Join([]string{
		"#{pane_id}", "#{pane_dead}",
		"#{history_size},#{cursor_x},#{cursor_y}", "#{window_activity}", "#{pane_pid}",
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
		drawn := strings.Split(f[2], ",")
		for _, n := range drawn {
			if _, err := parseNonNegative(n); err != nil || len(drawn) != 3 {
				return nil, fmt.Errorf("pane %s: drawn state %q is not three numbers", f[0], clip(f[2]))
			}
		}
		activity, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || activity < 0 {
			return nil, fmt.Errorf("pane %s: window activity %q is not a time", f[0], clip(f[3]))
		}
		// A dead pane has no process: tmux reports its pid as 0.
		pid, err := parseNonNegative(f[4])
		if err != nil {
			return nil, fmt.Errorf("pane %s: pid: %w", f[0], err)
		}
		states = append(states, PaneState{ID: f[0], Dead: dead, Drawn: f[2], Activity: activity, PID: pid, Command: f[5]})
	}
	return states, nil
}
