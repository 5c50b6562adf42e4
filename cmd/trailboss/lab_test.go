//go:build lab

package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLabRunRefusesBadCommandLines(t *testing.T) {
	for _, args := range [][]string{
		{"lab"},
		{"lab", "frobnicate"},
		{"lab", "run"},
		{"lab", "run", "no-such-scenario"},
		{"lab", "run", "--all", "QA-001"},
		{"lab", "run", "--parallel", "0", "--all"},
	} {
		err := run(context.Background(), args, strings.NewReader(""), io.Discard, io.Discard)
		if !errors.Is(err, errUsage) {
			t.Errorf("%q: got %v, want a usage error", args, err)
		}
	}
}
