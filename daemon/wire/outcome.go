package wire

import "errors"

// What became of an answer, whichever way it came: the HTTP API (the popup, trailboss
// reply) or a channel inside the daemon (Telegram). The daemon's delivery returns one of
// the three errors below when nothing was typed, and the client decodes the API's
// refusals back into them; OutcomeOf is the one place that reads them.

// ErrUnknownPrompt: no prompt record has that id (HTTP 404).
var ErrUnknownPrompt = errors.New("no prompt has that id")

// PromptRefusal is why an answer to a prompt record is refused (HTTP 409): nothing is
// typed.
type PromptRefusal struct {
	Reason  string // RefusedAnswered, …
	Message string
}

func (r *PromptRefusal) Error() string { return r.Message }

// BadAnswerError is an answer that does not fit its prompt (HTTP 400): a choice it does
// not offer, a text for a menu, a reply too long. Nothing was typed.
type BadAnswerError struct{ Message string }

func (e *BadAnswerError) Error() string { return e.Message }

// Outcome kinds.
const (
	OutcomeConfirmed     = "confirmed"      // delivered, and the agent was seen to take it
	OutcomeDelivered     = "delivered"      // delivered; the agent was not seen to take it yet
	OutcomeRefused       = "refused"        // a *PromptRefusal: the prompt takes no answer now
	OutcomeBadAnswer     = "bad_answer"     // a *BadAnswerError: the answer does not fit the prompt
	OutcomeUnknownPrompt = "unknown_prompt" // ErrUnknownPrompt
	OutcomeFailed        = "failed"         // any other error: the answer may not have been typed
)

// Outcome is what became of an answer.
type Outcome struct {
	Kind string // OutcomeConfirmed, …
	// Reason is a refusal's (RefusedAnswered, …); "" for any other kind.
	Reason string
	// Message says why the answer was not delivered: the refusal's or the error's words.
	// "" when it was delivered.
	Message string
}

// OutcomeOf says what became of an answer that delivery returned res and err for.
func OutcomeOf(res Delivered, err error) Outcome {
	var refusal *PromptRefusal
	var badAnswer *BadAnswerError
	switch {
	case err == nil && res.Confirmed:
		return Outcome{Kind: OutcomeConfirmed}
	case err == nil:
		return Outcome{Kind: OutcomeDelivered}
	case errors.As(err, &refusal):
		return Outcome{Kind: OutcomeRefused, Reason: refusal.Reason, Message: refusal.Message}
	case errors.As(err, &badAnswer):
		return Outcome{Kind: OutcomeBadAnswer, Message: badAnswer.Message}
	case errors.Is(err, ErrUnknownPrompt):
		return Outcome{Kind: OutcomeUnknownPrompt, Message: err.Error()}
	}
	return Outcome{Kind: OutcomeFailed, Message: err.Error()}
}

// Delivered reports whether the answer was delivered, confirmed or not.
func (o Outcome) Delivered() bool { return o.Kind == OutcomeConfirmed || o.Kind == OutcomeDelivered }

// Audit returns o as the audit log keeps it: Delivery's Result (confirmed, delivered,
// refused or failed) and Reason.
func (o Outcome) Audit() (result, reason string) {
	switch o.Kind {
	case OutcomeConfirmed, OutcomeDelivered:
		return o.Kind, ""
	case OutcomeRefused:
		return "refused", o.Reason
	case OutcomeBadAnswer:
		return "refused", o.Message
	case OutcomeUnknownPrompt:
		return "refused", "unknown prompt"
	}
	return "failed", o.Message
}
