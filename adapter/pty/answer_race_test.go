package pty

import (
	"context"
	"strings"
	"testing"
	"time"
)

// slowAck is a daemon whose reply to a prompt report comes late: the record is made, and
// shown, as soon as the report arrives, so an answer to it can reach the supervisor before
// the reply that names it.
type slowAck struct {
	*fakeLink
	late time.Duration
}

func (l slowAck) Report(ctx context.Context, r Report) (string, error) {
	id, err := l.fakeLink.Report(ctx, r)
	if r.State == StatePrompt {
		time.Sleep(l.late) // the reply's delay: what this daemon is made of
	}
	return id, err
}

// An answer that overtakes the reply to its prompt's report waits for the reply and is
// written, instead of being refused as if the prompt had changed.
func TestAnswerBeforeTheReportsReplyIsWritten(t *testing.T) {
	link := slowAck{fakeLink: newFakeLink(), late: 300 * time.Millisecond}
	r := startRun(t, Config{Args: sh(`printf 'Proceed? (y/n) '; read a; echo "got:$a"`),
		Settle: settle, Stall: 10 * time.Second, Link: link})
	link.reportOf(t, StatePrompt, 5*time.Second)
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "y\r"})
	if w := link.writtenOne(t); !w.OK {
		t.Fatalf("an answer that came before the report's reply was refused: %+v", w)
	}
	r.out.waitFor(t, "got:y", 5*time.Second)
	if code := r.wait(t, 5*time.Second); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	if n := strings.Count(r.out.String(), "got:"); n != 1 {
		t.Fatalf("the child read %d answers, want 1", n)
	}
}

// slowWritten is a daemon that takes a moment to take the supervisor's word about an
// answer, and takes nothing once the supervisor has hung up.
type slowWritten struct {
	*fakeLink
	late time.Duration
}

func (l slowWritten) Written(ctx context.Context, w Written) error {
	time.Sleep(l.late) // the daemon's delay: what this daemon is made of
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.fakeLink.Written(ctx, w)
}

// A child that ends as soon as it read its answer: the daemon is still told the answer was
// written, so the person is not told that nothing was typed.
func TestAnswerToAChildThatEndsAtOnceIsConfirmed(t *testing.T) {
	link := slowWritten{fakeLink: newFakeLink(), late: 100 * time.Millisecond}
	r := startRun(t, Config{Args: sh(`printf 'Proceed? (y/n) '; read a`),
		Settle: settle, Stall: 10 * time.Second, Link: link})
	link.reportOf(t, StatePrompt, 5*time.Second)
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "y\r"})
	if code := r.wait(t, 5*time.Second); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	select {
	case w := <-link.written:
		if !w.OK {
			t.Fatalf("the answer was reported %+v", w)
		}
	default:
		t.Fatal("the daemon was never told that the answer was written")
	}
}
