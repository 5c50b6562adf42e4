package daemon

import (
	"context"
	"time"

	"github.com/trailboss/trailboss/adapter"
	ptyadapter "github.com/trailboss/trailboss/adapter/pty"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// The daemon's side of trailboss run (docs/delivery.md): the supervisor reports what its
// child's output shows, and holds a stream open on which answers come back.

// PTYReport applies a supervisor's report through the Ingestor, as a hook's payload, with
// the "pty" harness's adapter (adapter/pty's Events), and returns the id of the prompt record it
// opened when it reports a prompt. It returns a *fault.RefusedError for a report the daemon will
// never take; any other error is the store's.
func (c *Core) PTYReport(ctx context.Context, rep wire.PTYReport, pane, tmux string) (wire.PTYReportAck, error) {
	parse := func(_ []byte, meta adapter.Meta) ([]adapter.Event, error) { return ptyadapter.Events(rep, meta) }
	if _, err := c.Ingest.apply(ctx, queue.HarnessPTY, parsedBy(parse), nil, pane, tmux, rep.At, Origin{}); err != nil {
		return wire.PTYReportAck{}, err
	}
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
