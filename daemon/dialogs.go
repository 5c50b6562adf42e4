package daemon

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
)

// A harness may ask permission with no hook of its own for the dialog: its hook before a
// tool runs (a PreToolUse) says what the session is about to do, and its live state says,
// separately and in no set order, that a dialog is open. The engine keeps, per session and
// in memory, the two halves until they meet (dialogBook): the call about to run, and the
// live state last read. A call is over once it ran (its hook after the tool), once a
// dialog about it closed, or once a turn began or ended: it can never be shown for a later
// dialog. The engine shows the book every event on its write path; the watchers feed it
// what they read (NoteLive) and ask it (LiveView, CallOver, PairCall).

// maxEndedCalls bounds the ids of ended calls kept per session: a call announced after
// its own end is one of the last few calls.
const maxEndedCalls = 16

type dialogMemo struct {
	call    *adapter.ToolCall // about to run: announced, not yet over
	callAt  time.Time         // when it was announced
	ended   []string          // ids of calls that are over, the newest last
	overAt  time.Time         // calls announced before this are over (a turn began or ended, a dialog closed)
	live    adapter.LiveState // the state file as last read; zero before
	prev    adapter.LiveState // the one read before it
	hooked  bool              // a hook spoke for the session
	touched time.Time         // when the memo last changed, for forgetting
}

// dialogBook is the book of what each session is about to do and of its live state. It
// has a lock of its own, never held with the engine's.
type dialogBook struct {
	mu sync.Mutex
	m  map[string]*dialogMemo
}

func (b *dialogBook) memo(id string) *dialogMemo {
	if b.m == nil {
		b.m = make(map[string]*dialogMemo)
	}
	m := b.m[id]
	if m == nil {
		m = &dialogMemo{}
		b.m[id] = m
	}
	m.touched = time.Now()
	return m
}

// note takes what ev says of the session's calls; fromHook says a hook sent it.
func (b *dialogBook) note(ev adapter.Event, fromHook bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ev.Kind == adapter.KindEnd {
		delete(b.m, ev.SessionID)
		return
	}
	m := b.memo(ev.SessionID)
	m.hooked = m.hooked || fromHook
	switch {
	case ev.Call != nil && ev.Call.Done:
		m.end(ev.Call.ID)
	case ev.Call != nil:
		if ev.At.Before(m.overAt) || slices.Contains(m.ended, ev.Call.ID) {
			return // announced before its turn or its dialog was over: late
		}
		cp := *ev.Call
		m.call, m.callAt = &cp, ev.At
	case ev.By != "" || (ev.Kind == adapter.KindStuck && ev.Reason == adapter.ReasonStopped && !ev.Backup):
		// A prompt begins a turn, a stop ends one: whatever was announced is over. Not a
		// call announced after it: hooks race, and a prompt's hook can come in after the
		// call announced in its own turn (dated before it, Ingestor.order).
		if m.call == nil || !ev.At.Before(m.callAt) {
			m.end("")
		}
		if ev.At.After(m.overAt) {
			m.overAt = ev.At
		}
	}
}

// end marks call id over, and the pending call with it when it is that one ("": whichever
// is pending).
func (m *dialogMemo) end(id string) {
	if m.call != nil && (id == "" || m.call.ID == id) {
		if id == "" {
			id = m.call.ID
		}
		m.call = nil
	}
	if id != "" && !slices.Contains(m.ended, id) {
		m.ended = append(m.ended, id)
		if len(m.ended) > maxEndedCalls {
			m.ended = m.ended[len(m.ended)-maxEndedCalls:]
		}
	}
}

// noteLive takes a fresh reading of a session's state file. A dialog that closed (waiting,
// then anything else) is over with its call.
func (b *dialogBook) noteLive(st adapter.LiveState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.memo(st.SessionID)
	if m.live == st {
		return
	}
	if m.live.Status == adapter.LiveWaiting && st.Status != adapter.LiveWaiting {
		m.end("")
		if st.At.After(m.overAt) {
			m.overAt = st.At
		}
	}
	m.prev, m.live = m.live, st
}

// view returns what the book knows of session id: its pending call (a copy, or nil), its
// live state and the one before, and whether hooks speak for it.
func (b *dialogBook) view(id string) (call *adapter.ToolCall, live, prev adapter.LiveState, hooked bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.m[id]
	if m == nil {
		return nil, adapter.LiveState{}, adapter.LiveState{}, false
	}
	if m.call != nil {
		cp := *m.call
		call = &cp
	}
	return call, m.live, m.prev, m.hooked
}

// over reports whether call id of session is over (done, or closed with a dialog).
func (b *dialogBook) over(session, id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.m[session]
	return m != nil && slices.Contains(m.ended, id)
}

// forget drops the memos of sessions not in live that did not change for a while.
func (b *dialogBook) forget(live map[string]bool, idle time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, m := range b.m {
		if !live[id] && time.Since(m.touched) > idle {
			delete(b.m, id)
		}
	}
}

// beforeApply takes ev, which a hook sent when fromHook, before the engine applies it, and
// returns the event to apply: a call ev announces is kept for the dialog it may open, and
// a late reminder of a permission dialog takes the words of the call it is about
// (withCall).
func (e *Engine) beforeApply(ev adapter.Event, fromHook bool) adapter.Event {
	ev = e.withCall(ev)
	e.dialogs.note(ev, fromHook)
	return ev
}

// withCall returns ev with the words of the call it is about, for a late reminder that a
// permission dialog is open (a harness's notification of a dialog, which names no call)
// of a session that is not queued yet: as a permission request for the call would say.
// A queued session keeps its words and record (a hook may hold that record).
func (e *Engine) withCall(ev adapter.Event) adapter.Event {
	if ev.Kind != adapter.KindStuck || !ev.Backup || ev.Reason != adapter.ReasonPermission || ev.Detail != "notification" {
		return ev
	}
	if s, ok := e.Session(ev.SessionID); ok && s.Stuck {
		return ev
	}
	call, _, _, _ := e.dialogs.view(ev.SessionID)
	if call == nil || call.Ask == nil {
		return ev
	}
	ask := *call.Ask
	ev.Detail, ev.Summary, ev.Ask = call.Detail, call.Summary, &ask
	return ev
}

// pair returns the session's live state applied again now that the call its dialog is
// about is known (found, or the book's when nil), and false when that changes nothing: a
// dialog queued before its call was announced (or before its transcript had the call)
// gets that call's words and record.
func (e *Engine) pair(id string, found *adapter.ToolCall) (adapter.Event, bool) {
	call, live, prev, hooked := e.dialogs.view(id)
	if call == nil {
		call = found
	}
	if call == nil || live.Status != adapter.LiveWaiting {
		return adapter.Event{}, false
	}
	s, ok := e.Session(id)
	if !ok {
		return adapter.Event{}, false
	}
	v := liverule.View{Rec: e.LatestPrompt(id), Call: call, Prev: prev, Hooked: hooked, Words: e.LiveWords(s.Harness)}
	return liverule.Event(s, v, live)
}

// PairCall applies session id's live state again now that found, the call the dialog it
// shows is about, is known: the dialog takes that call's words and record. It does nothing
// when that changes nothing.
func (e *Engine) PairCall(ctx context.Context, id string, found *adapter.ToolCall) error {
	ev, ok := e.pair(id, found)
	if !ok {
		return nil
	}
	return e.Take(ctx, ev)
}

// NoteLive takes st, a fresh reading of a session's live state file, into the book of its
// dialogs.
func (e *Engine) NoteLive(st adapter.LiveState) { e.dialogs.noteLive(st) }

// LiveView returns what the engine knows of session s beside its row, for the rule of
// what its live state means (liverule.Event): its latest prompt record, the call it is
// about to make, the state read before the last, whether hooks speak for it, and its
// harness's words. The transcript's part (Tail, TurnBy) is the reader's to fill.
func (e *Engine) LiveView(s queue.Session) liverule.View {
	call, _, prev, hooked := e.dialogs.view(s.ID)
	return liverule.View{Rec: e.LatestPrompt(s.ID), Call: call, Prev: prev, Hooked: hooked, Words: e.LiveWords(s.Harness)}
}

// LiveWords returns harness's words for the waits its live state shows and no hook put in
// words, from the registry of harnesses.
func (e *Engine) LiveWords(harness string) liverule.Words { return liveWordsOf(harness) }

// CallOver reports whether call id of session is over: it ran, or a dialog about it
// closed. A call read from a transcript that is over is no dialog's.
func (e *Engine) CallOver(session, id string) bool { return e.dialogs.over(session, id) }

// ForgetDialogs drops what the book keeps of sessions that are no longer live and did not
// change for idle.
func (e *Engine) ForgetDialogs(idle time.Duration) {
	e.mu.Lock()
	live := make(map[string]bool, len(e.sessions))
	for id := range e.sessions {
		live[id] = true
	}
	e.mu.Unlock()
	e.dialogs.forget(live, idle)
}
