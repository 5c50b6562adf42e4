// Package emit is what every hook runs: it posts the harness's payload to the daemon with
// the tmux place of the hook (emit.go for Claude Code and generic events, codex_emit.go for
// Codex), within a budget that can never slow the agent, and spools what the daemon did not
// take in time.
package emit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/adapter/codex"
	"github.com/trailboss/trailboss/adapter/gemini"
	"github.com/trailboss/trailboss/daemon/client/hot"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/spool"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// EmitTimeout is how long a hook process may take in all, from its start to its exit: a
// hook must never slow Claude Code, so a down or hung daemon costs at most this.
const EmitTimeout = 300 * time.Millisecond

// EmitReserve is the part of EmitTimeout that is not waiting for the daemon: starting the
// process (about 4 ms), writing the spool, exiting. The request gets the rest.
const EmitReserve = 25 * time.Millisecond

// HoldAckTimeout is how long a PermissionRequest that can hold waits for the daemon to
// take it. Claude Code draws its dialog while the hook runs, so this wait slows nobody; and
// a holdable request that missed EmitTimeout on a busy machine would be spooled, never
// held, and the phone would never see it.
const HoldAckTimeout = 2 * time.Second

// slimAbove is the size over which a payload that does not hold is slimmed to what the
// daemon reads before it is sent (adapter.Slim).
const slimAbove = 64 << 10

// maxPayload is one byte over what the daemon accepts, so that an oversized payload is
// still sent and refused by the daemon (and logged) rather than silently cut.
const maxPayload = 1<<20 + 1

// Emitter posts one hook payload to the daemon.
type Emitter struct {
	Addr     string // the daemon's TCP address, or "" for its unix socket in StateDir
	StateDir string
	// Hold: this user's config turns holding on ([delivery] hold_permissions, or a remote
	// channel). Without it a PermissionRequest never holds, whatever the daemon answers.
	Hold    bool
	Getenv  func(string) string
	Stdin   io.Reader
	Stdout  io.Writer // where a held PermissionRequest prints its decision
	Timeout time.Duration
	Now     func() time.Time
	// Holding, when set, is told the prompt a PermissionRequest holds for, as it begins to
	// (TRAILBOSS_EMIT_TRACE writes it down).
	Holding func(promptID string)
}

// Emit reads the hook payload from stdin and posts it with the hook's tmux location. What
// the daemon does not acknowledge in time (it is down, or too slow in a burst) is left in
// the spool, which the daemon drains; only a payload the daemon refuses as bad is dropped.
//
// With Hold, a PermissionRequest says it can hold. When the daemon answers that it should,
// Emit holds until the person's answer comes and prints Claude Code's decision on
// Stdout, or until the prompt stops waiting (expired, withdrawn because the terminal
// answered first, failed), the daemon goes away or the hook's time runs out: then it prints
// nothing, and Claude Code's dialog stays for the keyboard. Every other payload, and every
// PermissionRequest the daemon does not hold, returns within Timeout (a holdable one
// within HoldAckTimeout) and prints nothing.
//
// It returns an error for the caller to log; the caller must still exit 0 and print
// nothing else.
func (e *Emitter) Emit(ctx context.Context) error {
	emittedAt := e.Now()
	body, err := readPayload(ctx, e.Stdin)
	if err != nil {
		return fmt.Errorf("read hook payload: %w", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		// No event: the agent closed the hook's input unwritten (seen as Claude Code exits
		// while it starts a hook). The daemon would refuse it, so nothing is sent, kept or
		// logged; either would create a state directory that may be gone for good.
		return nil
	}
	var req heldRequest
	if e.Hold {
		if r := permissionRequestOf(body); r != nil {
			req = r
		}
	}
	if req == nil && len(body) > slimAbove {
		// A PreToolUse of every tool comes to the daemon now: a large Write's content, or
		// a PostToolUse's output, is not read there, and is not sent.
		body = adapter.Slim(body, adapter.HookFields)
	}
	return e.send(ctx, claude.Harness, emittedAt, emittedAt, body, req)
}

// emitHook posts body, a payload of harness that ran at emittedAt, to its route with the tmux
// location of the hook, and spools it unless the daemon acknowledged it within ctx. With
// ack, it says that the hook can hold and decodes the daemon's answer into ack.
func (e *Emitter) emitHook(ctx context.Context, harness string, emittedAt time.Time, body []byte, ack *wire.HookAck) error {
	pane := e.Getenv("TMUX_PANE")
	tmux := e.Getenv("TMUX")
	if pane == "" && tmux != "" {
		// One Claude Code release stripped TMUX_PANE; the pane whose process is our
		// ancestor is the same answer.
		pane = paneOfAncestor(ctx, tmux)
	}
	// Who runs this hook, as /proc says: the daemon reads it itself from its socket's peer,
	// but over TCP, or from the spool, this word (which it checks) is all it has.
	var claim string
	if tmux != "" {
		claim = lineage.Self(os.Getpid(), tmux).String()
	}
	headers := map[string]string{wire.HeaderPane: pane, wire.HeaderTmux: tmux, wire.HeaderProgram: claim,
		wire.HeaderEmittedAt: emittedAt.UTC().Format(time.RFC3339Nano)}
	var out any
	if ack != nil {
		headers[wire.HeaderCanHold] = "1"
		out = ack
	}
	err := e.post(ctx, wire.HookRoute(harness), body, headers, out)
	if undecodable(err) {
		// The daemon took the event (it answered 2xx): spooling it would queue it twice.
		// Its answer cannot say to hold, so the hook returns at once.
		return fmt.Errorf("the daemon took the event, but its answer could not be read: %w", err)
	}
	return e.spoolUnlessAcknowledged(err, spool.Event{Harness: harness, Pane: pane, Tmux: tmux, Program: claim,
		EmittedAt: emittedAt, Body: body})
}

// EmitGeneric posts one generic envelope (POST /v1/events) and spools it when the daemon
// does not acknowledge it in time. A refusal comes back as an error that IsRefused.
func (e *Emitter) EmitGeneric(ctx context.Context, envelope []byte) error {
	emittedAt := e.Now()
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	err := e.post(ctx, wire.RouteEvents, envelope, nil, nil)
	return e.spoolUnlessAcknowledged(err, spool.Event{Harness: spool.Generic, EmittedAt: emittedAt, Body: envelope})
}

// IsRefused reports whether err is the daemon's "no" to a payload (bad input), as opposed
// to a daemon that could not be reached in time.
func IsRefused(err error) bool {
	var refused *hot.RefusedError
	return errors.As(err, &refused)
}

// spoolUnlessAcknowledged leaves ev in the spool when err says the daemon did not take it,
// slimmed to what its adapter reads (a PostToolUse's tool_response can be megabytes); a
// refusal is not spooled, since it would only be refused again.
func (e *Emitter) spoolUnlessAcknowledged(err error, ev spool.Event) error {
	if err == nil || IsRefused(err) {
		return err
	}
	if len(ev.Body) >= maxPayload {
		// Cut at maxPayload, it is no longer JSON: the daemon would refuse it, as it does
		// when it is up.
		return fmt.Errorf("%w; and it is over 1 MiB, which the daemon refuses, so it was not spooled", err)
	}
	switch ev.Harness {
	case "claude":
		ev.Body = adapter.Slim(ev.Body, adapter.HookFields)
	case "codex":
		ev.Body = adapter.Slim(ev.Body, codex.SpoolFields)
	case "gemini":
		ev.Body = adapter.Slim(ev.Body, gemini.SpoolFields)
	}
	dropped, serr := spool.Write(e.StateDir, ev)
	if serr != nil {
		return fmt.Errorf("%w; and it could not be spooled: %v (event lost)", err, serr)
	}
	if dropped > 0 {
		return fmt.Errorf("%w (%s; the spool was full, so the %d oldest events in it were dropped)", err, SpooledNote, dropped)
	}
	return fmt.Errorf("%w (%s)", err, SpooledNote)
}

// SpooledNote ends the log line of an event the daemon did not take in time: it waits in
// the spool, and is not lost.
const SpooledNote = "kept in the spool for the daemon"

// post sends the payload to path through the daemon's client and returns nil once the
// daemon acknowledged it, its answer decoded into out (when out is not nil).
func (e *Emitter) post(ctx context.Context, path string, body []byte, headers map[string]string, out any) error {
	timeout := e.Timeout
	if deadline, ok := ctx.Deadline(); ok {
		timeout = time.Until(deadline) // ctx is the budget: Timeout, or HoldAckTimeout
	}
	c, err := hot.New(e.Addr, e.StateDir, timeout)
	if err == nil {
		err = c.PostFor(ctx, path, body, headers, out)
	}
	return withCause("post to daemon", err)
}

// undecodable reports whether err is a 2xx answer of the daemon that could not be decoded.
func undecodable(err error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syntax) || errors.As(err, &typ)
}

// withCause returns err, or for a daemon that could not be reached what happened on the
// way: emit.log is read to find out why, and keeps the cause the person-facing message
// leaves out.
func withCause(what string, err error) error {
	var down *hot.DownError
	if errors.As(err, &down) {
		return fmt.Errorf("%s at %s: %w", what, down.Addr, down.Cause)
	}
	var busy *hot.BusyError
	if errors.As(err, &busy) {
		return fmt.Errorf("%s at %s: no answer within %v (the daemon is busy or unreachable): %w", what, busy.Addr, busy.Within.Round(time.Millisecond), busy.Cause)
	}
	return err
}

// PayloadReadTimeout bounds reading a hook's payload, apart from the time the daemon gets.
// The harness writes it as it starts the hook, so it is there at once — unless the machine
// is so loaded that the hook itself barely runs: sharing the daemon's 300 ms, a read cut
// short lost the event (seen at load 10: "read hook payload: context deadline exceeded",
// nothing spooled), and with a second of its own Claude Code had still written nothing
// (load 12: its hooks start, its event loop writes their stdin later). Waiting longer slows
// no one: an async hook is not waited for, and a harness waiting on a sync one is what
// writes the payload.
const PayloadReadTimeout = 5 * time.Second

// readPayload reads a hook's payload from r, within PayloadReadTimeout.
func readPayload(ctx context.Context, r io.Reader) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, PayloadReadTimeout)
	defer cancel()
	return readWithin(ctx, r, maxPayload)
}

// readWithin reads at most limit bytes of r, giving up when ctx ends (a hook's stdin is
// closed by Claude Code; a terminal's is not).
func readWithin(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, limit))
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		return res.b, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func paneOfAncestor(ctx context.Context, tmuxEnv string) string {
	socket, err := adapter.SocketFromTmuxEnv(tmuxEnv)
	if err != nil || socket == "" {
		return ""
	}
	pane, err := tmuxctl.New(socket).PaneOfProcess(ctx, os.Getpid())
	if err != nil {
		return ""
	}
	return pane
}

// LogFailure appends one line about a failed emit to the state directory's emit.log. It
// never fails loudly: a hook has nowhere to report.
func LogFailure(stateDir string, now time.Time, err error) {
	if err == nil {
		return
	}
	msg := adapter.CleanText(err.Error(), 500)
	if errors.Is(err, context.DeadlineExceeded) {
		msg += " (gave up: daemon too slow or down)"
	}
	statedir.AppendEmitLog(stateDir, now, msg)
}
