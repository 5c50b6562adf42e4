// Package fault names the ways the daemon's core turns a request down or fails it, so that
// each of its faces (the HTTP API, the spool drain, a channel) can tell them apart and do
// what each calls for (an HTTP status; keep or drop a spooled file) without importing the
// core.
//
// It imports nothing of ours but the generic adapter, whose envelope errors it carries.
package fault

import (
	"errors"

	"github.com/trailboss/trailboss/adapter/generic"
)

// ErrNotStored means the store could not take the event (a full or failing disk): it was
// not applied, and the same payload may be sent again later.
var ErrNotStored = errors.New("event not stored")

// RefusedError is a payload the daemon will never take: malformed, of an unknown harness,
// or naming a tmux server that does not exist. Sending it again changes nothing.
type RefusedError struct {
	Reason   string
	Envelope *generic.Error // why a generic envelope was refused, with each problem; or nil
}

func (e *RefusedError) Error() string { return e.Reason }

// ErrNotQueued is returned when an operation names a session that is not stuck.
var ErrNotQueued = errors.New("session is not in the queue")

// ErrUnknownPrompt: no prompt record has that id.
var ErrUnknownPrompt = errors.New("no prompt has that id")

// PromptRefusal is why an answer to a prompt record is refused: nothing is typed.
type PromptRefusal struct {
	Reason string // wire.RefusedAnswered, …
	Msg    string
}

func (r *PromptRefusal) Error() string { return r.Msg }

// BadAnswerError is an answer that does not fit its prompt (400): a choice it does not
// offer, a text for a menu, a reply too long. Nothing was typed.
type BadAnswerError struct{ Msg string }

func (e *BadAnswerError) Error() string { return e.Msg }

// NotSavedError is a claim of a prompt that could not be committed (the disk is full, say):
// nothing was typed, and the prompt takes answers again.
type NotSavedError struct{ Err error }

func (e *NotSavedError) Error() string {
	return "the answer could not be saved (" + e.Err.Error() + "), so nothing was typed and the prompt takes " +
		"answers again: try again, or answer in the pane; the daemon's log says more"
}

func (e *NotSavedError) Unwrap() error { return e.Err }
