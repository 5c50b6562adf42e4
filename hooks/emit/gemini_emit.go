package emit

import (
	"bytes"
	"context"
	"fmt"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/gemini"
)

// EmitGemini posts one Gemini CLI hook payload, read from Stdin, with the tmux place of the
// hook, and spools it unless the daemon acknowledges it in time, as Emit does. It never
// holds and never prints: no hook can approve in Gemini (an answer is keys), and Gemini
// reads a hook's stdout as its JSON answer. Gemini waits for every hook, so it returns
// within Timeout.
//
// Gemini passes its API key (GEMINI_API_KEY) in every hook's environment: only TMUX and
// TMUX_PANE are read, and nothing of the environment is sent, spooled or logged.
func (e *Emitter) EmitGemini(ctx context.Context) error {
	emittedAt := e.Now()
	body, err := readPayload(ctx, e.Stdin)
	if err != nil {
		return fmt.Errorf("read gemini payload: %w", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil // no event (see Emit)
	}
	if len(body) > slimAbove {
		// An AfterTool's tool_response or a BeforeModel's whole request is not read there.
		body = adapter.Slim(body, gemini.SpoolFields)
	}
	return e.send(ctx, gemini.Harness, emittedAt, emittedAt, body, nil)
}
