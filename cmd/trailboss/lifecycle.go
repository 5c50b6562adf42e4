package main

import (
	"context"
	"errors"
)

func runStart(ctx context.Context, e *env, args []string) error { return errors.New("not yet") }

func runStop(ctx context.Context, e *env, args []string) error { return errors.New("not yet") }

func runSystemdUnit(ctx context.Context, e *env, args []string) error { return errors.New("not yet") }
