// Package fault names the ways the daemon's core turns a request down or fails it, so that
// each of its faces (the HTTP API, the spool drain, a channel) can tell them apart and do
// what each calls for (an HTTP status; keep or drop a spooled file) without importing the
// core.
//
// It imports nothing of ours but the generic adapter, whose envelope errors it carries. The
// refusals of an answer (wire.PromptRefusal, wire.BadAnswerError, wire.ErrUnknownPrompt) are
// the protocol's, in daemon/wire, with wire.OutcomeOf, the one place that reads them.
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

// ErrMoved is returned when an event a watcher made from what it read of a session comes
// after the session changed (Engine.TakeIf): it was not applied, and the watcher reads the
// session again.
var ErrMoved = errors.New("the session changed since it was read")

// ErrNotQueued is returned when an operation names a session that is not stuck.
var ErrNotQueued = errors.New("session is not in the queue")

// NotSavedError is a claim of a prompt that could not be committed (the disk is full, say):
// nothing was typed, and the prompt takes answers again.
type NotSavedError struct{ Err error }

func (e *NotSavedError) Error() string {
	return "the answer could not be saved (" + e.Err.Error() + "), so nothing was typed and the prompt takes " +
		"answers again: try again, or answer in the pane; the daemon's log says more"
}

func (e *NotSavedError) Unwrap() error { return e.Err }
