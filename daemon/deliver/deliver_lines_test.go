package deliver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// Issue 18, item 8: several lines only where they stay one answer.

// A reply of several lines to a program that would read each line as an answer (any
// program in a pane but Claude Code and Codex, and everything under trailboss run) is
// refused up front with words saying to send one line, and nothing is typed.
func TestAMultiLineReplyToAPlainProgramIsRefused(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	d := deliverer(e, env)
	pane, out := env.NewReaderPane(t, "main", "", "Enter a commit message: ")
	p := stuckAs(t, e, env, "screen", "s1", pane, screenAsk(t, env, pane))

	_, err := d.Answer(context.Background(), p.ID, wire.Answer{Text: "fix the test\nrm -rf build"})
	var badAnswer *wire.BadAnswerError
	if !errors.As(err, &badAnswer) || !strings.Contains(badAnswer.Message, "send one line (nothing was typed)") {
		t.Fatalf("a reply of two lines to a plain program: %v, want refused, saying to send one line", err)
	}
	if _, ok := e.PendingPrompt("s1"); !ok {
		t.Fatalf("after the refusal the prompt is not pending")
	}
	readFirst(t, env, pane, out)

	for harness, takes := range map[string]bool{"claude": true, "codex": true, "screen": false, "aider": false, queue.HarnessPTY: false} {
		rec := queue.Prompt{Harness: harness, Ask: adapter.Ask{Kind: adapter.AskFreeText}}
		err := d.Fits(rec, wire.Answer{Text: "one\ntwo"})
		if (err == nil) != takes {
			t.Errorf("two lines for harness %s: %v, want taken %v", harness, err, takes)
		}
		if harness == queue.HarnessPTY && (err == nil || !strings.Contains(err.Error(), "a program under trailboss run")) {
			t.Errorf("the refusal under trailboss run says %v", err)
		}
	}
}
