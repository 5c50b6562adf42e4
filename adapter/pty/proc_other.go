//go:build !linux

package pty

// groupCPU cannot tell without /proc: a quiet child is taken to be waiting.
func groupCPU(pgrp int) (ticks uint64, running, ok bool) { return 0, false, false }
