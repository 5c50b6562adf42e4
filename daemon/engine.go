package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/store"
)

// Engine owns the daemon's state: the sessions in memory, written through to the store.
// Every change is committed before it is visible, and one mutex serializes changes, so the
// in-memory view never shows what the disk does not hold.
type Engine struct {
	mu       sync.Mutex
	store    *store.Store
	sessions map[string]*queue.Session
	cooldown time.Duration
	now      func() time.Time
	log      *slog.Logger

	subscribers []chan struct{} // each signalled (never blocking) after committed changes

	// OnStuck, when set, is called (with the engine locked: it must not block) for each
	// session that has just become stuck.
	OnStuck func(queue.Session)
	dirty   map[string]bool // sessions whose transcript position moved since the last flush
}

// NewEngine loads the live sessions from st.
func NewEngine(ctx context.Context, st *store.Store, cooldown time.Duration, log *slog.Logger) (*Engine, error) {
	loaded, err := st.LoadSessions(ctx)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		store:    st,
		sessions: make(map[string]*queue.Session, len(loaded)),
		cooldown: cooldown,
		now:      time.Now,
		log:      log,
		dirty:    make(map[string]bool),
	}
	for i := range loaded {
		e.sessions[loaded[i].ID] = &loaded[i]
	}
	return e, nil
}

// Subscribe returns a channel that receives after committed changes. Signals coalesce:
// a slow reader sees one signal for many changes, and the engine never waits for it.
func (e *Engine) Subscribe() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	ch := make(chan struct{}, 1)
	e.subscribers = append(e.subscribers, ch)
	return ch
}

// notify is called with e.mu held.
func (e *Engine) notify() {
	for _, ch := range e.subscribers {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Ingest applies ev and returns once the result is committed. It reports whether anything
// changed. A session that binds a pane releases every other session on that pane.
func (e *Engine) Ingest(ctx context.Context, ev adapter.Event) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()

	prev, known := e.sessions[ev.SessionID]
	if !known {
		// An ended session is not kept in memory; its row still orders late events.
		s, found, err := e.store.LoadSession(ctx, ev.SessionID)
		if err != nil {
			return false, err
		}
		if found {
			prev = &s
		}
	}
	next, changed := queue.Apply(prev, ev)
	if !changed {
		return false, nil
	}
	if ev.Pane != "" && !next.Ended && next.PaneAt.Equal(ev.At) {
		for _, other := range e.sessions {
			if other.ID != next.ID && queue.SamePane(*other, next) && other.PaneAt.After(ev.At) {
				// Another session took this pane after our event happened: we are no
				// longer there, and a late event must not put two sessions on one pane.
				next = queue.Retire(next, other.PaneAt)
				break
			}
		}
	}
	writes := []queue.Session{next}
	if ev.Pane != "" && !next.Ended && next.PaneAt.Equal(ev.At) {
		for _, other := range e.sessions {
			// A pane claimed later by the other session is not ours to take.
			if other.ID != next.ID && queue.SamePane(*other, next) && !other.PaneAt.After(ev.At) {
				writes = append(writes, queue.Retire(*other, ev.At))
			}
		}
	}
	if err := e.store.SaveSessions(ctx, writes); err != nil {
		return false, err
	}
	for i := range writes {
		e.put(writes[i])
		delete(e.dirty, writes[i].ID) // the full row, position included, is on disk
	}
	if e.OnStuck != nil && next.Stuck && (prev == nil || !prev.Stuck) {
		e.OnStuck(next)
	}
	e.log.Debug("event applied", "session", ev.SessionID, "kind", ev.Kind, "pane", ev.Pane, "released", len(writes)-1)
	e.notify()
	return true, nil
}

// put stores s in memory; ended sessions leave memory.
func (e *Engine) put(s queue.Session) {
	if s.Ended {
		delete(e.sessions, s.ID)
		return
	}
	e.sessions[s.ID] = &s
}

// Items returns the stuck sessions in queue order.
func (e *Engine) Items() []queue.Item {
	e.mu.Lock()
	defer e.mu.Unlock()
	return queue.Ordered(e.all(), e.now())
}

func (e *Engine) all() []*queue.Session {
	out := make([]*queue.Session, 0, len(e.sessions))
	for _, s := range e.sessions {
		out = append(out, s)
	}
	return out
}

// Head returns the item "next" should land on, or false when nothing is ready.
func (e *Engine) Head(f queue.Filter) (queue.Item, bool) {
	return queue.Head(e.Items(), f)
}

// Skip moves the ready item at f.ExcludePane (the pane the operator is on), or else the
// head, to the tail with a cooldown, and returns the new head. skipped is false when
// nothing was ready.
func (e *Engine) Skip(ctx context.Context, f queue.Filter) (head queue.Item, found bool, skipped bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	items := queue.Ordered(e.all(), now)
	target, ok := queue.Item{}, false
	for _, it := range items {
		if it.Ready && f.ExcludePane != "" && it.Pane == f.ExcludePane && (f.Socket == "" || it.TmuxSocket == f.Socket) {
			target, ok = it, true
			break
		}
	}
	if !ok {
		target, ok = queue.Head(items, queue.Filter{Socket: f.Socket})
	}
	if !ok {
		return queue.Item{}, false, false, nil
	}
	s := queue.Skip(*e.sessions[target.ID], queue.MaxRank(e.all()), now, e.cooldown)
	if err := e.commit(ctx, s); err != nil {
		return queue.Item{}, false, false, err
	}
	head, found = queue.Head(queue.Ordered(e.all(), now), queue.Filter{Socket: f.Socket})
	return head, found, true, nil
}

// ErrNotQueued is returned when an operation names a session that is not stuck.
var ErrNotQueued = errors.New("session is not in the queue")

// SkipSession moves one stuck session to the tail with a cooldown, whatever its place.
func (e *Engine) SkipSession(ctx context.Context, id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.sessions[id]
	if !ok || !s.Stuck {
		return ErrNotQueued
	}
	next := queue.Skip(*s, queue.MaxRank(e.all()), e.now(), e.cooldown)
	return e.commit(ctx, next)
}

// Dismiss drops a stuck session from the queue until its next stuck event. Events stamped
// before now are older than the dismissal and cannot bring it back.
func (e *Engine) Dismiss(ctx context.Context, id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.sessions[id]
	if !ok || !s.Stuck {
		return ErrNotQueued
	}
	next := queue.Dismiss(*s)
	if now := e.now(); now.After(next.LastEventAt) {
		next.LastEventAt = now
	}
	return e.commit(ctx, next)
}

// commit writes one session and makes it visible; e.mu must be held.
func (e *Engine) commit(ctx context.Context, s queue.Session) error {
	if err := e.store.SaveSessions(ctx, []queue.Session{s}); err != nil {
		return err
	}
	e.put(s)
	delete(e.dirty, s.ID)
	e.notify()
	return nil
}

// Status returns how many sessions are stuck and how many of them "next" can land on
// (not cooling, and with a pane).
func (e *Engine) Status() (stuck, ready int) {
	for _, it := range e.Items() {
		stuck++
		if it.Ready && it.Pane != "" {
			ready++
		}
	}
	return stuck, ready
}

// Snapshot returns a copy of every live session.
func (e *Engine) Snapshot() []queue.Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]queue.Session, 0, len(e.sessions))
	for _, s := range e.sessions {
		out = append(out, *s)
	}
	return out
}

// Session returns a copy of one live session.
func (e *Engine) Session(id string) (queue.Session, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.sessions[id]
	if !ok {
		return queue.Session{}, false
	}
	return *s, true
}

// Retire ends the given sessions at time at (their panes are gone).
func (e *Engine) Retire(ctx context.Context, ids []string, at time.Time) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var writes []queue.Session
	for _, id := range ids {
		if s, ok := e.sessions[id]; ok {
			writes = append(writes, queue.Retire(*s, at))
		}
	}
	if err := e.store.SaveSessions(ctx, writes); err != nil {
		return err
	}
	for _, s := range writes {
		e.put(s)
	}
	if len(writes) > 0 {
		e.notify()
	}
	return nil
}

// SetTranscriptPosition records how far the reconcile loop has read a session's transcript.
// It is kept in memory; FlushPositions writes the positions that moved.
func (e *Engine) SetTranscriptPosition(id, path string, offset int64, tailAt time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.sessions[id]
	if !ok || s.TranscriptPath != path {
		return // the session ended or moved to another transcript meanwhile
	}
	s.Offset = offset
	if tailAt.After(s.TailAt) {
		s.TailAt = tailAt
	}
	e.dirty[id] = true
}

// FlushPositions writes the sessions whose read position moved, so that a restart goes on
// from there. It is called by the sweep, not on the hot path.
func (e *Engine) FlushPositions(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	writes := make([]queue.Session, 0, len(e.dirty))
	for id := range e.dirty {
		if s, ok := e.sessions[id]; ok {
			writes = append(writes, *s)
		}
	}
	if err := e.store.SaveSessions(ctx, writes); err != nil {
		return err
	}
	clear(e.dirty)
	return nil
}
