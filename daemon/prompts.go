package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// Prompt records (DELIVERY.md) live beside the sessions in the engine: a record is opened,
// replaced and closed by the same staged change that moves its session, and commits in the
// same transaction, so that what the API acknowledged about a session and about its prompt
// is on disk together. An answer claims a record with one change under the engine's lock:
// of two answers at once, one wins and the other is told why not.

// DefaultPromptTTL is how long a prompt takes answers unless prompt_ttl says otherwise.
const DefaultPromptTTL = 10 * time.Minute

// promptBook is the engine's prompt records: the latest of each live session (whatever
// its status: an answered or expired record of the same stuck moment is not asked again),
// by session and by id, and a channel per record that closes when it leaves pending.
type promptBook struct {
	latest  map[string]*queue.Prompt // by session id
	byID    map[string]*queue.Prompt
	changed map[string]chan struct{} // by prompt id; closed and dropped when it leaves pending
	// claiming is the ids whose claim is being committed: a failed commit puts the record
	// back to pending rather than keep the claim for the next commit.
	claiming map[string]bool
}

func (b *promptBook) init() {
	if b.latest == nil {
		b.latest = make(map[string]*queue.Prompt)
		b.byID = make(map[string]*queue.Prompt)
		b.changed = make(map[string]chan struct{})
		b.claiming = make(map[string]bool)
	}
}

// loadPrompts reads the latest record of each live session.
func (e *Engine) loadPrompts(ctx context.Context) error {
	e.prompts.init()
	ps, err := e.store.LoadLatestPrompts(ctx)
	if err != nil {
		return err
	}
	for i := range ps {
		p := &ps[i]
		e.prompts.latest[p.SessionID] = p
		e.prompts.byID[p.ID] = p
	}
	return e.store.ForgetOldPrompts(ctx, e.now())
}

// stagePrompt puts p in memory and in the next commit; e.mu must be held. A record that
// left pending wakes whoever waits on it.
func (e *Engine) stagePrompt(p queue.Prompt) {
	e.prompts.init()
	if old, ok := e.prompts.byID[p.ID]; ok {
		*old = p
	} else {
		cp := p
		e.prompts.byID[p.ID] = &cp
		e.prompts.latest[p.SessionID] = &cp
	}
	e.batch.prompts[p.ID] = p
	if p.Status != queue.PromptPending {
		if ch, ok := e.prompts.changed[p.ID]; ok {
			close(ch)
			delete(e.prompts.changed, p.ID)
		}
	}
}

// followPrompt opens, replaces or closes the prompt record of session next as it goes
// from prev (nil when not in memory); e.mu must be held.
func (e *Engine) followPrompt(prev *queue.Session, next queue.Session, evAsk *adapter.Ask) {
	e.prompts.init()
	cur := e.prompts.latest[next.ID]
	want, change := queue.PromptAsk(prev, next, evAsk, cur)
	now := e.now()
	// The same call asked again in better words (a PermissionRequest after the live state
	// or the transcript opened a record for its dialog) keeps its record's id: a popup or a
	// phone already showing it answers the same prompt, not one "moved on".
	same := change && want != nil && cur != nil && cur.Status == queue.PromptPending &&
		cur.Ask.Subject != "" && cur.Ask.Subject == want.Subject
	if change && !same && cur != nil && cur.Status == queue.PromptPending {
		status := queue.PromptWithdrawn
		if next.Ended {
			status = queue.PromptFailed
		}
		e.stagePrompt(queue.ClosePrompt(*cur, status, wire.RefusedChanged, now))
	}
	if change && want != nil {
		ttl := e.PromptTTL
		if ttl <= 0 {
			ttl = DefaultPromptTTL
		}
		id, nonce := "p"+randomHex(8), randomHex(8)
		if same {
			id, nonce = cur.ID, cur.Nonce
		}
		p := queue.Prompt{ID: id, Nonce: nonce, SessionID: next.ID, Harness: next.Harness,
			Pane: next.Pane, TmuxSocket: next.TmuxSocket, Program: next.Program, Ask: *want, Since: next.Since, CreatedAt: now,
			ExpiresAt: now.Add(ttl), Status: queue.PromptPending}
		delete(e.prompts.byID, idOf(cur))
		cp := p
		e.prompts.byID[p.ID] = &cp
		e.prompts.latest[next.ID] = &cp
		e.batch.prompts[p.ID] = p
	}
	if next.Ended {
		if cur := e.prompts.latest[next.ID]; cur != nil {
			delete(e.prompts.byID, cur.ID)
		}
		delete(e.prompts.latest, next.ID)
	}
}

func idOf(p *queue.Prompt) string {
	if p == nil {
		return ""
	}
	return p.ID
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand: " + err.Error()) // the kernel's randomness is gone: nothing is safe
	}
	return hex.EncodeToString(b)
}

// askedLocked returns a copy of the pending record that asks what ev asked, or nil: just
// after ev was applied, the session's latest record is the one ev opened, or one that
// stood because it asks the same of the same stuck moment; e.mu must be held.
func (e *Engine) askedLocked(ev adapter.Event) *queue.Prompt {
	if ev.Kind != adapter.KindStuck || ev.Ask == nil {
		return nil
	}
	s, live := e.sessions[ev.SessionID]
	p := e.prompts.latest[ev.SessionID]
	if !live || p == nil || !p.Pending(e.now()) || !s.Stuck || !s.Since.Equal(p.Since) || !p.Ask.Same(ev.Ask) {
		return nil
	}
	cp := *p
	return &cp
}

// PendingPrompt returns the pending prompt record of a session, if it has one.
func (e *Engine) PendingPrompt(sessionID string) (queue.Prompt, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.prompts.latest[sessionID]
	if !p.Pending(e.now()) {
		return queue.Prompt{}, false
	}
	return *p, true
}

// CurrentPrompt returns a session's latest prompt record while it is pending or answered
// (not withdrawn, failed or expired): the record of what the session asks now.
func (e *Engine) CurrentPrompt(sessionID string) (queue.Prompt, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.prompts.latest[sessionID]
	if p == nil || (!p.Pending(e.now()) && p.Status != queue.PromptAnswered) {
		return queue.Prompt{}, false
	}
	return *p, true
}

// LatestPrompt returns a copy of a session's latest prompt record, whatever its status, or
// nil when it has none.
func (e *Engine) LatestPrompt(sessionID string) *queue.Prompt {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.prompts.latest[sessionID]
	if p == nil {
		return nil
	}
	cp := *p
	return &cp
}

// refuse returns the refusal of an answer to a prompt record: nothing is typed.
func refuse(reason, msg string) error { return &wire.PromptRefusal{Reason: reason, Message: msg} }

// Prompt returns a prompt record by id, from memory or from the store.
func (e *Engine) Prompt(ctx context.Context, id string) (queue.Prompt, error) {
	e.mu.Lock()
	if p, ok := e.prompts.byID[id]; ok {
		cp := *p
		e.mu.Unlock()
		return cp, nil
	}
	e.mu.Unlock()
	p, found, err := e.store.LoadPrompt(ctx, id)
	if err != nil {
		return p, err
	}
	if !found {
		return p, wire.ErrUnknownPrompt
	}
	return p, nil
}

// CheckPrompt says whether prompt id may be answered now: it is pending and not expired,
// and its session is still stuck on that same moment in that same pane. It returns the
// record and the session, or a *wire.PromptRefusal, or wire.ErrUnknownPrompt.
func (e *Engine) CheckPrompt(ctx context.Context, id string) (queue.Prompt, queue.Session, error) {
	e.mu.Lock()
	p, ok := e.prompts.byID[id]
	if ok {
		cp := *p
		s, err := e.checkLocked(cp)
		e.mu.Unlock()
		return cp, s, err
	}
	e.mu.Unlock()
	rec, err := e.Prompt(ctx, id)
	if err != nil {
		return rec, queue.Session{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.checkLocked(rec)
	return rec, s, err
}

// checkLocked is CheckPrompt's rule; e.mu must be held.
func (e *Engine) checkLocked(p queue.Prompt) (queue.Session, error) {
	now := e.now()
	switch {
	case p.Status == queue.PromptAnswered:
		return queue.Session{}, refuse(wire.RefusedAnswered, "this prompt was already answered"+by(p.Channel)+"; nothing was typed")
	case p.Status == queue.PromptExpired || (p.Status == queue.PromptPending && !now.Before(p.ExpiresAt)):
		return queue.Session{}, refuse(wire.RefusedExpired, "this prompt expired; answer it in its pane — nothing was typed")
	}
	s, live := e.sessions[p.SessionID]
	if e.paneTakenLocked(p) {
		return queue.Session{}, refuse(wire.RefusedPaneMoved, "pane "+p.Pane+" belongs to another session now; nothing was typed")
	}
	switch {
	case p.Status == queue.PromptFailed || !live:
		return queue.Session{}, refuse(wire.RefusedChanged, "that session has ended; nothing was typed")
	case p.Status != queue.PromptPending || !s.Stuck || !s.Since.Equal(p.Since):
		return queue.Session{}, refuse(wire.RefusedChanged, "the session moved on since this prompt was asked; nothing was typed")
	case s.Pane != p.Pane || s.TmuxSocket != p.TmuxSocket:
		return queue.Session{}, refuse(wire.RefusedPaneMoved, "the session is no longer in pane "+p.Pane+"; nothing was typed")
	}
	return *s, nil
}

// paneTakenLocked reports whether another live session sits in p's pane now.
func (e *Engine) paneTakenLocked(p queue.Prompt) bool {
	if p.Pane == "" {
		return false
	}
	for _, s := range e.sessions {
		if s.ID != p.SessionID && s.Pane == p.Pane && s.TmuxSocket == p.TmuxSocket {
			return true
		}
	}
	return false
}

func by(channel string) string {
	if channel == "" {
		return ""
	}
	return " (from " + channel + ")"
}

// ClaimPrompt marks prompt id answered with key (a choice key, or "" for a text) by
// channel, if CheckPrompt still allows it, and returns once that is on disk. Of two claims
// at once exactly one succeeds. A claim is in effect only once committed: until then no one
// waiting on the record (a held hook) is woken, and when the commit fails the record is
// pending again, as if the claim had not been made, and a *fault.NotSavedError says so.
func (e *Engine) ClaimPrompt(ctx context.Context, id, key, channel string) (queue.Prompt, error) {
	e.mu.Lock()
	p, ok := e.prompts.byID[id]
	if !ok {
		e.mu.Unlock()
		_, _, err := e.CheckPrompt(ctx, id)
		if err == nil {
			err = refuse(wire.RefusedChanged, "the session moved on since this prompt was asked; nothing was typed")
		}
		return queue.Prompt{}, err
	}
	if _, err := e.checkLocked(*p); err != nil {
		e.mu.Unlock()
		return queue.Prompt{}, err
	}
	before := *p
	claimed := queue.ClosePrompt(*p, queue.PromptAnswered, wire.RefusedAnswered, e.now())
	claimed.Answer, claimed.Channel = key, channel
	*p = claimed // the other answers see it taken, and are refused
	e.batch.prompts[id] = claimed
	e.prompts.claiming[id] = true // a failed commit does not keep it for the next one
	b := e.batch
	e.mu.Unlock()
	err := e.flush(ctx, b)
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.prompts.claiming, id)
	if err != nil {
		if cur := e.prompts.byID[id]; cur != nil && cur.Status == queue.PromptAnswered && cur.ClosedAt.Equal(claimed.ClosedAt) {
			*cur = before
			if _, newer := e.batch.prompts[id]; !newer {
				e.batch.prompts[id] = before // it may have been on its way to disk with the failed batch
			}
		}
		return queue.Prompt{}, &fault.NotSavedError{Err: err}
	}
	if ch, ok := e.prompts.changed[id]; ok {
		close(ch)
		delete(e.prompts.changed, id)
	}
	return claimed, nil
}

// ReleasePrompt puts a claimed prompt back to pending when its answer could not be
// delivered at all (nothing was typed), so that the person can try again.
func (e *Engine) ReleasePrompt(ctx context.Context, id string) error {
	e.mu.Lock()
	p, ok := e.prompts.byID[id]
	if !ok || p.Status != queue.PromptAnswered || e.prompts.latest[p.SessionID] != p {
		e.mu.Unlock()
		return nil
	}
	back := *p
	back.Status, back.Why, back.ClosedAt, back.Answer, back.Channel = queue.PromptPending, "", time.Time{}, "", ""
	e.stagePrompt(back)
	b := e.batch
	e.mu.Unlock()
	return e.flush(ctx, b)
}

// PromptChanged returns a channel that is closed when prompt id leaves pending, and the
// record as it is now; ok is false when no live record has that id.
func (e *Engine) PromptChanged(id string) (<-chan struct{}, queue.Prompt, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.prompts.init()
	p, ok := e.prompts.byID[id]
	if !ok {
		return nil, queue.Prompt{}, false
	}
	if p.Status != queue.PromptPending {
		ch := make(chan struct{})
		close(ch)
		return ch, *p, true
	}
	ch, ok := e.prompts.changed[id]
	if !ok {
		ch = make(chan struct{})
		e.prompts.changed[id] = ch
	}
	return ch, *p, true
}

// ExpirePrompts closes every pending record whose time has run out, and returns how many.
func (e *Engine) ExpirePrompts(ctx context.Context) (int, error) {
	e.mu.Lock()
	now := e.now()
	n := 0
	for _, p := range e.prompts.latest {
		if p.Status == queue.PromptPending && !now.Before(p.ExpiresAt) {
			e.stagePrompt(queue.ClosePrompt(*p, queue.PromptExpired, wire.RefusedExpired, now))
			n++
		}
	}
	b := e.batch
	e.mu.Unlock()
	if n == 0 {
		return 0, nil
	}
	return n, e.flush(ctx, b)
}

// RunPromptExpiry closes expired prompts every tick until ctx ends, so that a holding hook
// lets go and channels withdraw them on time.
func (e *Engine) RunPromptExpiry(ctx context.Context, tick time.Duration) error {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if n, err := e.ExpirePrompts(ctx); err != nil {
				e.log.Warn("expire prompts", "err", err)
			} else if n > 0 {
				e.log.Info("prompts expired", "count", n)
			}
		}
	}
}
