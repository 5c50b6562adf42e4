package daemon

import (
	"context"
	"log/slog"
	"sort"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/ptyhub"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// Core is the daemon's core as its HTTP face (httpapi.Server) reaches it: the engine and
// the parts beside it, and the rules of holding a hook and of waiting for an answer. The
// parts that reach outside the core (the screen adapter, the deliverer, the channels) are
// the interfaces below, which the daemon's assembly (cmd/trailboss) fills in: the core
// imports none of them.
type Core struct {
	Engine  *Engine
	Ingest  *Ingestor // the way in for every payload
	Screens Screens   // nil when the screen adapter is off

	Deliver Answerer       // answers to prompt records (package deliver's Deliverer)
	Holds   *Holds         // PermissionRequest hooks holding for an answer
	PTY     *ptyhub.PTYHub // trailboss run supervisors' answer streams
	// HoldPermissions: a PermissionRequest hook that can hold is told to, so that an
	// answer from a channel becomes its decision ([delivery] hold_permissions).
	HoldPermissions bool
	// Off, when not empty, says that delivery is off and how to turn it on: no answer is
	// typed and no hook is held.
	Off string
	// Channels are the delivery channels running beside the daemon (GET /v1/channels).
	DeliveryChannels []ChannelStatus
	// Done is closed when the daemon stops, ending long polls and streams.
	Done <-chan struct{}
	Log  *slog.Logger
}

// Screens is the screen adapter (package watch's ScreenWatcher) as the core asks it to
// watch panes.
type Screens interface {
	// Watch watches a pane, where harness runs.
	Watch(socket, pane, harness string)
	// Unwatch stops watching a pane; it returns whether it was watched.
	Unwatch(socket, pane string) bool
}

// Answerer delivers answers to prompt records (package deliver's Deliverer).
type Answerer interface {
	Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error)
}

// ChannelStatus is a delivery channel running beside the daemon, as GET /v1/channels
// asks it how it is doing.
type ChannelStatus interface {
	Status() wire.ChannelStatus
}

// HookPost is one hook's payload as it came, with the emitter's headers.
type HookPost struct {
	Harness   string // the route's harness
	Payload   []byte
	Pane      string    // wire.HeaderPane
	Tmux      string    // wire.HeaderTmux: the TMUX value of the hook
	EmittedAt time.Time // wire.HeaderEmittedAt; zero when it was not sent
	CanHold   bool      // wire.HeaderCanHold
	// PID is the process that sent it, read from the unix socket's peer; 0 when it is not
	// known (over TCP).
	PID int
	// Claim is what the emitter says of the program that ran it (wire.HeaderProgram): only
	// over TCP from a process of the daemon's own user, nil otherwise. The core checks it
	// against /proc before it believes it.
	Claim *lineage.Claim
}

// Harnesses returns the names of the harnesses whose hooks the daemon ingests, sorted.
func (c *Core) Harnesses() []string {
	names := make([]string, 0, len(hookDecoders))
	for name := range hookDecoders {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Hook applies one hook's payload, and tells a hook that can hold which prompt to hold
// for (holdFor).
func (c *Core) Hook(ctx context.Context, h HookPost) (wire.HookAck, error) {
	origin := originOf(h.PID, h.Tmux)
	if h.PID <= 0 && h.Claim != nil {
		origin = claimedOrigin(*h.Claim, h.Tmux, true)
	}
	res, err := c.Ingest.Hook(ctx, h.Harness, h.Payload, h.Pane, h.Tmux, h.EmittedAt, origin)
	if err != nil {
		return wire.HookAck{}, err
	}
	out := wire.HookAck{OK: true, Changed: res.Changed, Ignored: res.Ignored}
	if h.CanHold && res.Holdable {
		out.Hold = c.holdFor(res)
	}
	return out, nil
}

// originOf returns what the daemon can tell of process pid (0: not known), which sent a
// hook from inside the tmux server of tmux (its TMUX value): the peer of the unix socket
// is the hook's process while it waits for the answer.
func originOf(pid int, tmux string) Origin {
	if pid <= 0 {
		return Origin{}
	}
	spawn, _ := lineage.Spawned(pid)
	return Origin{Program: lineage.Of(pid, lineage.TmuxPID(tmux)), Spawn: spawn}
}

// claimedOrigin returns what the daemon believes of claim, the emitter's word on the
// program that ran a hook of tmux (its TMUX value): the program when /proc agrees
// (lineage.Vouch), and the spawn only when live, from a hook still waiting for its answer
// (a spooled hook has ended, and its spawn cannot be checked).
func claimedOrigin(claim lineage.Claim, tmux string, live bool) Origin {
	o := Origin{Program: lineage.Vouch(claim, lineage.TmuxPID(tmux))}
	if live {
		o.Spawn = lineage.VouchSpawn(claim)
	}
	return o
}

// holdFor returns the prompt a PermissionRequest hook should hold for, if any: the record
// its own event opened (or the same wait's, res.Prompt), never the session's latest, which
// a second PermissionRequest posted at the same moment may have replaced; and only when no
// other hook holds that record.
func (c *Core) holdFor(res Ingested) *wire.Hold {
	if !c.HoldPermissions || c.Off != "" || res.Prompt == nil {
		return nil
	}
	p := res.Prompt
	if p.Ask.From != adapter.AskFromHook || (p.Ask.Kind != adapter.AskPermission && p.Ask.Kind != adapter.AskMenu) {
		return nil
	}
	if !c.Holds.Assign(p.ID) {
		return nil
	}
	return &wire.Hold{PromptID: p.ID, ExpiresAt: p.ExpiresAt}
}

// Generic applies one generic envelope.
func (c *Core) Generic(ctx context.Context, body []byte) (wire.EventAck, error) {
	res, err := c.Ingest.Generic(ctx, body)
	if err != nil {
		return wire.EventAck{}, err
	}
	return wire.EventAck{OK: true, Changed: res.Changed, Duplicate: res.Duplicate}, nil
}

// Items returns every stuck session in queue order.
func (c *Core) Items() []queue.Item { return c.Engine.Items() }

// Head returns the item "next" lands on for f, or false when none is ready.
func (c *Core) Head(f queue.Filter) (queue.Item, bool) { return c.Engine.Head(f) }

// Skip skips the item f names (or the head) and returns the new head, or false when none.
func (c *Core) Skip(ctx context.Context, f queue.Filter) (queue.Item, bool, error) {
	head, found, _, err := c.Engine.Skip(ctx, f)
	return head, found, err
}

// SkipSession moves one stuck session to the tail; fault.ErrNotQueued when it is not stuck.
func (c *Core) SkipSession(ctx context.Context, id string) error {
	return c.Engine.SkipSession(ctx, id)
}

// Dismiss drops one stuck session until its next stuck event; fault.ErrNotQueued when it is not
// stuck.
func (c *Core) Dismiss(ctx context.Context, id string) error { return c.Engine.Dismiss(ctx, id) }

// Status returns the queue's counts and the events applied since the daemon started.
func (c *Core) Status() wire.Status {
	stuck, cooling, ready := c.Engine.Status()
	return wire.Status{Stuck: stuck, Cooling: cooling, Ready: ready, Events: c.Ingest.Events()}
}

// Sessions returns every live session.
func (c *Core) Sessions() []queue.Session { return c.Engine.Snapshot() }

// DeliveryOff says why answers are refused while delivery is off; "" when it is on.
func (c *Core) DeliveryOff() string { return c.Off }

// Channels returns how each delivery channel running beside the daemon is doing.
func (c *Core) Channels() []wire.ChannelStatus {
	out := make([]wire.ChannelStatus, 0, len(c.DeliveryChannels))
	for _, ch := range c.DeliveryChannels {
		out = append(out, ch.Status())
	}
	return out
}

// ScreensOn reports whether the screen adapter runs.
func (c *Core) ScreensOn() bool { return c.Screens != nil }

// TmuxSocketOK reports whether path is a tmux server's socket.
func (c *Core) TmuxSocketOK(path string) bool { return c.Ingest.socketOK(path) }

// Watch asks the screen adapter to watch a pane, where harness runs.
func (c *Core) Watch(socket, pane, harness string) { c.Screens.Watch(socket, pane, harness) }

// Unwatch stops watching a pane; it returns whether it was watched.
func (c *Core) Unwatch(socket, pane string) bool { return c.Screens.Unwatch(socket, pane) }

// Answer delivers an answer to prompt id (deliver.Deliverer.Answer).
func (c *Core) Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error) {
	return c.Deliver.Answer(ctx, id, a)
}

// Waits for a prompt record's answer: how long one lasts when it does not say, and at
// most.
const (
	defaultWait = 20 * time.Second
	maxWait     = 60 * time.Second
)

// WaitLimit returns how long a wait that asked to last asked (0: it did not say) lasts.
func (c *Core) WaitLimit(asked time.Duration) time.Duration {
	if asked <= 0 {
		return defaultWait
	}
	return min(asked, maxWait)
}

// WaitPrompt returns what became of prompt id once it leaves pending, or when wait passes,
// ctx ends or the daemon stops. While it waits, the prompt counts as held by a hook. The
// answer is given only for a record still in memory; wire.ErrUnknownPrompt when none has id.
func (c *Core) WaitPrompt(ctx context.Context, id string, wait time.Duration) (wire.PromptWait, error) {
	changed, p, ok := c.Engine.PromptChanged(id)
	if !ok {
		rec, err := c.Engine.Prompt(ctx, id)
		if err != nil {
			return wire.PromptWait{}, err
		}
		return wire.PromptWait{Status: rec.Status, Subject: rec.Ask.Subject}, nil
	}
	if p.Status == queue.PromptPending {
		c.Holds.begin(id)
		t := time.NewTimer(wait)
		select {
		case <-changed:
		case <-t.C:
		case <-c.Done:
		case <-ctx.Done():
		}
		t.Stop()
		c.Holds.end(id)
		if rec, err := c.Engine.Prompt(ctx, id); err == nil {
			p = rec
		}
	}
	out := wire.PromptWait{Status: p.Status, Subject: p.Ask.Subject}
	if p.Status == queue.PromptPending && !time.Now().Before(p.ExpiresAt) {
		out.Status = queue.PromptExpired
	}
	if p.Status == queue.PromptAnswered {
		out.Answer = &wire.GivenAnswer{Choice: p.Answer, Label: p.Ask.Label(p.Answer)}
	}
	return out, nil
}

// TookAnswer says that the holding hook of prompt id was handed its answer.
func (c *Core) TookAnswer(id string) { c.Holds.took(id) }

// Deliveries returns the latest limit entries of the audit log, newest first.
func (c *Core) Deliveries(ctx context.Context, limit int) ([]wire.Delivery, error) {
	return c.Engine.Deliveries(ctx, limit)
}

// Stopping is closed when the daemon stops.
func (c *Core) Stopping() <-chan struct{} { return c.Done }

// QueueChanges returns a channel signalled after every committed change of the queue, and
// the function that stops it.
func (c *Core) QueueChanges() (<-chan struct{}, func()) {
	ch := c.Engine.Subscribe()
	return ch, func() { c.Engine.Unsubscribe(ch) }
}

// What the core's other parts (the ingestor, the deliverer, the HTTP face) read and write
// of the store, through the engine that owns it.

// RecordDelivery adds one attempt to deliver an answer to the audit log.
func (e *Engine) RecordDelivery(ctx context.Context, d wire.Delivery) error {
	return e.store.RecordDelivery(ctx, d)
}

// EventSeen reports whether the generic event id was applied before.
func (e *Engine) EventSeen(ctx context.Context, id string) (bool, error) {
	return e.store.EventSeen(ctx, id)
}

// RecordEvent remembers that the generic event id was applied at at, so that a repeat of
// it changes nothing.
func (e *Engine) RecordEvent(ctx context.Context, id string, at time.Time) error {
	return e.store.RecordEvent(ctx, id, at)
}

// Deliveries returns the latest limit entries of the audit log, newest first.
func (e *Engine) Deliveries(ctx context.Context, limit int) ([]wire.Delivery, error) {
	return e.store.Deliveries(ctx, limit)
}

// RecordDelivery adds one attempt to deliver an answer (one the hub forwarded to another
// host) to the audit log.
func (c *Core) RecordDelivery(ctx context.Context, d wire.Delivery) error {
	return c.Engine.RecordDelivery(ctx, d)
}
