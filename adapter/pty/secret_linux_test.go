package pty

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Real children on a real PTY, their terminal's settings read as the watchdog reads them:
// bash's `read -s` and Python's getpass ask with echo off in canonical mode, so their
// prompt is Secret though "DB_PASS?" says nothing of a password; an answer that comes
// anyway is not written (ReasonSecret) and the child reads nothing; the person at the
// keyboard still answers it.
func TestEchoOffLineReadIsSecret(t *testing.T) {
	children := map[string][]string{
		"bash read -s": {"bash", "-c", `read -s -p "DB_PASS? " x; echo "got ${#x}"`},
		"python getpass": {"python3", "-c",
			`import getpass; x = getpass.getpass("DB_PASS? "); print("got", len(x))`},
	}
	for name, args := range children {
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath(args[0]); err != nil {
				t.Skipf("%s is not installed", args[0])
			}
			link := newFakeLink()
			r := startRun(t, Config{Args: args, Settle: settle, Stall: stall, Link: link})
			rep := link.reportOf(t, StatePrompt, 10*time.Second)
			if p := rep.Prompt; p.Kind != KindFreeText || p.Question != "DB_PASS?" || !p.Secret {
				t.Fatalf("reported %+v, want the free-text prompt DB_PASS? marked secret", *p)
			}
			link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "hunter2\r"})
			if w := link.writtenOne(t); w.OK || w.Reason != ReasonSecret {
				t.Fatalf("an answer to the secret prompt: written %+v, want refused as secret", w)
			}
			link.noReport(t, 2*stall) // the child still waits on the same prompt
			if strings.Contains(r.out.String(), "got") {
				t.Fatalf("the child read an answer typed from afar; screen:\n%q", r.out.String())
			}
			r.stdin.Write([]byte("hunter2\r")) // the person at the keyboard
			r.out.waitFor(t, "got 7", 5*time.Second)
			if code := r.wait(t, 5*time.Second); code != 0 {
				t.Fatalf("exit status %d", code)
			}
		})
	}
}

// A child in raw or cbreak mode turns echo off too, but draws what is typed itself (every
// full-screen TUI does): its prompt is not a secret, and an answer reaches it.
func TestRawModePromptIsNotSecret(t *testing.T) {
	children := map[string]struct {
		args   []string
		prompt *Prompt
		answer string
	}{
		"bash read -s -n1": {[]string{"bash", "-c", `read -s -n1 -p "Continue? (y/n) " a; echo; echo "got:$a"`},
			yesNo("Continue? (y/n)", "y", "n"), "y"},
		"stty raw -echo": {sh(`stty raw -echo; printf 'Enter a name: '; a=$(dd bs=1 count=1 2>/dev/null); stty sane; echo; echo "got:$a"`),
			&Prompt{Kind: KindFreeText, Question: "Enter a name:"}, "y"},
	}
	for name, c := range children {
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath(c.args[0]); err != nil {
				t.Skipf("%s is not installed", c.args[0])
			}
			link := newFakeLink()
			r := startRun(t, Config{Args: c.args, Settle: settle, Stall: stall, Link: link})
			rep := link.reportOf(t, StatePrompt, 10*time.Second)
			checkPrompt(t, rep.Prompt, c.prompt) // Secret false, as c.prompt says
			link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: c.answer})
			if w := link.writtenOne(t); !w.OK {
				t.Fatalf("written %+v, want the answer written", w)
			}
			r.out.waitFor(t, "got:y", 5*time.Second)
			r.wait(t, 5*time.Second)
		})
	}
}
