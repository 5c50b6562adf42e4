// Package httpapi is the daemon's HTTP face: the routes of wire, served over the daemon's
// unix socket (and a loopback address), with the bearer token, the refusal of browsers and
// the cap on connections. Its handlers decode a request, ask the core (Core) and encode
// what it answered; what the core decides (whether a hook holds, how long a wait lasts)
// is not theirs.
package httpapi

import (
	"context"
	"iter"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/hosts"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// HookPost is one hook's payload as it came, with the emitter's headers: the core's
// (daemon.HookPost), which it takes as the handler decoded it.
type HookPost = daemon.HookPost

// Core is what the handlers ask of the daemon's core (the daemon package implements it).
// An error is one of package fault's when the handlers answer it with a status of its own.
type Core interface {
	// Harnesses are the names whose hooks post to wire.HookRoute(name).
	Harnesses() []string
	// Hook applies a hook's payload; its answer says whether the hook holds, and for
	// which prompt. Errors: *fault.RefusedError, fault.ErrNotStored.
	Hook(ctx context.Context, h HookPost) (wire.HookAck, error)
	// Generic applies one generic envelope. Errors as Hook's.
	Generic(ctx context.Context, body []byte) (wire.EventAck, error)

	Items() []queue.Item // every stuck session in queue order
	Head(f queue.Filter) (queue.Item, bool)
	// Skip skips the item f names (or the head) and returns the new head.
	Skip(ctx context.Context, f queue.Filter) (queue.Item, bool, error)
	SkipSession(ctx context.Context, id string) error // fault.ErrNotQueued
	Dismiss(ctx context.Context, id string) error     // fault.ErrNotQueued
	Status() wire.Status
	Sessions() []queue.Session // every live session
	// DeliveryOff says why answers are refused and how to turn delivery on; "" when on.
	DeliveryOff() string
	Channels() []wire.ChannelStatus

	// ScreensOn reports whether the screen adapter runs; Watch and Unwatch need it.
	ScreensOn() bool
	TmuxSocketOK(path string) bool // path is a tmux server's socket
	Watch(socket, pane, harness string)
	Unwatch(socket, pane string) (wasWatched bool)

	// Answer delivers an answer to prompt id. Errors: *wire.PromptRefusal,
	// *wire.BadAnswerError, wire.ErrUnknownPrompt, *fault.NotSavedError.
	Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error)
	// WaitLimit returns how long a wait for a prompt record that asked to last asked (0:
	// it did not say) lasts.
	WaitLimit(asked time.Duration) time.Duration
	// WaitPrompt returns what became of prompt id once it leaves pending, or once wait
	// (from WaitLimit) passes, ctx ends or the daemon stops. Errors:
	// wire.ErrUnknownPrompt.
	WaitPrompt(ctx context.Context, id string, wait time.Duration) (wire.PromptWait, error)
	// TookAnswer says that the holding hook of prompt id was sent its answer.
	TookAnswer(id string)
	Deliveries(ctx context.Context, limit int) ([]wire.Delivery, error) // newest first
	// RecordDelivery adds an attempt the hub forwarded to another host to the audit log.
	RecordDelivery(ctx context.Context, d wire.Delivery) error

	// PTYReport applies a trailboss run supervisor's report. Errors: *fault.RefusedError;
	// any other is the store's.
	PTYReport(ctx context.Context, rep wire.PTYReport, pane, tmux string) (wire.PTYReportAck, error)
	// AttachPTY opens session's answer stream; detach closes it.
	AttachPTY(session string) (answers <-chan wire.PTYAnswer, detach func())
	// PTYWritten reports what became of an answer; it returns whether it was expected.
	PTYWritten(wr wire.PTYWritten) bool

	// Stopping is closed when the daemon stops, ending long polls and streams.
	Stopping() <-chan struct{}
	// QueueChanges returns a channel signalled (coalesced, never blocking the core) after
	// every committed change of the queue, and the function that stops it.
	QueueChanges() (changed <-chan struct{}, stop func())
}

// Hosts is what a hub's daemon knows of its other hosts' queues (package hosts); nil on a
// daemon without [[hosts]].
type Hosts interface {
	// Queue returns local, this daemon's own queue, with every host's items merged in
	// stuck-time order (each host's clock offset taken off), positions renumbered.
	Queue(local []wire.Item) []wire.Item
	// Ordered returns the items of Queue one at a time, in its order, so that a caller that
	// wants the first few reads only those.
	Ordered(local []wire.Item) iter.Seq[wire.Item]
	// Counts returns how many of the other hosts' items are stuck and cooling, and the
	// hosts not reachable now.
	Counts() (stuck, cooling int, unreachable []string)
	// States returns each host's state, in config order.
	States() []wire.Host
	// Jump asks host's daemon to move the tmux client of the hub's host window there to
	// pane of the tmux server at socket.
	Jump(ctx context.Context, host, socket, pane string) error
	// Forward sends req to host's daemon and returns its answer as it came. Errors:
	// hosts.ErrUnknownHost; any other says why the host could not be asked.
	Forward(ctx context.Context, host string, req hosts.Request) (hosts.Response, error)
	// HostOf returns the one host whose queue holds session id; "" when none (or several).
	HostOf(session string) string
	// Await waits up to timeout until cond holds of session's item in host's queue as the
	// hub last heard it (queued false: not there), and says whether it did.
	Await(ctx context.Context, host string, timeout time.Duration, cond func(it wire.Item, queued bool) bool, session string) bool
}
