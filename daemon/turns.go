package daemon

import (
	"slices"
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// endedTurns remembers, by session, the last turns whose agent said they were complete
// (adapter.Event.EndsTurn), so that an event of such a turn arriving later is dropped: an
// after-tool hook whose process started after the turn's end notice, on a loaded machine,
// would otherwise take the finished turn out of the queue, and the session would wait
// unseen. A harness whose hooks are run by one process and its turn-end notice by another
// gives no order of arrival that means anything; the turn id they both carry does.
//
// It also remembers, by session, the turn of the last event applied and the latest stamp
// of that turn, so that the turn's end is never older than the rest of its own turn: the
// notify can also arrive after a PostToolUse of its turn that was stamped later (the hook
// started first, the notify's process later, both slow), and would then change nothing,
// the turn's end lost (the real-agent suite's two-TUIs test, under load).
type endedTurns struct {
	mu        sync.Mutex // held from the check to the record: see Ingestor.apply
	bySession map[string][]string
	latest    map[string]turnStamp
}

// turnStamp is the turn of a session's last event applied, and the latest stamp of that
// turn's events.
type turnStamp struct {
	turn string
	at   time.Time
}

// endAfterItsTurn returns ev, a turn's end, dated just after the latest event of its own
// turn when one was stamped later; any other event as it is. Called with mu held.
func (t *endedTurns) endAfterItsTurn(ev adapter.Event) adapter.Event {
	if !ev.EndsTurn || !named(ev) {
		return ev
	}
	if last, ok := t.latest[ev.SessionID]; ok && last.turn == ev.Turn && ev.At.Before(last.at) {
		ev.At = last.at.Add(time.Millisecond)
	}
	return ev
}

// Bounds of the memory: a session's last turns (a late hook belongs to the turn that just
// ended, rarely the one before), the sessions (past it the memory starts again, as
// Ingestor.lastHook's), and an id's length (longer is no id of a real agent, and is not
// remembered).
const (
	turnsKept     = 4
	maxTurnID     = 128
	maxTurnMemory = maxOrdered
)

// named reports whether ev names a turn that can be remembered.
func named(ev adapter.Event) bool { return ev.Turn != "" && len(ev.Turn) <= maxTurnID }

// stale reports whether ev belongs to a turn its agent already said was complete.
// Called with mu held.
func (t *endedTurns) stale(ev adapter.Event) bool {
	return named(ev) && slices.Contains(t.bySession[ev.SessionID], ev.Turn)
}

// record remembers ev's turn and stamp, and the end of its turn if ev says it ended. Called with mu held, after ev
// was applied: a turn end the store failed to keep is not an end, and its retry from the
// spool must not be dropped.
func (t *endedTurns) record(ev adapter.Event) {
	if !named(ev) {
		return
	}
	if t.latest == nil || len(t.latest) >= maxTurnMemory {
		t.latest = make(map[string]turnStamp)
	}
	if last := t.latest[ev.SessionID]; last.turn != ev.Turn || ev.At.After(last.at) {
		t.latest[ev.SessionID] = turnStamp{turn: ev.Turn, at: ev.At}
	}
	if !ev.EndsTurn {
		return
	}
	if t.bySession == nil || len(t.bySession) >= maxTurnMemory {
		t.bySession = make(map[string][]string)
	}
	turns := append(t.bySession[ev.SessionID], ev.Turn)
	if len(turns) > turnsKept {
		turns = turns[len(turns)-turnsKept:]
	}
	t.bySession[ev.SessionID] = turns
}
