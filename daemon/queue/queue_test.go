package queue

import (
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func ev(kind adapter.Kind, sec int, mods ...func(*adapter.Event)) adapter.Event {
	e := adapter.Event{Harness: "claude", SessionID: "A", Kind: kind, At: at(sec), Pane: "%1", TmuxSocket: "/s"}
	if kind == adapter.KindStuck {
		e.Reason, e.Summary = adapter.ReasonStopped, "done?"
	}
	for _, m := range mods {
		m(&e)
	}
	return e
}

// replay applies events in the order given and returns the final session.
func replay(evs ...adapter.Event) Session {
	var s *Session
	for _, e := range evs {
		n, _ := Apply(s, e)
		s = &n
	}
	return *s
}

func TestApply(t *testing.T) {
	perm := func(e *adapter.Event) { e.Reason, e.Summary = adapter.ReasonPermission, "Bash: make" }
	backup := func(e *adapter.Event) { e.Backup, e.Reason, e.Summary = true, adapter.ReasonStopped, "idle" }
	noPane := func(e *adapter.Event) { e.Pane, e.TmuxSocket = "", "" }
	tests := []struct {
		name    string
		events  []adapter.Event
		stuck   bool
		since   time.Time
		reason  string
		summary string
		pane    string
		ended   bool
	}{
		{"stop queues", []adapter.Event{ev(adapter.KindStuck, 1)}, true, at(1), "stopped", "done?", "%1", false},
		{"prompt dequeues", []adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 2)}, false, time.Time{}, "", "", "%1", false},
		{"late older prompt does not dequeue a newer stop",
			[]adapter.Event{ev(adapter.KindStuck, 5), ev(adapter.KindUnstuck, 4)}, true, at(5), "stopped", "done?", "%1", false},
		{"repeated stop keeps the original since",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindStuck, 9)}, true, at(1), "stopped", "done?", "%1", false},
		{"permission then stop keeps place, takes new reason",
			[]adapter.Event{ev(adapter.KindStuck, 1, perm), ev(adapter.KindStuck, 3)}, true, at(1), "stopped", "done?", "%1", false},
		{"backup never rewrites",
			[]adapter.Event{ev(adapter.KindStuck, 1, perm), ev(adapter.KindStuck, 7, backup)}, true, at(1), "permission", "Bash: make", "%1", false},
		{"backup may start a stuck item",
			[]adapter.Event{ev(adapter.KindStart, 1), ev(adapter.KindStuck, 61, backup)}, true, at(61), "stopped", "idle", "%1", false},
		{"start changes no queue state",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindStart, 2)}, true, at(1), "stopped", "done?", "%1", false},
		{"an event without a pane keeps the known pane",
			[]adapter.Event{ev(adapter.KindStart, 1), ev(adapter.KindStuck, 2, noPane)}, true, at(2), "stopped", "done?", "%1", false},
		{"every event re-asserts the pane",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindStuck, 2, func(e *adapter.Event) { e.Pane = "%7" })}, true, at(1), "stopped", "done?", "%7", false},
		{"end retires", []adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindEnd, 2)}, false, time.Time{}, "", "", "", true},
		{"late event older than the end changes nothing",
			[]adapter.Event{ev(adapter.KindEnd, 5), ev(adapter.KindStuck, 4)}, false, time.Time{}, "", "", "", true},
		{"newer event revives an ended session",
			[]adapter.Event{ev(adapter.KindEnd, 5), ev(adapter.KindStuck, 6)}, true, at(6), "stopped", "done?", "%1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := replay(tt.events...)
			if s.Stuck != tt.stuck || !s.Since.Equal(tt.since) || s.Reason != tt.reason ||
				s.Summary != tt.summary || s.Pane != tt.pane || s.Ended != tt.ended {
				t.Errorf("got stuck=%v since=%v reason=%q summary=%q pane=%q ended=%v",
					s.Stuck, s.Since, s.Reason, s.Summary, s.Pane, s.Ended)
			}
			if s.Stuck && s.Rank != s.Since.UnixNano() {
				t.Errorf("rank %d, want since %d", s.Rank, s.Since.UnixNano())
			}
		})
	}
}

func TestApplyReportsNoChangeForOldEvents(t *testing.T) {
	s := replay(ev(adapter.KindStuck, 5))
	if _, changed := Apply(&s, ev(adapter.KindUnstuck, 4)); changed {
		t.Error("an older event reported a change")
	}
	if _, changed := Apply(&s, ev(adapter.KindUnstuck, 6)); !changed {
		t.Error("a newer unstuck reported no change")
	}
}

func TestDismissedIgnoresBackupButNotANewStop(t *testing.T) {
	s := Dismiss(replay(ev(adapter.KindStuck, 1)))
	n, _ := Apply(&s, ev(adapter.KindStuck, 61, func(e *adapter.Event) { e.Backup = true }))
	if n.Stuck {
		t.Fatal("a backup reminder re-queued a dismissed session")
	}
	n, _ = Apply(&n, ev(adapter.KindStuck, 70))
	if !n.Stuck || n.Dismissed {
		t.Fatal("a new stop did not re-queue a dismissed session")
	}
}

func stuckAt(id, pane string, sec int) *Session {
	return &Session{ID: id, Pane: pane, TmuxSocket: "/s", Stuck: true, Since: at(sec), Rank: at(sec).UnixNano()}
}

func ids(items []Item) string {
	out := ""
	for _, it := range items {
		out += it.ID
		if !it.Ready {
			out += "~"
		}
	}
	return out
}

func TestOrderedIsFIFOBySinceNeverByReason(t *testing.T) {
	b := stuckAt("B", "%2", 60)
	b.Reason = adapter.ReasonPermission
	a := stuckAt("A", "%1", 0)
	a.Reason = adapter.ReasonStopped
	c := stuckAt("C", "%3", 30)
	done := &Session{ID: "D", Pane: "%4"}
	ended := stuckAt("E", "%5", 1)
	ended.Ended = true
	got := ids(Ordered([]*Session{b, a, c, done, ended}, at(100)))
	if got != "ACB" {
		t.Errorf("order %q, want ACB", got)
	}
}

func TestSkipMovesToTailWithCooldown(t *testing.T) {
	a, b := stuckAt("A", "%1", 0), stuckAt("B", "%2", 10)
	all := []*Session{a, b}
	now := at(20)
	*a = Skip(*a, MaxRank(all), now, time.Minute)
	items := Ordered(all, now)
	if ids(items) != "BA~" {
		t.Fatalf("after skip: %q, want BA~", ids(items))
	}
	if h, ok := Head(items, Filter{}); !ok || h.ID != "B" {
		t.Fatalf("head %v %v, want B", h.ID, ok)
	}
	// B resolved: only the cooling A remains, so the queue presents as empty…
	b.Stuck = false
	if _, ok := Head(Ordered(all, at(30)), Filter{}); ok {
		t.Fatal("a cooling item became the head")
	}
	// …until the cooldown expires.
	if h, ok := Head(Ordered(all, at(80)), Filter{}); !ok || h.ID != "A" {
		t.Fatalf("after cooldown head %q %v, want A", h.ID, ok)
	}
}

func TestSkipRankIsBehindAFutureRank(t *testing.T) {
	a := stuckAt("A", "%1", 0)
	s := Skip(*a, at(500).UnixNano(), at(20), time.Minute)
	if s.Rank <= at(500).UnixNano() {
		t.Errorf("skip rank %d not behind tail", s.Rank)
	}
}

func TestHead(t *testing.T) {
	a, b := stuckAt("A", "%1", 0), stuckAt("B", "%2", 10)
	other := stuckAt("O", "%1", 5)
	other.TmuxSocket = "/other"
	nopane := stuckAt("N", "", -5)
	items := Ordered([]*Session{a, b, other, nopane}, at(20))
	tests := []struct {
		name string
		f    Filter
		want string
	}{
		{"oldest with a pane", Filter{}, "A"},
		{"only this server", Filter{Socket: "/other"}, "O"},
		{"pass over the pane the client is on", Filter{Socket: "/s", ExcludePane: "%1"}, "B"},
		{"the only stuck pane stays the answer", Filter{Socket: "/other", ExcludePane: "%1"}, "O"},
		{"no server match", Filter{Socket: "/none"}, ""},
	}
	for _, tt := range tests {
		h, ok := Head(items, tt.f)
		if (tt.want == "") == ok || h.ID != tt.want {
			t.Errorf("%s: head %q %v, want %q", tt.name, h.ID, ok, tt.want)
		}
	}
}

// TestTouchIsNotNewerNews: a touch (a PreToolUse, or a pane found for a session) binds the
// pane but never makes an earlier wait look old: a touch stamped late must not drop the
// stuck event that its source saw before it.
func TestTouchIsNotNewerNews(t *testing.T) {
	s := replay(ev(adapter.KindStart, 1), ev(adapter.KindTouch, 5, func(e *adapter.Event) { e.Pane = "%2" }))
	if !s.LastEventAt.Equal(at(1)) || s.Pane != "%2" || !s.PaneAt.Equal(at(5)) {
		t.Fatalf("after a touch: %+v", s)
	}
	s = replay(ev(adapter.KindStart, 1), ev(adapter.KindTouch, 5), ev(adapter.KindStuck, 3))
	if !s.Stuck || !s.Since.Equal(at(3)) {
		t.Fatalf("a wait seen before a late touch was dropped: %+v", s)
	}
	// A touch older than the pane's binding does not move it back.
	s = replay(ev(adapter.KindStart, 1), ev(adapter.KindTouch, 6, func(e *adapter.Event) { e.Pane = "%2" }),
		ev(adapter.KindTouch, 6, func(e *adapter.Event) { e.Pane = "%3"; e.At = at(4) }))
	if s.Pane != "%2" {
		t.Fatalf("an older touch rebound the pane: %+v", s)
	}
	if _, changed := Apply(&s, ev(adapter.KindTouch, 7, func(e *adapter.Event) { e.Pane = "%2" })); changed {
		t.Fatal("a touch that says nothing new changed the session (every tool call would write)")
	}
}

// TestWokenSessionKeepsItsPlace: a session woken by something other than its operator (a
// background task's end) leaves the queue while it works, and its next stop takes the
// place of its first; its operator's prompt, or an answered dialog, gives a new place.
func TestWokenSessionKeepsItsPlace(t *testing.T) {
	by := func(who string) func(*adapter.Event) { return func(e *adapter.Event) { e.By = who } }
	perm := func(e *adapter.Event) { e.Reason, e.Summary = adapter.ReasonPermission, "Bash: make" }
	tests := []struct {
		name   string
		events []adapter.Event
		stuck  bool
		since  time.Time
	}{
		{"woken by a task: out while it works",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByOther))}, false, time.Time{}},
		{"woken by a task, stops again: its first stop's place",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByOther)), ev(adapter.KindStuck, 9)}, true, at(1)},
		{"woken twice: still the first place",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByOther)), ev(adapter.KindStuck, 9),
				ev(adapter.KindUnstuck, 12, by(adapter.ByOther)), ev(adapter.KindStuck, 15)}, true, at(1)},
		{"its operator's prompt: a new place",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByHuman)), ev(adapter.KindStuck, 9)}, true, at(9)},
		{"busy first (who unknown), then the hook says a task woke it",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByUnknown)), ev(adapter.KindUnstuck, 5, by(adapter.ByOther)), ev(adapter.KindStuck, 9)}, true, at(1)},
		{"busy first (who unknown), then the operator's prompt's hook, stamped a moment earlier",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByUnknown)), ev(adapter.KindUnstuck, 4, by(adapter.ByHuman)), ev(adapter.KindStuck, 9)}, true, at(9)},
		{"busy (who unknown), its turn's end says its operator began it: a new wait",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByUnknown)), ev(adapter.KindStuck, 9, by(adapter.ByHuman))}, true, at(9)},
		{"busy (who unknown), its turn's end says a task began it: the first place",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByUnknown)), ev(adapter.KindStuck, 9, by(adapter.ByOther))}, true, at(1)},
		{"a source that does not say who: its operator, as before",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5), ev(adapter.KindStuck, 9)}, true, at(9)},
		{"a tool of the woken turn ran: still the first place",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByOther)), ev(adapter.KindUnstuck, 6), ev(adapter.KindStuck, 9)}, true, at(1)},
		{"a woken turn asks, the operator answers: the turn's end is a new wait",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByOther)), ev(adapter.KindStuck, 7, perm),
				ev(adapter.KindUnstuck, 8), ev(adapter.KindStuck, 11)}, true, at(11)},
		{"a woken turn that asks keeps the place while it asks",
			[]adapter.Event{ev(adapter.KindStuck, 1), ev(adapter.KindUnstuck, 5, by(adapter.ByOther)), ev(adapter.KindStuck, 7, perm)}, true, at(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := replay(tt.events...)
			if s.Stuck != tt.stuck || !s.Since.Equal(tt.since) || (s.Stuck && s.Rank != tt.since.UnixNano()) {
				t.Fatalf("stuck=%v since=%v rank=%d, want stuck=%v since=%v", s.Stuck, s.Since, s.Rank, tt.stuck, tt.since)
			}
		})
	}
}

// A PostToolUse stamped after the Stop that followed it (hooks race) does not take the
// stopped session out of the queue; a prompt, or a dialog's tool that finished, does.
func TestAToolThatFinishedDoesNotWakeAStoppedTurn(t *testing.T) {
	done := func(e *adapter.Event) { e.Call = &adapter.ToolCall{ID: "toolu_1", Done: true, Tool: "Bash"} }
	s := replay(ev(adapter.KindStuck, 5), ev(adapter.KindUnstuck, 6, done))
	if !s.Stuck || !s.Since.Equal(at(5)) || !s.LastEventAt.Equal(at(5)) {
		t.Fatalf("a late PostToolUse changed the stopped session: %+v", s)
	}
	if s = replay(ev(adapter.KindStuck, 5), ev(adapter.KindUnstuck, 6)); s.Stuck {
		t.Fatalf("a prompt did not wake the stopped session: %+v", s)
	}
	permission := func(e *adapter.Event) { e.Reason = adapter.ReasonPermission }
	if s = replay(ev(adapter.KindStuck, 5, permission), ev(adapter.KindUnstuck, 6, done)); s.Stuck {
		t.Fatalf("the tool a dialog asked about ran, and the session stayed queued: %+v", s)
	}
}
