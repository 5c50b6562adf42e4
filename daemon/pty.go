package daemon

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// The daemon's side of trailboss run (docs/delivery.md): the supervisor reports what its
// child's output shows, and holds a stream open on which answers come back.

// maxPTYChoices caps a reported menu: a choice is one key.
const maxPTYChoices = 20

// ptyEvent turns a supervisor's report into the event it says.
func ptyEvent(rep wire.PTYReport, pane, tmux string, now time.Time) (adapter.Event, error) {
	if !strings.HasPrefix(rep.SessionID, "pty-") || len(rep.SessionID) > 64 {
		return adapter.Event{}, fmt.Errorf("session_id %q is not a trailboss run session (pty-…)", adapter.CleanText(rep.SessionID, 40))
	}
	socket, err := adapter.SocketFromTmuxEnv(tmux)
	if err != nil {
		return adapter.Event{}, err
	}
	if pane != "" && !adapter.ValidPane(pane) {
		return adapter.Event{}, fmt.Errorf("pane %q is not a tmux pane id", adapter.CleanText(pane, 20))
	}
	at := rep.At
	if at.IsZero() || at.After(now.Add(2*time.Second)) {
		at = now
	}
	name := adapter.CleanText(rep.Name, 80)
	ev := adapter.Event{Harness: queue.HarnessPTY, SessionID: rep.SessionID, Pane: pane, TmuxSocket: socket,
		Cwd: adapter.CleanText(rep.Cwd, adapter.MaxPathLen), At: at}
	switch rep.State {
	case wire.PTYStart:
		ev.Kind = adapter.KindStart
	case wire.PTYWorking:
		ev.Kind = adapter.KindUnstuck
	case wire.PTYExit:
		ev.Kind, ev.Detail = adapter.KindEnd, fmt.Sprintf("exit %d", rep.ExitCode)
	case wire.PTYPrompt:
		ask, err := ptyAsk(rep.Prompt)
		if err != nil {
			return adapter.Event{}, err
		}
		what := ask.Question
		if what == "" {
			what = adapter.CleanText(rep.Prompt.Excerpt, 300)
		}
		summary := what
		if name != "" {
			summary = name + ": " + what
		}
		reason, detail := adapter.ReasonPermission, ask.Kind
		if ask.Kind == adapter.AskFreeText {
			reason, detail = adapter.ReasonStopped, "input"
		}
		if rep.Prompt.LowConfidence {
			detail = "unsure"
		}
		ev.Stuck(reason, detail, summary)
		ev.Ask = ask
	default:
		return adapter.Event{}, fmt.Errorf("state %q is not start, prompt, working or exit", adapter.CleanText(rep.State, 20))
	}
	return adapter.Finish(ev, true, rep.State, nil)
}

func ptyAsk(p *wire.PTYPromptReport) (*adapter.Ask, error) {
	if p == nil {
		return nil, fmt.Errorf("state prompt needs a prompt")
	}
	ask := &adapter.Ask{Kind: p.Kind, Question: adapter.CleanText(p.Question, 300), From: adapter.AskFromPTY}
	switch p.Kind {
	case adapter.AskYesNo, adapter.AskMenu, adapter.AskPressEnter:
		if len(p.Choices) == 0 || len(p.Choices) > maxPTYChoices {
			return nil, fmt.Errorf("a %s prompt needs 1 to %d choices", p.Kind, maxPTYChoices)
		}
	case adapter.AskFreeText:
		if len(p.Choices) > 0 {
			return nil, fmt.Errorf("a free_text prompt has no choices")
		}
		// The supervisor says so; the question is read here too, so that a supervisor that
		// does not say (an older trailboss run) still has its password prompts kept secret.
		ask.Secret = p.Secret || termprompt.Classify(ask.Question).Secret
	default:
		return nil, fmt.Errorf("prompt kind %q is not yes_no, choice, press_enter or free_text", adapter.CleanText(p.Kind, 20))
	}
	for _, c := range p.Choices {
		key := strings.TrimSpace(c.Key)
		if key == "" || len(key) > 16 || strings.ContainsFunc(key, func(r rune) bool { return r < ' ' && r != '\r' }) {
			return nil, fmt.Errorf("choice key %q is not a short printable key", adapter.CleanText(c.Key, 20))
		}
		ask.Choices = append(ask.Choices, adapter.AskChoice{Key: key, Label: adapter.CleanText(c.Label, 200)})
	}
	return ask, nil
}

// PTYReport applies a supervisor's report, and returns the id of the prompt record it
// opened when it reports a prompt. It returns a *RefusedError for a report the daemon will
// never take; any other error is the store's.
func (c *Core) PTYReport(ctx context.Context, rep wire.PTYReport, pane, tmux string) (wire.PTYReportAck, error) {
	ev, err := ptyEvent(rep, pane, tmux, time.Now())
	if err != nil {
		return wire.PTYReportAck{}, refusal("%s", err)
	}
	if !c.Ingest.socketOK(ev.TmuxSocket) {
		return wire.PTYReportAck{}, refusal("tmux socket %s does not exist or is not a socket", adapter.CleanText(ev.TmuxSocket, 200))
	}
	if _, err := c.Engine.Ingest(ctx, ev); err != nil {
		return wire.PTYReportAck{}, err
	}
	c.Ingest.events.Add(1)
	out := wire.PTYReportAck{OK: true}
	if rep.State == wire.PTYPrompt {
		// Its record, even when an answer claimed it already: the queue shows a record as
		// soon as it is made, so a quick answer can come before this reply (the answer
		// then waits on the stream for the supervisor to know the id).
		if p, ok := c.Engine.CurrentPrompt(rep.SessionID); ok {
			out.PromptID = p.ID
		}
	}
	return out, nil
}

// AttachPTY opens session's answer stream. Once detached, the session is retired unless its
// supervisor attaches again soon (retireUnlessBack).
func (c *Core) AttachPTY(session string) (<-chan wire.PTYAnswer, func()) {
	answers, detach := c.PTY.Attach(session)
	return answers, func() {
		c.retireUnlessBack(session)
		detach()
	}
}

// PTYWritten reports what became of an answer; it returns whether one was expected.
func (c *Core) PTYWritten(wr wire.PTYWritten) bool { return c.PTY.Written(wr) }

// ptyGone is how long a supervisor whose stream closed has to come back before its session
// is taken for dead (killed without a word): a daemon restart or a network hiccup costs a
// reconnect well within it.
const ptyGone = 10 * time.Second

// retireUnlessBack ends session's record unless its supervisor holds a stream again within
// ptyGone; not when the daemon itself is stopping.
func (c *Core) retireUnlessBack(session string) {
	select {
	case <-c.Done:
		return
	default:
	}
	time.AfterFunc(ptyGone, func() {
		if c.PTY.Attached(session) {
			return
		}
		if s, ok := c.Engine.Session(session); !ok || s.Harness != queue.HarnessPTY {
			return
		}
		if err := c.Engine.Retire(context.Background(), []string{session}, time.Now()); err != nil {
			c.Log.Warn("retire a trailboss run session whose supervisor is gone", "session", session, "err", err)
		} else {
			c.Log.Info("trailboss run session ended: its supervisor went away without a word", "session", session)
		}
	})
}
