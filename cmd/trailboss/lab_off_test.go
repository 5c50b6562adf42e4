//go:build !lab

package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestLabNotBuiltInSaysHowToRunIt: in the binary a user installs (no lab tag), every form
// of `trailboss lab` fails with exit 1 and says, in plain words, how to get the lab, and
// runs no scenario.
func TestLabNotBuiltInSaysHowToRunIt(t *testing.T) {
	for _, args := range [][]string{{"lab"}, {"lab", "list"}, {"lab", "run", "--all"}, {"lab", "child", "x", "--record", "f"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		if !errors.Is(err, errLabNotBuiltIn) {
			t.Fatalf("%q: got %v, want the lab's not-built-in error", args, err)
		}
		if code := exitCode(err, &stderr); code != 1 {
			t.Errorf("%q: exit %d, want 1", args, code)
		}
		for _, want := range []string{"not built into this binary", "make lab", "bin/trailboss-lab lab run --all"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%q: stderr does not say %q:\n%s", args, want, stderr.String())
			}
		}
		if stdout.Len() != 0 {
			t.Errorf("%q: printed on stdout, as if the lab ran:\n%s", args, stdout.String())
		}
	}
}
