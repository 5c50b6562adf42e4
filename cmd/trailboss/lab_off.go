//go:build !lab

package main

import (
	"context"
	"errors"
)

// errLabNotBuiltIn is what `trailboss lab` says in the binary a user installs: the Prompt
// Lab brings a fake Telegram Bot API and its scenarios, test scaffolding kept out of that
// binary (lab.go is built only with the lab tag).
var errLabNotBuiltIn = errors.New("the Prompt Lab is not built into this binary (it brings a fake Telegram " +
	"Bot API, which the installed binary leaves out). In Trail Boss's source folder, run " +
	"`make lab`, then `bin/trailboss-lab lab run --all`")

func runLab(context.Context, *env, []string) error { return errLabNotBuiltIn }
