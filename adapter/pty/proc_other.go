//go:build !linux

package pty

import (
	"errors"
	"os"
)

// groupLook is what lookGroup finds: nothing, without /proc.
type groupLook struct {
	ticks              uint64
	running            bool
	reading, readKnown bool
}

// lookGroup cannot tell without /proc: a quiet child is taken to be waiting.
func lookGroup(pgrp int, tty uint64) (groupLook, bool) { return groupLook{}, false }

// childEcho takes the child's terminal to be in its usual mode.
func childEcho(f *os.File) echoMode { return cooked }

// exited cannot tell without /proc: the wait for the child says.
func exited(pid int) bool { return false }

// ptyDevice is not needed where lookGroup cannot look.
func ptyDevice(f *os.File) (uint64, error) { return 0, errors.New("no /proc to look in") }
