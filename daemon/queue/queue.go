// Package queue holds the daemon's domain type, Session, and the pure rules that decide
// what an Event does to it and in which order stuck sessions are presented. Nothing here
// does I/O; the store persists Sessions and the daemon serializes calls.
package queue

import (
	"sort"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Session is everything the daemon knows about one agent session.
type Session struct {
	ID             string
	Harness        string
	Pane           string // "%N", or "" when no event has said where it runs
	TmuxSocket     string
	Program        adapter.Program // what last spoke from Pane, when the daemon could tell
	Cwd            string
	TranscriptPath string

	Ended bool // retired: SessionEnd, its pane taken by another session, or its pane gone

	Stuck         bool
	Reason        string
	Detail        string
	Summary       string
	Since         time.Time // when it became stuck, in source time; kept while it stays stuck
	Rank          int64     // queue order key: Since on enqueue, the tail on skip
	CooldownUntil time.Time // set by skip; a cooling item is never the head
	Dismissed     bool      // the operator dropped it until its next stuck event
	// Parked is the stuck moment a stopped session keeps while something other than its
	// operator (a background task's end, a schedule) has woken it: it leaves the queue while
	// it works, and its next stop takes this place again, not the wake-up's. A prompt its
	// operator submits, or a dialog they answer, clears it. Kept in memory only.
	Parked time.Time

	LastEventAt time.Time // source time of the last applied event: older ones change nothing
	PaneAt      time.Time // source time of the event that bound Pane

	// Transcript position, owned by the reconcile loop.
	Offset int64     // bytes of the transcript already read
	FileID uint64    // the transcript file (inode) Offset counts in; 0 when not known
	Mark   uint64    // fingerprint of the bytes before Offset, which a rewrite changes; 0 when not known
	TailAt time.Time // timestamp of the last conversation line read
}

// Apply returns s after ev, and whether anything changed. s is nil for a session never seen.
// A session's events apply in source-time order: one older than the last applied event
// changes nothing, because hooks run in parallel and their POSTs race.
//
// A touch says nothing about waiting: it binds the session to its pane (when it names one,
// and no later event bound another) but does not move LastEventAt, so that a touch stamped
// late (a hook process slow to start) cannot make an earlier stuck or unstuck look old.
func Apply(s *Session, ev adapter.Event) (Session, bool) {
	var next Session
	if s != nil {
		if ev.At.Before(s.LastEventAt) || endsACallOfAnEndedTurn(*s, ev) {
			return late(*s, ev)
		}
		next = *s
	} else {
		next = Session{ID: ev.SessionID}
	}
	before := next
	if ev.Kind != adapter.KindTouch || next.LastEventAt.IsZero() {
		next.LastEventAt = ev.At
	}
	next.Harness = ev.Harness
	if ev.Pane != "" && (ev.Kind != adapter.KindTouch || rebinds(next, ev)) {
		// Who asked is the event's own word: a hook whose sender could not be verified
		// (AskerUnknown) does not inherit the identity of an earlier one, which says nothing
		// of it; a source that never says (the screen of a bound pane) keeps it; a new pane
		// or server takes nothing from the old one.
		if ev.Program != (adapter.Program{}) || ev.AskerUnknown || ev.Pane != next.Pane || ev.TmuxSocket != next.TmuxSocket {
			next.Program = ev.Program
		}
		next.Pane, next.TmuxSocket, next.PaneAt = ev.Pane, ev.TmuxSocket, ev.At
	}
	if ev.Cwd != "" {
		next.Cwd = ev.Cwd
	}
	if ev.TranscriptPath != "" && ev.TranscriptPath != next.TranscriptPath {
		next.TranscriptPath, next.Offset, next.TailAt = ev.TranscriptPath, 0, time.Time{}
		next.FileID, next.Mark = 0, 0
	}
	if ev.Kind != adapter.KindEnd {
		next.Ended = false
	}

	switch ev.Kind {
	case adapter.KindStuck:
		switch {
		case !next.Stuck && next.Dismissed && ev.Backup:
			// The operator dropped it; a reminder of the same wait does not bring it back.
		case !next.Stuck:
			since := ev.At
			if !next.Parked.IsZero() && next.Parked.Before(since) && ev.By != adapter.ByHuman {
				since = next.Parked // woken by a task, stopped again: its first stop's place
			}
			next.Stuck, next.Since, next.Rank, next.Parked = true, since, since.UnixNano(), time.Time{}
			next.Reason, next.Detail, next.Summary = ev.Reason, ev.Detail, ev.Summary
			next.CooldownUntil, next.Dismissed = time.Time{}, false
		case ev.Backup:
			// A late repeat keeps the place and the words of the signal that queued it.
			if next.Summary == "" {
				next.Summary = ev.Summary
			}
		case ev.Reason != next.Reason || ev.Summary != "":
			// Still stuck, now for another reason or with better words: keep the place.
			next.Reason, next.Detail = ev.Reason, ev.Detail
			if ev.Summary != "" {
				next.Summary = ev.Summary
			}
		}
	case adapter.KindUnstuck:
		next.Parked = parked(next, ev.By)
		next.unstick()
	case adapter.KindEnd:
		next.retire()
	}
	// LastEventAt alone moving is bookkeeping, but it must be stored for ordering.
	return next, next != before
}

// rebinds reports whether touch ev binds s anew: to another pane or program, and not
// older than the binding it would replace. A touch that says where s already is changes
// nothing, so that a hook fired on every tool call writes nothing.
func rebinds(s Session, ev adapter.Event) bool {
	moved := ev.Pane != s.Pane || ev.TmuxSocket != s.TmuxSocket || ev.Program != s.Program && (ev.Program != adapter.Program{} || ev.AskerUnknown)
	return moved && !ev.At.Before(s.PaneAt)
}

// parked returns the place s keeps as ev, an unstuck event said to be by, moves it on: a
// stopped session woken by something other than its operator keeps its stop's place (or
// the one it kept already), and so does one whose source cannot tell yet (ByUnknown: a
// prompt's hook will say, and its operator's clears it). Its operator's prompt clears the
// place, as does any answer to a dialog, and an event that does not say who (as before
// sources said). An event while it works (a tool ran) says nothing of who woke it.
func parked(s Session, by string) time.Time {
	switch {
	case by == adapter.ByHuman:
		return time.Time{}
	case !s.Stuck:
		return s.Parked
	case s.Reason != adapter.ReasonStopped || (by != adapter.ByOther && by != adapter.ByUnknown):
		return time.Time{} // a dialog answered (only its operator answers one), or said by no one
	case !s.Parked.IsZero() && s.Parked.Before(s.Since):
		return s.Parked
	}
	return s.Since
}

// endsACallOfAnEndedTurn reports whether ev, a tool call that finished (a PostToolUse),
// comes to a session whose turn ended: the call belongs to that turn, and says nothing of
// a new one, which begins with a prompt. Hooks run in parallel, so a PostToolUse can come
// (and be stamped) a few milliseconds after the Stop that followed it; taken for news, it
// would take the stopped session out of the queue while it waits for its person.
func endsACallOfAnEndedTurn(s Session, ev adapter.Event) bool {
	return ev.Kind == adapter.KindUnstuck && ev.Call != nil && ev.Call.Done && s.Stuck && s.Reason == adapter.ReasonStopped
}

// late returns s after ev, an event older than s's last one: nothing changes, except that
// an operator's prompt clears the place s kept for a wake-up after it (the hook that says a
// person typed can come a moment after the live state saw the session go busy).
func late(s Session, ev adapter.Event) (Session, bool) {
	if ev.Kind == adapter.KindUnstuck && ev.By == adapter.ByHuman && !s.Stuck && !s.Parked.IsZero() && ev.At.After(s.Parked) {
		s.Parked = time.Time{}
		return s, true
	}
	return s, false
}

// Unchanged reports whether b is session a as it was: in the same wait with the same
// words, in the same pane, with no event since. What a watcher decided from a still holds
// for b (Engine.TakeIf).
func Unchanged(a, b Session) bool {
	return a.Stuck == b.Stuck && a.Ended == b.Ended && a.Dismissed == b.Dismissed &&
		a.LastEventAt.Equal(b.LastEventAt) && a.Since.Equal(b.Since) && a.Reason == b.Reason &&
		a.Detail == b.Detail && a.Summary == b.Summary && a.Pane == b.Pane && a.TmuxSocket == b.TmuxSocket
}

func (s *Session) unstick() {
	s.Stuck, s.Reason, s.Detail, s.Summary = false, "", "", ""
	s.Since, s.Rank, s.CooldownUntil, s.Dismissed = time.Time{}, 0, time.Time{}, false
}

// Retire ends s at time at: it leaves the queue and its pane, and events from before at no
// longer change it. Used when its pane is taken by another session or is gone.
func Retire(s Session, at time.Time) Session {
	s.retire()
	if at.After(s.LastEventAt) {
		s.LastEventAt = at
	}
	return s
}

func (s *Session) retire() {
	s.unstick()
	s.Ended, s.Pane, s.TmuxSocket = true, "", ""
}

// SamePane reports whether a and b are bound to the same pane of the same tmux server.
func SamePane(a, b Session) bool {
	return a.Pane != "" && a.Pane == b.Pane && a.TmuxSocket == b.TmuxSocket
}

// Skip moves s to the tail of the queue behind every rank in tail, and cools it until
// now+cooldown.
func Skip(s Session, tail int64, now time.Time, cooldown time.Duration) Session {
	rank := now.UnixNano()
	if rank <= tail {
		rank = tail + 1
	}
	s.Rank, s.CooldownUntil = rank, now.Add(cooldown)
	return s
}

// Dismiss drops s from the queue until its next stuck event.
func Dismiss(s Session) Session {
	s.unstick()
	s.Dismissed = true
	return s
}

// Item is a stuck session in presentation order.
type Item struct {
	Session
	Ready  bool    // false while cooling down after a skip
	Prompt *Prompt // its pending prompt record, when it can be answered; set by the daemon
	// Closed is the prompt record of this stuck moment once it no longer takes answers
	// (answered, expired, withdrawn): why no answer can be sent now. Set by the daemon.
	Closed *Prompt
}

// Ordered returns the stuck sessions in queue order: ready items oldest first by rank, then
// cooling ones by rank. Order never depends on the reason: stuck is stuck.
func Ordered(sessions []*Session, now time.Time) []Item {
	items := make([]Item, 0, len(sessions))
	for _, s := range sessions {
		if s.Stuck && !s.Ended {
			items = append(items, Item{Session: *s, Ready: IsReady(s, now)})
		}
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].Ready != items[j].Ready {
			return items[i].Ready
		}
		if items[i].Rank != items[j].Rank {
			return items[i].Rank < items[j].Rank
		}
		return items[i].ID < items[j].ID
	})
	return items
}

// IsReady reports whether a stuck session may be the head now.
func IsReady(s *Session, now time.Time) bool {
	return s.Stuck && !s.Ended && !now.Before(s.CooldownUntil)
}

// Filter says which items a caller can act on: a client can only be switched to panes of
// its own tmux server, and "next" passes over the pane the client is already on.
type Filter struct {
	Socket      string // only items on this tmux server; "" for any
	ExcludePane string // pass over this pane, unless it is the only ready one
}

// Head returns the first ready item with a pane that f admits, or false when none is ready.
// When every other ready item is excluded, the excluded pane's item is returned, so that
// "next" on the only stuck pane stays there rather than saying nothing is stuck.
func Head(items []Item, f Filter) (Item, bool) {
	var excluded *Item
	for i := range items {
		it := &items[i]
		if !it.Ready || it.Pane == "" || (f.Socket != "" && it.TmuxSocket != f.Socket) {
			continue
		}
		if f.ExcludePane != "" && it.Pane == f.ExcludePane {
			if excluded == nil {
				excluded = it
			}
			continue
		}
		return *it, true
	}
	if excluded != nil {
		return *excluded, true
	}
	return Item{}, false
}

// MaxRank returns the highest rank among sessions, the tail of the queue.
func MaxRank(sessions []*Session) int64 {
	var m int64
	for _, s := range sessions {
		if s.Stuck && s.Rank > m {
			m = s.Rank
		}
	}
	return m
}
