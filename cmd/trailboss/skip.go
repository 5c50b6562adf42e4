package main

import (
	"context"

	"github.com/trailboss/trailboss/daemon/client"
)

func runSkip(ctx context.Context, e *env, args []string) error {
	return navigate(ctx, e, "skip", args, (*client.Client).Skip, "trailboss: nothing else is stuck")
}
