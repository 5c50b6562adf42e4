package pty

import (
	"testing"
	"time"
)

// A prompt read while the child's terminal reads a line without showing it (canonical
// mode, echo off: `read -s`, getpass, sudo) is Secret whatever its words; the same
// prompt read in raw or cbreak mode (echo off too, but the program draws what is typed:
// a full-screen TUI, `read -s -n1`) or in the usual mode is not. So is the made-up prompt
// of a child that waits with nothing on screen (QA-004).
func TestPromptAskedWithEchoOffIsSecret(t *testing.T) {
	ms := time.Millisecond
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name string
		mode echoMode
		want bool
	}{
		{"canonical, echo off (read -s, getpass)", echoMode{canonical: true, icrnl: true, onlcr: true}, true},
		{"canonical, echo off, nothing else set", echoMode{canonical: true}, true},
		{"raw, echo off (tty.setraw, a TUI)", echoMode{}, false},
		{"cbreak, echo off (read -s -n1)", echoMode{icrnl: true, onlcr: true}, false},
		{"keys one by one, echo on", keysEcho, false},
		{"cooked", cooked, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.mode.hidesLine(); got != tc.want {
				t.Fatalf("hidesLine of %+v: %v, want %v", tc.mode, got, tc.want)
			}
			for _, screen := range []string{"DB_PASS? ", "Continue? (y/n) ", ""} {
				w := newWatcher(300*ms, 600*ms, 500*ms, t0)
				tail := []byte(screen)
				w.output(t0, false)
				now := t0.Add(700 * ms)
				changes, _ := w.step(now, func() []byte { return tail }, true, tc.mode.hidesLine())
				if screen == "" { // QA-004: seen waiting once, then confirmed
					changes, _ = w.step(now.Add(w.confirm()), func() []byte { return tail }, true, tc.mode.hidesLine())
				}
				if len(changes) != 1 || changes[0].state != StatePrompt {
					t.Fatalf("%q: changes %+v, want one prompt", screen, changes)
				}
				if p := changes[0].prompt; p.Secret != tc.want {
					t.Errorf("%q: prompt %+v secret %v, want %v", screen, *p, p.Secret, tc.want)
				}
				// The same screen looked at again is a redraw, not a new prompt: the
				// flag is part of what was asked.
				if c, _ := w.step(now.Add(time.Second), func() []byte { return tail }, true, tc.mode.hidesLine()); c != nil {
					t.Errorf("%q: looked at again, reported %+v", screen, c)
				}
			}
		})
	}
}
