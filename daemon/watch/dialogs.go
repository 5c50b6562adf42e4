package watch

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
)

// Claude Code 2.1.332 in auto mode asks permission with no PermissionRequest hook: its
// PreToolUse says what the session is about to do, and its live state says, separately
// and in no set order, that a dialog is open. Dialogs keeps, per session and in memory,
// the two halves until they meet: the call about to run, and the live state last read.
// A call is over once it ran (PostToolUse), once a dialog about it closed, or once a turn
// began or ended: it can never be shown for a later dialog.

// maxEndedCalls bounds the ids of ended calls kept per session: a PreToolUse that comes
// after its own PostToolUse is one of the last few calls.
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

// Dialogs is the book of what each session is about to do and of its live state. The
// engine shows it every event (Before) and has it pair a call with the dialog open
// (Pair); LiveStates and the Reconciler read and feed it too.
type Dialogs struct {
	Engine DialogEngine

	mu sync.Mutex
	m  map[string]*dialogMemo
}

// DialogEngine is the engine as Dialogs sees it.
type DialogEngine interface {
	// Session returns live session id.
	Session(id string) (queue.Session, bool)
	// LatestPrompt returns a copy of session id's latest prompt record, or nil.
	LatestPrompt(id string) *queue.Prompt
}

func (b *Dialogs) memo(id string) *dialogMemo {
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
func (b *Dialogs) note(ev adapter.Event, fromHook bool) {
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
		// PreToolUse of its own turn (dated before it, Ingestor.order).
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
func (b *Dialogs) noteLive(st adapter.LiveState) {
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
func (b *Dialogs) view(id string) (call *adapter.ToolCall, live, prev adapter.LiveState, hooked bool) {
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
func (b *Dialogs) over(session, id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.m[session]
	return m != nil && slices.Contains(m.ended, id)
}

// forget drops the memos of sessions not in live that did not change for a while.
func (b *Dialogs) forget(live func(id string) bool, idle time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, m := range b.m {
		if !live(id) && time.Since(m.touched) > idle {
			delete(b.m, id)
		}
	}
}

// Before takes ev, which a hook sent when fromHook, before the engine applies it, and
// returns the event to apply: a call ev announces is kept for the dialog it may open, and
// a late reminder of a permission dialog (Notification) takes the words of the call it is
// about (withCall).
func (b *Dialogs) Before(ev adapter.Event, fromHook bool) adapter.Event {
	ev = b.withCall(ev)
	b.note(ev, fromHook)
	return ev
}

// withCall returns ev with the words of the call it is about, for a late reminder that a
// permission dialog is open (Claude Code's Notification permission_prompt, which names no
// call) of a session that is not queued yet: as a PermissionRequest for the call would say.
// A queued session keeps its words and record (a hook may hold that record).
func (b *Dialogs) withCall(ev adapter.Event) adapter.Event {
	if ev.Kind != adapter.KindStuck || !ev.Backup || ev.Reason != adapter.ReasonPermission || ev.Detail != "notification" {
		return ev
	}
	if s, ok := b.Engine.Session(ev.SessionID); ok && s.Stuck {
		return ev
	}
	call, _, _, _ := b.view(ev.SessionID)
	if call == nil || call.Ask == nil {
		return ev
	}
	ask := *call.Ask
	ev.Detail, ev.Summary, ev.Ask = call.Detail, call.Summary, &ask
	return ev
}

// Pair returns the session's live state applied again now that the call its dialog is
// about is known (found, or the book's when nil), and false when that changes nothing: a
// dialog queued before its PreToolUse came (or before its transcript had the call) gets
// that call's words and record.
func (b *Dialogs) Pair(id string, found *adapter.ToolCall) (adapter.Event, bool) {
	call, live, prev, hooked := b.view(id)
	if call == nil {
		call = found
	}
	if call == nil || live.Status != adapter.LiveWaiting {
		return adapter.Event{}, false
	}
	s, ok := b.Engine.Session(id)
	if !ok {
		return adapter.Event{}, false
	}
	return liveEvent(s, liveView{rec: b.Engine.LatestPrompt(id), call: call, prev: prev, hooked: hooked}, live)
}

// pairLive applies the session's live state again now that found, the call its dialog is
// about, is known (Pair).
func pairLive(ctx context.Context, e Taker, d *Dialogs, id string, found *adapter.ToolCall) error {
	ev, ok := d.Pair(id, found)
	if !ok {
		return nil
	}
	return e.Take(ctx, ev)
}
