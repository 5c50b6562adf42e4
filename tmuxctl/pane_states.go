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
}

// paneStateFormat asks for nothing that makes tmux look at the pane's processes (as
// pane_current_command does, for every pane, on every call): PaneProcesses does that.
func paneStateFormat(end string) string {
	return strings.Join([]string{
		"#{pane_id}", "#{pane_dead}", "#{history_size},#{cursor_x},#{cursor_y}", "#{window_activity}",
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
	var states []PaneState
	err := eachRecord(out, end, 4, func(f []string) error {
		dead, err := parseFlag(f[1])
		if err != nil {
			return fmt.Errorf("dead: %w", err)
		}
		drawn := strings.Split(f[2], ",")
		for _, n := range drawn {
			if _, err := parseNonNegative(n); err != nil || len(drawn) != 3 {
				return fmt.Errorf("drawn state %q is not three numbers", clip(f[2]))
			}
		}
		activity, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || activity < 0 {
			return fmt.Errorf("window activity %q is not a time", clip(f[3]))
		}
		states = append(states, PaneState{ID: f[0], Dead: dead, Drawn: f[2], Activity: activity})
		return nil
	})
	return states, err
}

// PaneProcess is what runs in a pane.
type PaneProcess struct {
	ID      string
	Dead    bool
	PID     int    // pane_pid: the pane's first process (its shell, or the command it ran); 0 when dead
	Command string // the pane's foreground process name (pane_current_command)
}

// PaneProcesses returns what runs in every pane of the server, in one tmux call.
func (s *Server) PaneProcesses(ctx context.Context) ([]PaneProcess, error) {
	end := newRecordEnd()
	format := strings.Join([]string{"#{pane_id}", "#{pane_dead}", "#{pane_pid}",
		"#{pane_current_command}"}, sep) + end // any bytes: last
	out, err := s.run(ctx, "list-panes", "-a", "-F", format)
	if err != nil {
		return nil, err
	}
	procs, err := parsePaneProcesses(out, end)
	if err != nil {
		return nil, fmt.Errorf("tmux list-panes: %w", err)
	}
	return procs, nil
}

func parsePaneProcesses(out, end string) ([]PaneProcess, error) {
	var procs []PaneProcess
	err := eachRecord(out, end, 4, func(f []string) error {
		dead, err := parseFlag(f[1])
		if err != nil {
			return fmt.Errorf("dead: %w", err)
		}
		pid, err := parseNonNegative(f[2])
		if err != nil {
			return fmt.Errorf("pid: %w", err)
		}
		procs = append(procs, PaneProcess{ID: f[0], Dead: dead, PID: pid, Command: f[3]})
		return nil
	})
	return procs, err
}

// eachRecord splits list-panes output whose records end with end into records of n fields,
// the first a pane id, and calls one for each; the last field may hold any bytes.
func eachRecord(out, end string, n int, one func(f []string) error) error {
	if out == "" {
		return nil
	}
	term := end + "\n"
	if !strings.HasSuffix(out, term) {
		return fmt.Errorf("output does not end with a complete record: %q", clipTail(out))
	}
	for i, rec := range strings.Split(strings.TrimSuffix(out, term), term) {
		f := strings.SplitN(rec, sep, n)
		if len(f) != n {
			return fmt.Errorf("pane record %d: %d fields, want %d: %q", i+1, len(f), n, clip(rec))
		}
		if !adapter.ValidPane(f[0]) {
			return fmt.Errorf("pane record %d: pane id %q is not %% and digits", i+1, clip(f[0]))
		}
		if err := one(f); err != nil {
			return fmt.Errorf("pane %s: %w", f[0], err)
		}
	}
	return nil
}
