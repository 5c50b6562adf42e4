// Package focus is the focus view: a tmux session of Trail Boss's own per operator client,
// whose window 1 is the head of the queue's window, linked there with link-window (the
// agent's window stays where it is, in its own session: linked windows are shared
// objects), with the queue on the session's status line and in its window 0. prefix Tab
// there unlinks the window and links the next head's in its place; leaving unlinks it and
// ends the session. Nothing is ever moved with join-pane, which takes a pane out of its
// home.
//
// This file holds the pure rules (which item is next, what the status line says, when to
// advance on its own); view.go does the tmux and daemon work.
package focus

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// Session options of a focus session.
const (
	// MarkOption is "1" on every focus session: the prefix Tab binding advances the view
	// there instead of jumping out of it.
	MarkOption = "@trailboss-focus"
	// PaneOption is the pane whose window is linked at LinkedIndex: the item being worked.
	PaneOption = "@trailboss-focus-pane"
	// FromOption is the session the client was in before it entered: where leaving goes.
	FromOption = "@trailboss-focus-from"
	// LineOption is the status line's queue text, kept by the session's keeper.
	LineOption = "@trailboss_focus"
	// AdvanceOption says where auto-advance stands: "off", "waiting" (the item still waits
	// for its answer), "armed" (answered: it moves once the person is quiet), "cancelled"
	// (they typed after the answer: it stays).
	AdvanceOption = "@trailboss-focus-advance"
)

// The focus session's windows: the queue (the keeper's pane) and the linked agent window.
const (
	QueueIndex  = 0
	LinkedIndex = 1
)

// SessionPrefix starts every focus session's name.
const SessionPrefix = "trailboss-"

// SessionName returns the focus session of the client named client (its tty,
// "/dev/pts/3" → "trailboss-pts-3"). One session per client, not a session group: the
// sessions of a group share their windows, so one client's window 1 would be every
// client's, and one's advance would move the others.
func SessionName(client string) string {
	name := strings.TrimPrefix(client, "/dev/")
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '-'
	}, name)
	return SessionPrefix + name
}

// linkable reports whether it is a ready item on the tmux server at socket: another
// host's items, or another tmux server's, cannot be linked into this server's session.
func linkable(it wire.Item, socket string) bool {
	return it.Ready && it.Host == "" && it.TmuxSocket != "" && filepath.Clean(it.TmuxSocket) == filepath.Clean(socket)
}

// Choose returns the item to link next: the first ready item of the tmux server at
// socket after current in queue order, going round to the head (the head itself when
// current is not in the queue); false when there is none but current. Going on from
// current, not from the head, is what makes prefix Tab walk the queue: an item left
// waiting (for another operator, or for later) is not shown again at every press.
func Choose(items []wire.Item, socket, current string) (wire.Item, bool) {
	at := -1
	for i, it := range items {
		if it.Host == "" && it.Pane == current {
			at = i
			break
		}
	}
	for i := range items {
		it := items[(at+1+i)%len(items)]
		if linkable(it, socket) && it.Pane != current {
			return it, true
		}
	}
	return wire.Item{}, false
}

// Waiting reports whether pane (on the server at socket) is still in the queue: its answer
// not yet taken.
func Waiting(items []wire.Item, socket, pane string) bool {
	for _, it := range items {
		if it.Host == "" && it.Pane == pane && filepath.Clean(it.TmuxSocket) == filepath.Clean(socket) {
			return true
		}
	}
	return false
}

// Line returns the status line of a focus view: the item in window 1 (or that it was
// answered), how many more wait, the next one's summary, and where auto-advance stands.
func Line(items []wire.Item, socket, current, advance string, after time.Duration) string {
	var b strings.Builder
	switch {
	case current == "":
		b.WriteString("▶ nothing linked")
	case Waiting(items, socket, current):
		for _, it := range items {
			if it.Pane == current && it.Host == "" {
				b.WriteString("▶ " + it.Reason + ": " + clip(it.Summary, 40))
				break
			}
		}
	default:
		b.WriteString("✓ answered")
	}
	more := 0
	for _, it := range items {
		inView := it.Host == "" && it.Pane == current
		if it.Ready && !inView {
			more++
		}
	}
	if more == 0 {
		b.WriteString(" · nothing else waits")
	} else {
		b.WriteString(" · " + strconv.Itoa(more) + " more waiting")
	}
	if next, ok := Choose(items, socket, current); ok {
		b.WriteString(" · next: " + clip(next.Summary, 40))
	}
	switch advance {
	case "armed":
		b.WriteString(" · moving on after " + after.String() + " quiet (type to stay)")
	case "cancelled":
		b.WriteString(" · staying: you typed (prefix Tab moves on)")
	}
	return statusText(b.String())
}

// statusText makes s safe for a status line that shows it through #{…}: no line breaks or
// control characters, and no "#[" that tmux would read as a style.
func statusText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.ReplaceAll(s, "#[", "# [")
}

// clip shortens s to n runes, with "…" when cut.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Advance decides when the view moves on by itself ([focus] advance = "after_answer"):
// once the item in window 1 has taken its answer and the person has not typed for After.
// A key typed after the answer was taken cancels it for that item: the person is working
// there, and is never moved mid-typing.
//
// What it reads of the person is tmux's client_activity, the time of the client's last key
// (or mouse) event: it is the person's own input, where window_activity and
// monitor-activity count the program's output, which an agent that took an answer is busy
// writing. tmux gives it in whole seconds, so the quiet time is counted from the end of
// the second of the last key (never less than After after any key), and a key is seen as
// new when the second changes.
type Advance struct {
	After time.Duration

	pane      string
	armed     bool
	cancelled bool
	baseline  int64 // client_activity when it armed
}

// Step takes one look: pane is the item in window 1, taken that it is no longer in the
// queue, activity the client's last key (Unix seconds). It returns true when the view
// should move on now.
func (a *Advance) Step(pane string, taken bool, activity int64, now time.Time) bool {
	if pane != a.pane {
		*a = Advance{After: a.After, pane: pane}
	}
	if pane == "" || !taken {
		a.armed, a.cancelled = false, false
		return false
	}
	switch {
	case a.cancelled:
		return false
	case !a.armed:
		a.armed, a.baseline = true, activity
	case activity > a.baseline:
		a.armed, a.cancelled = false, true
		return false
	}
	return !now.Before(time.Unix(activity+1, 0).Add(a.After))
}

// State is "waiting", "armed" or "cancelled", for the status line.
func (a *Advance) State() string {
	switch {
	case a.cancelled:
		return "cancelled"
	case a.armed:
		return "armed"
	}
	return "waiting"
}
