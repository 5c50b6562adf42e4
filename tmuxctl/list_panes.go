package tmuxctl

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// Pane is one tmux pane as list-panes reports it.
type Pane struct {
	ID          string // "%N"
	PID         int    // pid of the pane's first process (its shell or command)
	SessionName string // as tmux shows it: control characters in names are escaped by tmux
	WindowIndex int
	WindowID    string // "@N"
	WindowName  string // as tmux shows it, control characters escaped
	CurrentPath string // working directory of the pane's foreground process; "" when unknown
	Dead        bool   // the pane's process exited and the pane remains (remain-on-exit)
	Active      bool   // the active pane of its window
}

// sep separates the fields of one pane. Session names cannot hold it (tmux escapes
// control characters in them), but pane_current_path can hold any byte, so it comes last
// and the record ends with a marker chosen afresh for every call (see paneFormat).
const sep = "\x1f"

const paneFields = 9

// paneFormat returns the -F format of list-panes whose records end with end.
func paneFormat(end string) string {
	return strings.Join([]string{
		"#{pane_id}", "#{pane_pid}", "#{session_name}", "#{window_index}", "#{window_id}",
		"#{pane_dead}", "#{pane_active}", "#{window_name}", "#{pane_current_path}",
	}, sep) + end
}

// newRecordEnd returns a record terminator that no directory name can forge: a path
// holding a newline and a fake record would otherwise be read as one more pane.
func newRecordEnd() string {
	return sep + "tbx" + rand.Text()
}

// ListPanes returns every pane of every session of the server.
func (s *Server) ListPanes(ctx context.Context) ([]Pane, error) {
	end := newRecordEnd()
	out, err := s.run(ctx, "list-panes", "-a", "-F", paneFormat(end))
	if err != nil {
		return nil, err
	}
	panes, err := parsePanes(out, end)
	if err != nil {
		return nil, fmt.Errorf("tmux list-panes: %w", err)
	}
	return panes, nil
}

// parsePanes parses list-panes output in paneFormat(end): records that each end with end
// and a newline. It returns an error naming the first malformed record.
func parsePanes(out, end string) ([]Pane, error) {
	if out == "" {
		return nil, nil
	}
	term := end + "\n"
	if !strings.HasSuffix(out, term) {
		return nil, fmt.Errorf("output does not end with a complete record: %q", clipTail(out))
	}
	var panes []Pane
	for i, rec := range strings.Split(strings.TrimSuffix(out, term), term) {
		p, err := parsePane(rec)
		if err != nil {
			return nil, fmt.Errorf("pane record %d: %w", i+1, err)
		}
		panes = append(panes, p)
	}
	return panes, nil
}

func parsePane(rec string) (Pane, error) {
	f := strings.SplitN(rec, sep, paneFields)
	if len(f) != paneFields {
		return Pane{}, fmt.Errorf("%d fields, want %d: %q", len(f), paneFields, clip(rec))
	}
	p := Pane{ID: f[0], SessionName: f[2], WindowID: f[4], WindowName: f[7], CurrentPath: f[8]}
	if !adapter.ValidPane(p.ID) {
		return Pane{}, fmt.Errorf("pane id %q is not %% and digits", clip(p.ID))
	}
	var err error
	if p.PID, err = parsePositive(f[1]); err != nil {
		return Pane{}, fmt.Errorf("pane %s: pid: %w", p.ID, err)
	}
	if p.WindowIndex, err = parseNonNegative(f[3]); err != nil {
		return Pane{}, fmt.Errorf("pane %s: window index: %w", p.ID, err)
	}
	if !validWindowID(p.WindowID) {
		return Pane{}, fmt.Errorf("pane %s: window id %q is not @ and digits", p.ID, clip(p.WindowID))
	}
	if p.Dead, err = parseFlag(f[5]); err != nil {
		return Pane{}, fmt.Errorf("pane %s: dead: %w", p.ID, err)
	}
	if p.Active, err = parseFlag(f[6]); err != nil {
		return Pane{}, fmt.Errorf("pane %s: active: %w", p.ID, err)
	}
	return p, nil
}

func parsePositive(s string) (int, error) {
	n, err := parseNonNegative(s)
	if err == nil && n == 0 {
		return 0, fmt.Errorf("%q is not positive", s)
	}
	return n, err
}

// parseNonNegative accepts decimal digits only: no sign, no spaces.
func parseNonNegative(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a number", clip(s))
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range", clip(s))
	}
	return int(n), nil
}

func parseFlag(s string) (bool, error) {
	switch s {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf("%q is neither 0 nor 1", clip(s))
}

func validWindowID(s string) bool {
	if len(s) < 2 || s[0] != '@' {
		return false
	}
	_, err := parseNonNegative(s[1:])
	return err == nil
}

// clipTail keeps the end of s, where a truncated record shows.
func clipTail(s string) string {
	if len(s) > 40 {
		return "…" + s[len(s)-40:]
	}
	return s
}
