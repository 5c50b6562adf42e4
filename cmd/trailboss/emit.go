package main

import (
	"context"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/hooks"
)

// runEmit is what every Claude Code hook runs. It must never slow or break Claude Code: it
// prints nothing, always exits 0, and gives up within hooks.EmitTimeout. Failures go to
// emit.log in the state directory. It takes no flags, so nothing is parsed on the hot path.
func runEmit(ctx context.Context, e *env, args []string) error {
	dir, err := statedir.Default()
	if err != nil {
		return nil // nowhere to even log to
	}
	addr := firstNonEmpty(e.getenv("TRAILBOSS_ADDR"), statedir.LastAddr(dir), defaultAddr)
	em := &hooks.Emitter{Addr: addr, StateDir: dir, Getenv: e.getenv, Stdin: e.stdin,
		Timeout: hooks.EmitTimeout, Now: time.Now}
	if err := em.Emit(ctx); err != nil {
		hooks.LogFailure(dir, time.Now(), err)
	}
	return nil
}
