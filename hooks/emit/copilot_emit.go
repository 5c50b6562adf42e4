package emit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/copilot"
	"github.com/trailboss/trailboss/daemon/wire"
)

// CopilotReadWait bounds how long a Copilot hook waits for events.jsonl to hold its own
// hook's line before it reads the turn's words or a question's options there
// (copilot.Enrich). Copilot writes it a moment after the hook starts; an agentStop hook
// delays nothing the person sees (the turn's words are drawn already).
const CopilotReadWait = time.Second

// EmitCopilot posts one GitHub Copilot CLI hook of event (the hook file names it: its
// payloads do not), read from Stdin, with the tmux place of the hook, and spools it unless
// the daemon acknowledges it in time, as Emit does.
//
// With Hold, a permissionRequest says it can hold. When the daemon answers that it
// should, EmitCopilot waits for the operator's answer and prints Copilot's decision
// ({"behavior": "allow"|"deny"}); while it holds Copilot shows no dialog. It prints nothing
// when the prompt stops waiting without an answer or the daemon goes away: Copilot then
// shows its dialog, for the keyboard.
func (e *Emitter) EmitCopilot(ctx context.Context, event string) error {
	started := e.Now()
	raw, err := readPayload(ctx, e.Stdin)
	if err != nil {
		return fmt.Errorf("read copilot payload: %w", err)
	}
	if event == "" {
		return fmt.Errorf("%w: copilot envelope: missing event", adapter.ErrInvalid) // as the daemon would say
	}
	// Decoded once, here: the envelope carries raw as Copilot wrote it.
	p, err := copilot.DecodePayload(raw)
	if err != nil {
		return err // not a payload the daemon would take: logged, never spooled
	}
	env := copilot.Envelope{Event: event, Payload: raw, Home: copilot.Home(e.Getenv)}
	readCtx, cancelRead := context.WithTimeout(ctx, CopilotReadWait)
	env = copilot.Enrich(readCtx, env, p)
	cancelRead()
	at := p.Time(started)
	env.CanHold = e.Hold && copilot.Holdable(event)
	body, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("copilot payload: %w", err)
	}
	var req heldRequest
	if env.CanHold {
		req = copilotRequest{p}
	}
	return e.send(ctx, copilot.Harness, at, started, body, req)
}

// copilotRequest is a Copilot permissionRequest, decoded once, as the hold handshake asks
// it (heldRequest).
type copilotRequest struct {
	copilot.Payload
}

// owns returns nil when subject fingerprints this very tool call (copilot.Subject).
func (r copilotRequest) owns(subject string) error {
	if subject != copilot.Subject(r.ToolName, r.ToolInput) {
		return errors.New("it asks about another tool call than this hook's")
	}
	return nil
}

// decision is Copilot's decision for a, one JSON line.
func (r copilotRequest) decision(a *wire.GivenAnswer) ([]byte, error) {
	d, err := copilot.DecisionFor(a.Choice)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
