package emit

// Holding a request until the person answers through Trail Boss (docs/delivery.md,
// "Holding a Claude Code permission"): the handshake every harness that holds shares.

import (
	"context"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/daemon/client/hot"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/hooks"
)

// HoldPoll is how long one wait for the answer lasts at most before the hook asks again.
const HoldPoll = 20 * time.Second

// holdMargin is how long before Claude Code would end the hook (hooks.PermissionHookTimeout)
// it gives up by itself, so that it always exits quietly rather than being killed.
const holdMargin = 15 * time.Second

// pollGrace is how much longer than the daemon's long poll the client waits for it.
const pollGrace = 10 * time.Second

// holdRetry spaces the waits of a daemon that answers "pending" at once, so that a hook
// never spins.
const holdRetry = 250 * time.Millisecond

// heldRequest is a payload that can hold, decoded once by its emitter, as the hold
// handshake asks it: whether the prompt answered is its own, and what its harness is
// printed for the answer. The rest (post, wait, print) is holdAndPrint's, the same for
// every harness.
type heldRequest interface {
	// owns returns nil when subject, what the held prompt record asks about, is this
	// very request; otherwise why not: a decision printed for another would decide it.
	owns(subject string) error
	// decision returns the line (with its newline) that gives the harness answer a, or an
	// error when a decides nothing for this request.
	decision(a *wire.GivenAnswer) ([]byte, error)
}

// send posts body, a payload of harness that ran at, within Timeout, and spools it unless
// the daemon acknowledged it; or, when req is not nil (a payload that may hold, of an
// emitter asked to hold), holds it until the person answers and prints req's decision
// (holdAndPrint). startedAt is when the hook started, which bounds how long it may hold.
func (e *Emitter) send(ctx context.Context, harness string, at, startedAt time.Time, body []byte, req heldRequest) error {
	if req != nil {
		return e.holdAndPrint(ctx, harness, at, startedAt, body, req)
	}
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	return e.emitHook(ctx, harness, at, body, nil)
}

// holdAndPrint posts body, the payload of harness that req was decoded from (the bytes as
// the agent sent them), saying it can hold; when the daemon holds it, it waits for the
// person's answer and prints req's decision for it on Stdout. It prints nothing, and
// returns nil, when the daemon did not hold or the prompt stopped waiting without an answer;
// an error, having printed nothing, when the answer is for another request or decides
// nothing: the harness's dialog is then the keyboard's.
func (e *Emitter) holdAndPrint(ctx context.Context, harness string, at, startedAt time.Time, body []byte, req heldRequest) error {
	w, h, err := e.postAndAwait(ctx, harness, at, startedAt, body)
	if err != nil || w == nil {
		return err
	}
	if err := req.owns(w.Subject); err != nil {
		return fmt.Errorf("prompt %s was answered, but %w; nothing decided, the dialog is left to the keyboard", h.PromptID, err)
	}
	if w.Answer == nil {
		return fmt.Errorf("prompt %s was answered with nothing; nothing decided, the dialog is left to the keyboard", h.PromptID)
	}
	out, err := req.decision(w.Answer)
	if err != nil {
		return fmt.Errorf("prompt %s was answered, but: %w (nothing decided; the dialog is left to the keyboard)", h.PromptID, err)
	}
	return e.print(h.PromptID, out)
}

// postAndAwait posts body, a payload of harness that can hold, saying so, within
// HoldAckTimeout (a holdable request must not be spooled on a busy machine: it would never
// be held); when the daemon answers that it holds, it waits for the person's answer to the
// prompt it names (awaitAnswer). It returns that answer and the hold, or a nil answer when
// the daemon did not hold or the prompt stopped waiting without one.
func (e *Emitter) postAndAwait(ctx context.Context, harness string, at, startedAt time.Time, body []byte) (*wire.PromptWait, wire.Hold, error) {
	ackCtx, cancelAck := context.WithTimeout(ctx, max(e.Timeout, HoldAckTimeout))
	defer cancelAck()
	var ack wire.HookAck
	if err := e.emitHook(ackCtx, harness, at, body, &ack); err != nil || ack.Hold == nil {
		return nil, wire.Hold{}, err
	}
	cancelAck()
	if e.Holding != nil {
		e.Holding(ack.Hold.PromptID)
	}
	w, err := e.awaitAnswer(ctx, *ack.Hold, startedAt)
	return w, *ack.Hold, err
}

// print writes a held prompt's decision on Stdout.
func (e *Emitter) print(promptID string, out []byte) error {
	if e.Stdout == nil {
		return fmt.Errorf("prompt %s was answered, but the hook has no stdout", promptID)
	}
	if _, err := e.Stdout.Write(out); err != nil {
		return fmt.Errorf("prompt %s was answered, but the decision could not be printed: %w", promptID, err)
	}
	return nil
}

// awaitAnswer long-polls the daemon until the prompt h names is answered, and returns that
// wait. It returns nil and no error when the prompt stops waiting without an answer
// (expired, withdrawn because the keyboard answered first, failed), when its time
// (h.ExpiresAt, and the hook's timeout counted from startedAt) runs out, or when ctx ends;
// an error when the daemon cannot be asked.
func (e *Emitter) awaitAnswer(ctx context.Context, h wire.Hold, startedAt time.Time) (*wire.PromptWait, error) {
	deadline := startedAt.Add(hooks.PermissionHookTimeout - holdMargin)
	if !h.ExpiresAt.IsZero() && h.ExpiresAt.Before(deadline) {
		deadline = h.ExpiresAt
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	c, err := hot.New(e.Addr, e.StateDir, e.Timeout)
	if err != nil {
		return nil, fmt.Errorf("hold for prompt %s: %w", h.PromptID, withCause("wait at daemon", err))
	}
	for {
		poll := min(HoldPoll, time.Until(deadline)).Round(time.Millisecond)
		if poll <= 0 {
			return nil, nil
		}
		asked := time.Now()
		w, err := c.WithTimeout(poll+pollGrace).WaitPrompt(ctx, h.PromptID, poll)
		if ctx.Err() != nil {
			return nil, nil // its time ran out, or the harness stopped the hook
		}
		if err != nil {
			return nil, fmt.Errorf("hold for prompt %s: %w (the dialog is left to the keyboard)", h.PromptID, withCause("wait at daemon", err))
		}
		switch w.Status {
		case wire.PromptPending:
			if time.Since(asked) < holdRetry {
				select {
				case <-ctx.Done():
					return nil, nil
				case <-time.After(holdRetry):
				}
			}
		case wire.PromptAnswered:
			return &w, nil
		default:
			// expired, withdrawn (the terminal answered first, or the session moved on),
			// failed, or a status this hook does not know: the keyboard decides.
			return nil, nil
		}
	}
}
