package main

import (
	"context"
	"errors"
)

func runSetup(ctx context.Context, e *env, args []string) error { return errors.New("not yet") }

func runTmuxConf(ctx context.Context, e *env, args []string) error { return errors.New("not yet") }
