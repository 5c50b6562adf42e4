package main

import (
	"context"

	"github.com/trailboss/trailboss/daemon/client"
)

func runJumpNext(ctx context.Context, e *env, args []string) error {
	return navigate(ctx, e, "jump-next", args, (*client.Client).Next, "trailboss: nothing stuck")
}
