package telegram

import (
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
)

// Binding a text that replies to no message to the prompt the person saw (DELIVERY.md,
// "Telegram facts"). Such a text goes to the one prompt waiting for text only when that
// prompt's message was in the chat before the text was written (Telegram's date), and no
// other prompt that takes text came or went in the TextWindow before that date or since:
// otherwise the person may have been writing for something else, and the relay asks which.

// DefaultTextWindow is how long before a text's date a change of the prompts that take text
// makes the text ambiguous. Reading a prompt and typing a sentence or two on a phone takes
// 10–30 s; a text started within that time of a change may have been meant for what was
// there before it. It is generous on purpose: too long costs a question back ("reply to the
// message you mean"), too short types one agent's answer into another. It also covers a
// few seconds of difference between Telegram's clock, which dates the text, and ours.
const DefaultTextWindow = 30 * time.Second

// textHistory is how long the relay remembers a prompt that took text after it ended: a
// text dated earlier than that (read late, after an outage) finds nothing to compare with,
// and is asked about.
const textHistory = time.Hour

// takesText reports whether prompt p is answered with a line of text: free text, and any
// prompt for a secret (which is answered at the keyboard, but a text may be meant for it).
func takesText(p *queue.Prompt) bool {
	return p != nil && (p.Ask.Kind == adapter.AskFreeText || p.Ask.Secret)
}

// textLife is when a prompt that takes text appeared (its record was made) and ended (left
// pending, as the relay saw it; zero while pending).
type textLife struct {
	appeared, ended time.Time
}

// textLog is the prompts that took text, as they came and went.
type textLog struct {
	mu   sync.Mutex
	seen map[string]*textLife // by prompt id
}

// note records prompt p, closed or not, as known from its record (a relay starting up).
func (l *textLog) note(p queue.Prompt, now time.Time) {
	if !takesText(&p) || (p.Status != queue.PromptPending && now.Sub(p.ClosedAt) > textHistory) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := &textLife{appeared: p.CreatedAt}
	if p.Status != queue.PromptPending {
		e.ended = p.ClosedAt
	}
	l.seen[p.ID] = e
}

// update brings the log up to date with items, the queue at now: a prompt that takes text
// not seen before appeared when its record was made; one seen pending and not among items
// any more ended now (at the latest: never earlier than it did).
func (l *textLog) update(items []queue.Item, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := map[string]bool{}
	for _, it := range items {
		if !takesText(it.Prompt) {
			continue
		}
		cur[it.Prompt.ID] = true
		if _, ok := l.seen[it.Prompt.ID]; !ok {
			l.seen[it.Prompt.ID] = &textLife{appeared: it.Prompt.CreatedAt}
		}
	}
	for id, e := range l.seen {
		if e.ended.IsZero() && !cur[id] {
			e.ended = now
		}
		if !e.ended.IsZero() && now.Sub(e.ended) > textHistory {
			delete(l.seen, id)
		}
	}
}

// changedSince reports whether a prompt that takes text, other than except, appeared or
// ended at t or later, or whether t is before what the log remembers.
func (l *textLog) changedSince(t time.Time, except string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(t) > textHistory {
		return true
	}
	for id, e := range l.seen {
		if id == except {
			continue
		}
		if !e.appeared.Before(t) || (!e.ended.IsZero() && !e.ended.Before(t)) {
			return true
		}
	}
	return false
}
