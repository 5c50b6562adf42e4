package emit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/adapter/copilot"
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
	env := copilot.Envelope{Event: event, Payload: raw, Home: copilot.Home(e.Getenv)}
	probe, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("copilot payload: %w", err)
	}
	_, p, err := copilot.DecodeEnvelope(probe)
	if err != nil {
		return err // not a payload the daemon would take: logged, never spooled
	}
	readCtx, cancelRead := context.WithTimeout(ctx, CopilotReadWait)
	env = copilot.Enrich(readCtx, env, p)
	cancelRead()
	at := copilot.PayloadTime(raw, started)
	env.CanHold = e.Hold && copilot.Holdable(event)
	body, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("copilot payload: %w", err)
	}
	if !env.CanHold {
		postCtx, cancel := context.WithTimeout(ctx, e.Timeout)
		defer cancel()
		return e.emitHook(postCtx, copilot.Harness, at, body, nil)
	}
	w, hold, err := e.postAndAwait(ctx, copilot.Harness, at, started, body)
	if err != nil || w == nil {
		return err
	}
	var in struct {
		ToolName  string          `json:"toolName"`
		ToolInput json.RawMessage `json:"toolInput"`
	}
	_ = json.Unmarshal(raw, &in) // decoded by the daemon already
	if want := copilot.Subject(in.ToolName, in.ToolInput); w.Subject != want {
		return fmt.Errorf("prompt %s was answered, but it asks about another tool call than this hook's; nothing decided, the dialog is left to the keyboard", hold.PromptID)
	}
	if w.Answer == nil {
		return fmt.Errorf("prompt %s was answered with nothing; nothing decided, the dialog is left to the keyboard", hold.PromptID)
	}
	d, err := copilot.DecisionFor(w.Answer.Choice)
	if err != nil {
		return fmt.Errorf("prompt %s was answered, but: %w (nothing decided; the dialog is left to the keyboard)", hold.PromptID, err)
	}
	out, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return e.print(hold.PromptID, append(out, '\n'))
}
