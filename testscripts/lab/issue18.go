package lab

// Prompt Lab scenarios of issue 18 (an answer reaches exactly the prompt the person saw, or
// nothing is typed), beside AtlasBridge's: they run under `trailboss run` like the others.

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// Prompts of the issue-18 children.
const (
	promptSudo  = "[sudo] password for deploy: "
	labPassword = "hunter2-lab-password"
)

// lateRounds are the delays after a person's keypress at which a late answer to the same
// question arrives in I18-03.
var lateRounds = []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond, 40 * time.Millisecond}

func lateQuestions(i int) (first, next string) {
	return fmt.Sprintf("Delete branch feature-%d? [y/N] ", i), fmt.Sprintf("Delete branch main-%d on origin? [y/N] ", i)
}

func init() {
	children["sudo-password"] = childProgram{steps: append([]childStep{{say: "$ sudo systemctl restart app\n"}}, ask(promptSudo)...)}
	var late []childStep
	for i := range lateRounds {
		first, next := lateQuestions(i + 1)
		late = append(append(late, ask(first)...), ask(next)...)
	}
	children["late-answers"] = childProgram{steps: late}
	scenarios = append(scenarios,
		&Scenario{id: "I18-03", name: "late-answer-next-question", child: "late-answers", run: i18LateAnswer,
			about: "a y for one yes/no question arriving 10, 20, 30 and 40 ms after the person answered it at the keyboard is refused each time; the next question, asked at once, reads only the person's keys"},
		&Scenario{id: "I18-05", name: "sudo-password-prompt", child: "sudo-password", run: i18SudoPassword,
			about: "a [sudo] password prompt is a secret record: a password from the popup, the CLI or the API is refused 409 secret, nothing is typed or kept; the keyboard answers it"},
		&Scenario{id: "I18-08", name: "multi-line-reply", child: "free-text", run: i18MultiLine,
			about: "a reply of two lines under trailboss run is refused 400 saying to send one line, nothing is typed; one line then reaches the child"},
	)
}

func i18SudoPassword(r *rig) error {
	// The lab's children read with echo on: this one is secret by its words alone.
	return keyboardOnly(r, promptSudo, labPassword+"\r")
}

// keyboardOnly checks that the prompt asked, a secret, takes no answer from afar and is
// answered at the keyboard, where the child reads read for the person's password.
func keyboardOnly(r *rig, asked, read string) error {
	p, err := r.waitPrompt("the secret prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	r.checkPrompt(p, wire.KindFreeText, strings.TrimSpace(asked))
	r.recorded("prompt", p, "the secret prompt", asked)
	r.note("secret", p.Secret, "the record is secret: %v", p.Secret)
	r.check(p.Secret, "the record of %q is not marked secret", asked)
	for _, channel := range []string{"popup", "cli", "api"} {
		msg, reason, err := r.refused(p.ID, wire.Answer{Text: labPassword, Channel: channel}, http.StatusConflict)
		if err != nil {
			return fmt.Errorf("a password from %s: %w", channel, err)
		}
		r.note("refused_"+channel, msg, "a password from %s: 409 %s %q", channel, reason, msg)
		r.check(reason == wire.RefusedSecret && strings.Contains(msg, "asks for a password or secret") && strings.Contains(msg, "type it at the keyboard"),
			"a password from %s was refused %s %q, want secret, saying to type it at the keyboard", channel, reason, msg)
	}
	it, err := r.item()
	if err != nil {
		return err
	}
	r.check(it != nil && it.Prompt != nil && it.Prompt.ID == p.ID, "after the refusals the queue shows %+v, want prompt %s still pending", it, p.ID)
	got, _ := r.readSoFar()
	r.check(got == "", "the child read %q after the refused passwords, want nothing", got)

	// The person types it at the keyboard: the supervisor passes it on as it always does.
	if _, err := io.WriteString(r.supIn, labPassword+"\r"); err != nil {
		return fmt.Errorf("type at the supervisor's keyboard: %w", err)
	}
	if _, err := r.expectRead(read); err != nil {
		return err
	}
	if err := r.finish(1); err != nil {
		return err
	}
	delivered, refused := r.auditCounts("audit", p.ID)
	r.check(refused == 3 && delivered == 0, "the audit log has %d refused and %d delivered answers, want the 3 refusals only", refused, delivered)
	kept := r.filesHolding(labPassword)
	r.note("password_kept_in", kept, "files of the daemon and the supervisor holding the password: %d", len(kept))
	r.check(len(kept) == 0, "the password is kept in %s", strings.Join(kept, ", "))
	return nil
}

// filesHolding returns the files of the daemon and the supervisor (the state folder and
// their logs, not the child's own record and screen) that contain s.
func (r *rig) filesHolding(s string) []string {
	var found []string
	_ = filepath.WalkDir(r.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == r.record || filepath.Base(path) == "screen.out" {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(s)) {
			found = append(found, strings.TrimPrefix(path, r.dir+"/"))
		}
		return nil
	})
	return found
}

func i18MultiLine(r *rig) error {
	p, err := r.waitPrompt("the free-text prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	r.checkPrompt(p, wire.KindFreeText, "Enter a commit message")
	r.recorded("prompt", p, "the prompt", promptCommit)
	msg, _, err := r.refused(p.ID, wire.Answer{Text: "fix the flaky test\nrm -rf build"}, http.StatusBadRequest)
	if err != nil {
		return fmt.Errorf("a reply of two lines: %w", err)
	}
	r.note("two_lines", msg, "a reply of two lines: 400 %q", msg)
	r.check(strings.Contains(msg, "send one line"), "the refusal says %q, want it to say to send one line", msg)
	delivered, refused, err := r.refusedThenTyped(p)
	if err != nil {
		return err
	}
	r.check(refused == 1 && delivered == 1, "the audit log has %d refused and %d delivered answers, want 1 and 1", refused, delivered)
	return nil
}

func i18LateAnswer(r *rig) error {
	var want string
	var seen []*wire.Prompt
	for i, delay := range lateRounds {
		first, next := lateQuestions(i + 1)
		p, err := r.waitPrompt(fmt.Sprintf("round %d's first question", i+1), waitLong, func(p *wire.Prompt) bool {
			return newPrompt(seen...)(p) && strings.HasPrefix(p.Question, strings.TrimSuffix(first, " [y/N] "))
		})
		if err != nil {
			return err
		}
		seen = append(seen, p)
		yes, _ := r.checkYesNo(p, strings.TrimSpace(first))
		// The person answers at the keyboard; the child asks the next question at once.
		if _, err := io.WriteString(r.supIn, "y\r"); err != nil {
			return fmt.Errorf("type at the supervisor's keyboard: %w", err)
		}
		want += "y\r"
		if _, err := r.expectRead("y\r"); err != nil {
			return err
		}
		time.Sleep(delay)
		_, reason, err := r.refused(p.ID, wire.Answer{Choice: yes}, http.StatusConflict)
		if err != nil {
			return fmt.Errorf("a y %v after the keyboard's: %w", delay, err)
		}
		r.note(fmt.Sprintf("late_%dms", delay.Milliseconds()), reason, "a y %v after the keyboard's: 409 (%s)", delay, reason)
		q, err := r.waitPrompt(fmt.Sprintf("round %d's next question", i+1), waitLong, func(p *wire.Prompt) bool {
			return newPrompt(seen...)(p) && strings.HasPrefix(p.Question, strings.TrimSuffix(next, " [y/N] "))
		})
		if err != nil {
			return err
		}
		seen = append(seen, q)
		got, _ := r.readSoFar()
		r.check(got == want, "after a late y (%v) the child read %q, want %q: the answer reached the next question", delay, got, want)
		if _, err := io.WriteString(r.supIn, "n\r"); err != nil {
			return fmt.Errorf("type at the supervisor's keyboard: %w", err)
		}
		want += "n\r"
		if _, err := r.expectRead("n\r"); err != nil {
			return err
		}
	}
	if err := r.finish(2 * len(lateRounds)); err != nil {
		return err
	}
	for _, p := range seen {
		delivered, _ := r.auditCounts("audit_"+p.ID, p.ID)
		r.check(delivered == 0, "prompt %s %q has %d answers delivered by Trail Boss, want none", p.ID, p.Question, delivered)
	}
	return nil
}
