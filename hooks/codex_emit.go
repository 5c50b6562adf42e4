package hooks

import (
	"context"
	"fmt"

	"github.com/trailboss/trailboss/adapter/codex"
)

// CodexPath is the daemon's route for Codex CLI payloads.
const CodexPath = "/v1/hooks/codex"

// EmitCodex posts one Codex CLI payload with the tmux location of the program Codex ran, and
// spools it unless the daemon acknowledges it in time, as Emit does. Codex's notify program
// gets its payload as its last argument: pass it as arg. Codex's hooks get theirs on stdin:
// pass a nil arg and it is read from Stdin.
func (e *Emitter) EmitCodex(ctx context.Context, arg []byte) error {
	emittedAt := e.Now()
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	body := arg
	if body == nil {
		var err error
		if body, err = readWithin(ctx, e.Stdin, maxPayload); err != nil {
			return fmt.Errorf("read codex payload: %w", err)
		}
	}
	return e.emitHook(ctx, CodexPath, codex.Harness, emittedAt, body)
}
