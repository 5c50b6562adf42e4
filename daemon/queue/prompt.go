package queue

import (
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Prompt is a prompt record (DELIVERY.md): one question put to the operator by one stuck
// moment of one session, with the answers it takes, and what became of it. An answer is
// bound to a record, never to a session: a record that is no longer pending takes none.
type Prompt struct {
	ID         string // "p" + 16 hex digits
	Nonce      string // single use; a channel that shows the prompt carries it
	SessionID  string
	Harness    string
	Pane       string
	TmuxSocket string
	Ask        adapter.Ask
	Program    adapter.Program // what asked, as it was when the record was made
	Since      time.Time       // the stuck moment of the session that asked
	CreatedAt  time.Time
	ExpiresAt  time.Time

	Status   string    // PromptPending, …
	Why      string    // for a closed record: the refusal reason a later answer gets
	ClosedAt time.Time // when it left pending
	Answer   string    // the choice key that answered it; never a typed text
	Channel  string    // the channel that answered it
}

// Prompt statuses, as the store keeps them and the API shows them (wire.Prompt*).
const (
	PromptPending   = "pending"
	PromptAnswered  = "answered"
	PromptExpired   = "expired"
	PromptWithdrawn = "withdrawn" // the session moved on, or its prompt changed
	PromptFailed    = "failed"    // the session (or the child of trailboss run) ended
)

// Pending reports whether p still takes an answer at now.
func (p *Prompt) Pending(now time.Time) bool {
	return p != nil && p.Status == PromptPending && now.Before(p.ExpiresAt)
}

// Answerable reports whether a session can be answered at all: keys need its pane, and a
// session of trailboss run takes answers through its own PTY.
func Answerable(s Session) bool {
	return s.Stuck && !s.Ended && (s.Pane != "" || s.Harness == HarnessPTY)
}

// HarnessPTY is the harness of sessions run under trailboss run.
const HarnessPTY = adapter.HarnessPTY

// PromptAsk returns what session next should be asking now that it went from prev to
// next, given the Ask its event carried (nil when the event said none) and its latest
// record cur (nil when none): ok is false when cur still stands (whatever its status: an
// answered or expired record of the same stuck moment is not asked again), else want is
// the new Ask, or nil when next asks nothing that can be answered.
func PromptAsk(prev *Session, next Session, evAsk *adapter.Ask, cur *Prompt) (want *adapter.Ask, ok bool) {
	if !Answerable(next) || (evAsk != nil && evAsk.Kind == adapter.AskNone) {
		return nil, cur != nil && cur.Status == PromptPending
	}
	if evAsk == nil && prev != nil && sameWait(*prev, next) && (cur == nil || !cur.Since.Equal(next.Since)) {
		// Its row written again with nothing new about the wait (a skip, a read position
		// saved, an event that changed no words), and no record made for it: its source
		// said it is answered in the pane (auto mode's offer), or it had none to make. It
		// stays so.
		return nil, false
	}
	sameMoment := cur != nil && cur.Since.Equal(next.Since) && cur.Pane == next.Pane && cur.TmuxSocket == next.TmuxSocket
	if sameMoment {
		if evAsk != nil {
			// The same question seen again after it was answered is asked anew (a program
			// that did not like the answer); seen before that, it is the same wait.
			askedAgain := cur.Status == PromptAnswered && next.LastEventAt.After(cur.ClosedAt)
			// A hook's own record replaces the same one read elsewhere (a transcript), so
			// that the hook can hold it.
			hookTakesIt := evAsk.From == adapter.AskFromHook && cur.Ask.From != adapter.AskFromHook && cur.Status == PromptPending
			if evAsk.Same(&cur.Ask) && !askedAgain && !hookTakesIt {
				return nil, false
			}
			return evAsk, true
		}
		sameWords := prev != nil && prev.Reason == next.Reason && prev.Detail == next.Detail && prev.Summary == next.Summary
		if sameWords {
			return nil, false
		}
		derived := DeriveAsk(next)
		if derived == nil {
			return nil, cur.Status == PromptPending
		}
		if derived.Same(&cur.Ask) || (cur.Ask.From != "" && cur.Ask.From != "derived" && next.Reason == adapter.ReasonPermission) {
			// Better words for the same wait keep the record its source made.
			return nil, false
		}
		return derived, true
	}
	if evAsk != nil {
		return evAsk, true
	}
	return DeriveAsk(next), true
}

// sameWait reports whether a and b are the same wait in the same words, in the same pane.
func sameWait(a, b Session) bool {
	return a.Stuck && b.Stuck && a.Since.Equal(b.Since) && a.Reason == b.Reason && a.Detail == b.Detail &&
		a.Summary == b.Summary && a.Pane == b.Pane && a.TmuxSocket == b.TmuxSocket
}

// DeriveAsk is the Ask of a stuck session whose source said none: a finished (or
// refused, or failed) turn waits for a message; a permission is allow or deny; a question
// whose options are unknown is nil, answered in its pane.
func DeriveAsk(s Session) *adapter.Ask {
	q := adapter.CleanText(s.Summary, 300)
	if s.Detail == "question" {
		return nil // its options are the hook's to tell; without them it is answered in the pane
	}
	if s.Reason == adapter.ReasonPermission {
		return adapter.PermissionAsk(q, "derived")
	}
	return &adapter.Ask{Kind: adapter.AskFreeText, Question: q, From: "derived"}
}

// ClosePrompt returns p closed with status and why at now.
func ClosePrompt(p Prompt, status, why string, now time.Time) Prompt {
	p.Status, p.Why, p.ClosedAt = status, why, now
	return p
}
