package main

import (
	"context"
	"fmt"
)

func runVersion(ctx context.Context, e *env, args []string) error {
	fmt.Fprintln(e.stdout, "trailboss", version)
	return nil
}
