package daemon

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/transcript"
	"github.com/trailboss/trailboss/daemon/wallclock"
)

// Engine owns the daemon's state: the sessions in memory, written through to the store.
//
// Writes are group-committed: a change is applied to memory and staged under mu, then the
// caller waits until a transaction holding it has committed, and only then is it
// acknowledged. While one commit is on the disk, the changes that arrive meanwhile gather
// in the next batch and go down together in one transaction, so throughput is not bounded
// by one fsync per event. A staged change is visible in memory for the time of one commit
// (about a millisecond) before it is on disk; if that commit fails, its callers get the
// error and its rows are staged again with the next batch.
type Engine struct {
	mu       sync.Mutex
	store    *store.Store
	sessions map[string]*queue.Session // the latest state, staged rows included
	cooldown time.Duration
	now      func() time.Time
	log      *slog.Logger

	staged  map[string]queue.Session // rows in memory but not yet committed, ended ones too
	batch   *batch                   // rows waiting for the next commit
	flushMu sync.Mutex               // one commit at a time

	subscribers []chan struct{} // each signalled (never blocking) after committed changes

	// OnStuck, when set, is called for each session that has just become stuck, after the
	// change committed. It must not block.
	OnStuck func(queue.Session)
	dirty   map[string]bool // sessions whose transcript position moved since the last flush

	// PromptTTL is how long a prompt record takes answers (prompt_ttl in config.toml).
	PromptTTL time.Duration
	prompts   promptBook // the latest prompt record of each live session, under mu
	// dialogs follows what each session is about to do and its live state: shown every
	// event, it pairs a dialog with its call (dialogs.go). Under its own lock.
	dialogs dialogBook
}

// batch is the rows of one group commit and what became of it.
type batch struct {
	rows    map[string]queue.Session // the latest row of each session staged in it
	prompts map[string]queue.Prompt  // the latest row of each prompt record staged in it
	done    chan struct{}            // closed once committed (or failed)
	err     error
}

func newBatch() *batch {
	return &batch{rows: make(map[string]queue.Session), prompts: make(map[string]queue.Prompt), done: make(chan struct{})}
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
		now:      wallclock.Now,
		log:      log,

		PromptTTL: DefaultPromptTTL,
		staged:    make(map[string]queue.Session),
		batch:     newBatch(),
		dirty:     make(map[string]bool),
	}
	for i := range loaded {
		e.sessions[loaded[i].ID] = &loaded[i]
	}
	if err := e.loadPrompts(ctx); err != nil {
		return nil, err
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

// Unsubscribe stops the signals of ch, a channel Subscribe returned, for a subscriber that
// goes away (a stream whose caller hung up).
func (e *Engine) Unsubscribe(ch <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, c := range e.subscribers {
		if c == ch {
			e.subscribers = append(e.subscribers[:i], e.subscribers[i+1:]...)
			return
		}
	}
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

// stage applies rows to memory and adds them to the next commit; e.mu must be held. It
// returns the batch to wait for.
func (e *Engine) stage(rows ...queue.Session) *batch {
	return e.stageAsk(nil, rows...)
}

// stageAsk is stage with the Ask that the event behind rows[0] carried: each row's prompt
// record follows its session (prompts.go) and commits with it.
func (e *Engine) stageAsk(ask *adapter.Ask, rows ...queue.Session) *batch {
	for i, r := range rows {
		var evAsk *adapter.Ask
		if i == 0 {
			evAsk = ask
		}
		e.followPrompt(e.sessions[r.ID], r, evAsk)
		e.put(r)
		e.staged[r.ID] = r
		e.batch.rows[r.ID] = r
		delete(e.dirty, r.ID) // the full row, position included, goes to disk
	}
	return e.batch
}

// pendingBatch returns the batch that holds session id's uncommitted row, or nil when its
// row is on disk; e.mu must be held.
func (e *Engine) pendingBatch(id string) *batch {
	if _, ok := e.staged[id]; ok {
		return e.batch
	}
	return nil
}

// flush returns once b has committed, committing it (with everything staged since) when no
// other caller already did.
func (e *Engine) flush(ctx context.Context, b *batch) error {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	select {
	case <-b.done: // the caller before us committed our batch with theirs
		return b.err
	default:
	}
	// b is the current batch: only the holder of flushMu swaps batches.
	e.mu.Lock()
	cur := e.batch
	e.batch = newBatch()
	e.mu.Unlock()

	rows := make([]queue.Session, 0, len(cur.rows))
	for _, r := range cur.rows {
		rows = append(rows, r)
	}
	prompts := make([]queue.Prompt, 0, len(cur.prompts))
	for _, p := range cur.prompts {
		prompts = append(prompts, p)
	}
	err := e.store.SaveSessions(context.WithoutCancel(ctx), rows, prompts...)

	e.mu.Lock()
	for id, r := range cur.rows {
		if err != nil {
			if _, newer := e.batch.rows[id]; !newer {
				e.batch.rows[id] = r // try again with the next commit
			}
			continue
		}
		if s, ok := e.staged[id]; ok && s == r {
			delete(e.staged, id) // on disk, and nothing newer is staged
		}
	}
	if err != nil {
		for id, p := range cur.prompts {
			if _, newer := e.batch.prompts[id]; !newer && !e.prompts.claiming[id] {
				e.batch.prompts[id] = p
			}
		}
	}
	if err == nil {
		e.notify()
	}
	e.mu.Unlock()
	cur.err = err
	close(cur.done)
	return err
}

// Outcome is what Ingest did with one event.
type Outcome struct {
	Changed bool // the session's row changed
	// Prompt is the pending prompt record that asks what the event asked: the one it
	// opened, or the one of the same wait that an earlier event opened (the PreToolUse
	// before a question's PermissionRequest); nil when the event asked nothing, or its
	// question is no longer the session's. It is read in the same step that applied the
	// event, so a later event of the session (a second PermissionRequest posted at the
	// same moment) cannot change whose record it is.
	Prompt *queue.Prompt
}

// Ingest applies ev and returns once the result is committed. It reports whether anything
// changed, and the prompt record of what ev asked. A session that binds a pane releases
// every other session on that pane.
func (e *Engine) Ingest(ctx context.Context, ev adapter.Event) (Outcome, error) {
	return e.ingest(ctx, ev, false)
}

// ingest is Ingest; fromHook says a hook sent ev. A call ev announces is kept for the
// dialog it may open (the book of dialogs), and paired at once with one open already; a
// late reminder of a permission dialog takes the words of the call it is about.
func (e *Engine) ingest(ctx context.Context, ev adapter.Event, fromHook bool) (Outcome, error) {
	ev = e.beforeApply(ev, fromHook)
	out, err := e.applyAndCommit(ctx, ev, nil)
	if err == nil && ev.Call != nil && !ev.Call.Done && ev.Kind == adapter.KindTouch {
		if paired, ok := e.pair(ev.SessionID, nil); ok {
			_, err = e.applyAndCommit(ctx, paired, nil)
		}
	}
	return out, err
}

func (e *Engine) applyAndCommit(ctx context.Context, ev adapter.Event, basis *queue.Session) (Outcome, error) {
	a, err := e.apply(ctx, ev, basis)
	if err != nil {
		return Outcome{}, err
	}
	if (a.batch == nil || !a.changed) && e.log.Enabled(ctx, slog.LevelDebug) {
		// Said at -v: an event older than the session's last one changes nothing, and a
		// lost turn end is found here.
		e.log.Debug("event changed nothing", "session", ev.SessionID, "kind", ev.Kind, "at", ev.At,
			"last_event_at", a.next.LastEventAt, "stuck", a.next.Stuck, "prompt", a.prompt != nil)
	}
	if a.batch == nil {
		return Outcome{Prompt: a.prompt}, nil
	}
	if err := e.flush(ctx, a.batch); err != nil {
		return Outcome{}, err
	}
	if !a.changed {
		return Outcome{Prompt: a.prompt}, nil
	}
	if e.OnStuck != nil && a.next.Stuck && !a.wasStuck {
		e.OnStuck(a.next)
	}
	e.log.Debug("event applied", "session", ev.SessionID, "kind", ev.Kind, "at", ev.At, "pane", ev.Pane, "released", a.released)
	return Outcome{Changed: true, Prompt: a.prompt}, nil
}

// applied is what apply did: the batch to wait for (nil when nothing needs writing),
// whether the session's row changed, and the record of what the event asked.
type applied struct {
	batch    *batch
	changed  bool
	wasStuck bool
	next     queue.Session
	released int
	prompt   *queue.Prompt
}

// promptsAnOpenDialog reports whether ev, a prompt submitted, comes to a session whose
// dialog still waits for its answer (queued for a permission, its record pending); e.mu
// must be held. A dialog takes the keyboard, so no prompt is submitted while it is open:
// this one was fired before the dialog opened. Hooks run in parallel, and a prompt's hook
// slow to start under load is stamped after the PermissionRequest that came a model call
// later; taken for news, it would withdraw the record that hook holds. A dialog closed
// with no answer through Trail Boss (Esc, a key) is seen by the live state or the
// transcript, which take the session out of its permission wait first.
func (e *Engine) promptsAnOpenDialog(prev *queue.Session, ev adapter.Event) bool {
	if ev.Kind != adapter.KindUnstuck || !ev.Submitted || prev == nil || !prev.Stuck || prev.Reason != adapter.ReasonPermission {
		return false
	}
	p := e.prompts.latest[ev.SessionID]
	return p.Pending(e.now()) && p.Since.Equal(prev.Since)
}

// apply stages what ev does under e.mu; the lock is released however it returns, so that
// a bug met by one event cannot leave every other caller waiting for it. With a basis (a
// watcher's event, TakeIf), ev is applied only to the session as basis was, else the error
// is fault.ErrMoved.
func (e *Engine) apply(ctx context.Context, ev adapter.Event, basis *queue.Session) (applied, error) {
	ev = ev.Placed()
	e.mu.Lock()
	defer e.mu.Unlock()
	prev, known := e.sessions[ev.SessionID]
	if !known {
		if s, ok := e.staged[ev.SessionID]; ok {
			prev = &s // ended a moment ago, not yet on disk
		} else {
			// An ended session is not kept in memory; its row still orders late events.
			s, found, err := e.store.LoadSession(ctx, ev.SessionID)
			if err != nil {
				return applied{}, err
			}
			if found {
				prev = &s
			}
		}
	}
	if basis != nil && (prev == nil || !queue.Unchanged(*prev, *basis)) {
		return applied{}, fault.ErrMoved
	}
	wasStuck := prev != nil && prev.Stuck
	if e.promptsAnOpenDialog(prev, ev) {
		return applied{batch: e.pendingBatch(ev.SessionID)}, nil
	}
	next, changed := queue.Apply(prev, ev)
	if !changed {
		// Nothing new, but an earlier change of this session may still be on its way to
		// disk: acknowledge only once it is there.
		return applied{batch: e.pendingBatch(ev.SessionID), prompt: e.askedLocked(ev)}, nil
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
	b := e.stageAsk(ev.Ask, writes...)
	return applied{batch: b, changed: true, wasStuck: wasStuck, next: next, released: len(writes) - 1,
		prompt: e.askedLocked(ev)}, nil
}

// put stores s in memory; ended sessions leave memory. e.mu must be held.
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
	now := e.now()
	items := queue.Ordered(e.all(), now)
	for i := range items {
		p := e.prompts.latest[items[i].ID]
		switch {
		case p.Pending(now):
			cp := *p
			items[i].Prompt = &cp
		case p != nil && p.Since.Equal(items[i].Since):
			cp := *p
			if cp.Status == queue.PromptPending {
				cp.Status = queue.PromptExpired // its time ran out; the next expiry sweep closes it
			}
			items[i].Closed = &cp
		}
	}
	return items
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
		e.mu.Unlock()
		return queue.Item{}, false, false, nil
	}
	b := e.stage(queue.Skip(*e.sessions[target.ID], queue.MaxRank(e.all()), now, e.cooldown))
	head, found = queue.Head(queue.Ordered(e.all(), now), queue.Filter{Socket: f.Socket})
	e.mu.Unlock()
	if err := e.flush(ctx, b); err != nil {
		return queue.Item{}, false, false, err
	}
	return head, found, true, nil
}

// SkipSession moves one stuck session to the tail with a cooldown, whatever its place.
func (e *Engine) SkipSession(ctx context.Context, id string) error {
	return e.changeStuck(ctx, id, func(s queue.Session) queue.Session {
		return queue.Skip(s, queue.MaxRank(e.all()), e.now(), e.cooldown)
	})
}

// Dismiss drops a stuck session from the queue until its next stuck event. Events stamped
// before now are older than the dismissal and cannot bring it back.
func (e *Engine) Dismiss(ctx context.Context, id string) error {
	return e.changeStuck(ctx, id, func(s queue.Session) queue.Session {
		next := queue.Dismiss(s)
		if now := e.now(); now.After(next.LastEventAt) {
			next.LastEventAt = now
		}
		return next
	})
}

// changeStuck commits change of stuck session id, made under the engine's lock;
// fault.ErrNotQueued when id is not stuck.
func (e *Engine) changeStuck(ctx context.Context, id string, change func(queue.Session) queue.Session) error {
	e.mu.Lock()
	s, ok := e.sessions[id]
	if !ok || !s.Stuck {
		e.mu.Unlock()
		return fault.ErrNotQueued
	}
	return e.commitUnlock(ctx, []queue.Session{change(*s)})
}

// Status returns how many sessions are stuck, how many of those are cooling after a skip,
// and how many "next" can land on (not cooling, and with a pane). It counts without
// sorting: it runs on every key press.
func (e *Engine) Status() (stuck, cooling, ready int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	var c queue.Counts
	for _, s := range e.sessions {
		c.Add(s, now)
	}
	return c.Stuck, c.Cooling, c.Ready
}

// Now is the engine's clock: the time against which cooldowns and prompt deadlines end.
func (e *Engine) Now() time.Time { return e.now() }

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
	var writes []queue.Session
	for _, id := range ids {
		if s, ok := e.sessions[id]; ok {
			writes = append(writes, queue.Retire(*s, at))
		}
	}
	return e.commitUnlock(ctx, writes)
}

// commitUnlock stages writes, unlocks e.mu, which the caller holds, and waits until they
// are committed. No writes commit nothing.
func (e *Engine) commitUnlock(ctx context.Context, writes []queue.Session) error {
	if len(writes) == 0 {
		e.mu.Unlock()
		return nil
	}
	b := e.stage(writes...)
	e.mu.Unlock()
	return e.flush(ctx, b)
}

// SetTranscriptPosition records how far the reconcile loop has read a session's transcript.
// It is kept in memory; FlushPositions writes the positions that moved.
func (e *Engine) SetTranscriptPosition(id, path string, pos transcript.Position, tailAt time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.sessions[id]
	if !ok || s.TranscriptPath != path {
		return // the session ended or moved to another transcript meanwhile
	}
	s.Offset, s.FileID, s.Mark = pos.Offset, pos.FileID, pos.Mark
	if tailAt.After(s.TailAt) {
		s.TailAt = tailAt
	}
	e.dirty[id] = true
}

// FlushPositions writes the sessions whose read position moved, so that a restart goes on
// from there. It is called by the sweep, not on the hot path.
func (e *Engine) FlushPositions(ctx context.Context) error {
	e.mu.Lock()
	writes := make([]queue.Session, 0, len(e.dirty))
	for id := range e.dirty {
		if s, ok := e.sessions[id]; ok {
			writes = append(writes, *s)
		}
	}
	clear(e.dirty)
	return e.commitUnlock(ctx, writes)
}
