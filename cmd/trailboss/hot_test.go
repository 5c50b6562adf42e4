package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/trailboss/trailboss/cmd/internal/hotcmd"
)

// TestHotVerbsSameAsTrailboss: trailboss-hot (hotcmd.Run, hotcmd.ExitCode) and `trailboss
// VERB` print the same help and the same errors, with the same exit codes.
func TestHotVerbsSameAsTrailboss(t *testing.T) {
	// emit sets the process's umask (its spool is the user's alone): give the other
	// tests theirs back.
	umask := syscall.Umask(0o022)
	syscall.Umask(umask)
	t.Cleanup(func() { syscall.Umask(umask) })
	t.Setenv("TMUX", "")
	t.Setenv("TRAILBOSS_STATE_DIR", t.TempDir())
	for _, args := range [][]string{
		{"emit", "--help"},
		{"emit", "--generic", "--help"},
		{"emit", "--generic", "--state", "stuck"}, // no session outside tmux: exit 2
		{"status", "--help"},
		{"status", "extra"},
		{"jump-next", "--help"},
		{"jump-next", "--bogus"},
		{"jump-next"}, // not inside tmux: exit 2
		{"skip", "--help"},
		{"skip", "--pane", "%1", "--client", ""},
	} {
		var tbOut, tbErr, hotOut, hotErr bytes.Buffer
		tbCode := exitCode(run(context.Background(), args, strings.NewReader(""), &tbOut, &tbErr), &tbErr)
		e := &hotcmd.Env{Stdin: strings.NewReader(""), Stdout: &hotOut, Stderr: &hotErr, Getenv: os.Getenv}
		hotCode := hotcmd.ExitCode(hotcmd.Run(context.Background(), e, args), &hotErr)
		if tbCode != hotCode || tbOut.String() != hotOut.String() || tbErr.String() != hotErr.String() {
			t.Errorf("%q: trailboss exit %d, out %q, err %q; trailboss-hot exit %d, out %q, err %q",
				args, tbCode, tbOut.String(), tbErr.String(), hotCode, hotOut.String(), hotErr.String())
		}
		if tbOut.Len()+tbErr.Len() == 0 {
			t.Errorf("%q: said nothing", args)
		}
	}
}

// TestHotRunsOnlyHotVerbs: trailboss-hot refuses every other command (exit 2), saying to
// run it with trailboss.
func TestHotRunsOnlyHotVerbs(t *testing.T) {
	var out, errOut bytes.Buffer
	e := &hotcmd.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	if code := hotcmd.ExitCode(hotcmd.Run(context.Background(), e, []string{"popup"}), &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "trailboss-hot runs only emit, status, jump-next and skip; run trailboss popup") {
		t.Errorf("popup: exit %d, %q", code, errOut.String())
	}
}
