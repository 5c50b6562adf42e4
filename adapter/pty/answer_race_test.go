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
