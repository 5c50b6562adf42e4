package queue

import (
	"fmt"
	"time"
)

// StatusText is what the status line shows, given how many sessions are stuck and how
// many of those are cooling after a skip: "⚠ 2 stuck", "⚠ 2 stuck · 1 cooling", or ""
// when every stuck session is cooling (the queue presents as empty until one is ready).
// "stuck" never counts the cooling ones.
func StatusText(stuck, cooling int) string {
	waiting := stuck - cooling
	if waiting <= 0 {
		return ""
	}
	if cooling > 0 {
		return fmt.Sprintf("⚠ %d stuck · %d cooling", waiting, cooling)
	}
	return fmt.Sprintf("⚠ %d stuck", waiting)
}

// StatusLine is StatusText with the hosts a hub cannot reach now after it, each marked ✗:
// "⚠ 3 stuck · devbox ✗", or "devbox ✗" alone when nothing waits (their items may).
func StatusLine(stuck, cooling int, unreachable []string) string {
	text := StatusText(stuck, cooling)
	for _, h := range unreachable {
		if text != "" {
			text += " · "
		}
		text += h + " ✗"
	}
	return text
}

// Counts is how many sessions are stuck, how many of those cool down after a skip, and
// how many are ready with a pane to jump to: the one rule behind GET /v1/status, the tmux
// status options and the status file.
type Counts struct{ Stuck, Cooling, Ready int }

// Add counts s as it stands at now: an ended or unstuck session counts for nothing.
func (c *Counts) Add(s *Session, now time.Time) {
	if !s.Stuck || s.Ended {
		return
	}
	c.Stuck++
	switch {
	case !IsReady(s, now):
		c.Cooling++
	case s.Pane != "":
		c.Ready++
	}
}
