package main

import "context"

func runUnwatch(ctx context.Context, e *env, args []string) error {
	return watchCommand(ctx, e, "unwatch", args, true)
}
