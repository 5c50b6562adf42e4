package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/generic"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/queue"
)

// The ingestor is the one way a harness's payload becomes queue events: the HTTP API and
// the spool drain both call it, and each maps its typed errors to what it must do (an
// HTTP status; keep or drop a spooled file).

func refusal(format string, args ...any) error {
	return &fault.RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// Ingested is what became of one accepted payload.
type Ingested struct {
	Changed   bool   // the queue or a session changed
	Duplicate bool   // a generic event whose id was applied before
	Ignored   string // why a valid payload of an event Trail Boss does not use changed nothing
	SessionID string // the session of the payload's last event
	// Prompt is the pending prompt record of what the payload's last event asked (the one
	// it opened, or the same wait's): the record a PermissionRequest hook holds for.
	Prompt *queue.Prompt
	// Holdable says the payload may hold for an answer (hookPayload.Holdable).
	Holdable bool
}

// hookPayload is one hook's payload as its harness's adapter decoded it, once, where it
// came in: the events it says, and whether it may hold for an answer. It is passed on,
// never decoded again.
type hookPayload interface {
	// Events returns the events it says, with where and when the hook ran.
	Events(meta adapter.Meta) ([]adapter.Event, error)
	// Holdable reports whether it may hold for an answer: its prompt stays on screen while
	// its sender waits (a permission request or a question whose dialog is open), never
	// one that blocks its own prompt (each harness's case is in its adapter).
	Holdable() bool
}

// hookDecoder decodes one harness's hook payload; an error wraps adapter.ErrInvalid.
type hookDecoder func(body []byte) (hookPayload, error)

// decodedBy is the hookDecoder of an adapter whose decoded payload is a hookPayload.
func decodedBy[P hookPayload](decode func(body []byte) (P, error)) hookDecoder {
	return func(body []byte) (hookPayload, error) {
		p, err := decode(body)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

// parsedBy is the hookDecoder of an adapter that turns a payload into its events in one
// step (it decodes it then, once), and whose payloads never hold.
func parsedBy(parse func(body []byte, meta adapter.Meta) ([]adapter.Event, error)) hookDecoder {
	return func(body []byte) (hookPayload, error) { return unheld{body: body, parse: parse}, nil }
}

// unheld is a payload of parsedBy's, not decoded until its events are asked for.
type unheld struct {
	body  []byte
	parse func(body []byte, meta adapter.Meta) ([]adapter.Event, error)
}

func (u unheld) Events(meta adapter.Meta) ([]adapter.Event, error) { return u.parse(u.body, meta) }
func (unheld) Holdable() bool                                      { return false }

// KnownHarness reports whether payloads of harness can be ingested as hooks.
func KnownHarness(harness string) bool { return hookDecoders[harness] != nil }

// Ingestor applies payloads to the engine.
type Ingestor struct {
	Engine *Engine
	Now    func() time.Time
	// SocketExists reports whether a tmux socket is there; nil means IsSocket. An event
	// from a tmux server that does not exist could never be navigated to.
	SocketExists func(path string) bool
	Log          *slog.Logger

	events   atomic.Int64 // payloads applied since start, from the API and the spool
	idsMu    sync.Mutex
	inflight map[string]chan struct{} // generic event ids being applied right now

	orderMu  sync.Mutex
	lastHook map[string]spawnedHook // by session: the latest-started hook applied, and its time

	ended endedTurns // the turns their agents said were complete
}

// Origin is what the daemon could tell of the process that sent a hook: read from its
// socket peer, or its emitter's own word checked against /proc (over TCP, from the spool);
// zero when it could not.
type Origin struct {
	Program adapter.Program // the program that ran the hook
	Spawn   lineage.Spawn   // when that program started the hook
}

// spawnedHook is a hook applied: when its agent started it, and the time it was applied at.
type spawnedHook struct {
	spawn lineage.Spawn
	at    time.Time
}

// maxOrdered bounds the sessions whose last hook is remembered for ordering; past it the
// memory starts again (an old session's order is no longer at stake).
const maxOrdered = 4096

// Events returns how many payloads were applied since the daemon started.
func (in *Ingestor) Events() int64 { return in.events.Load() }

// Hook turns one hook payload of harness into its events and applies them in order. pane
// and tmux are the hook's TMUX_PANE and TMUX; a zero at means "now", and a time in the
// future is not believed, because it would make every later real event look old. It
// returns a *fault.RefusedError for a payload the daemon will never take and fault.ErrNotStored when
// the store failed. origin is the program that ran the hook, as far as the daemon could
// tell (zero when it could not: an answer to what it asks is then never typed).
func (in *Ingestor) Hook(ctx context.Context, harness string, body []byte, pane, tmux string, at time.Time, origin Origin) (Ingested, error) {
	decode := hookDecoders[harness]
	if decode == nil {
		return Ingested{}, refusal("no adapter for harness %q", adapter.CleanText(harness, 40))
	}
	return in.apply(ctx, harness, decode, body, pane, tmux, at, origin)
}

// apply is Hook with the harness's adapter given: decode reads body, once, and the value it
// returns says the events and whether the hook may hold.
func (in *Ingestor) apply(ctx context.Context, harness string, decode hookDecoder, body []byte, pane, tmux string, at time.Time, origin Origin) (Ingested, error) {
	now := in.Now()
	if at.IsZero() || !at.Before(now.Add(2*time.Second)) {
		at = now
	}
	if !utf8.Valid(body) {
		return Ingested{}, refusal("body is not valid UTF-8")
	}
	p, err := decode(body)
	var evs []adapter.Event
	if err == nil {
		evs, err = p.Events(adapter.Meta{Pane: pane, Tmux: tmux, EmittedAt: at})
	}
	switch {
	case errors.Is(err, adapter.ErrIgnored):
		in.Log.Debug("hook payload ignored", "harness", harness, "why", err)
		return Ingested{Ignored: err.Error()}, nil
	case err != nil:
		return Ingested{}, refusal("%s", err)
	}
	// Every event of one payload comes from the same place.
	if socket := evs[0].TmuxSocket; !in.socketOK(socket) {
		return Ingested{}, refusal("tmux socket %s (from TMUX) does not exist or is not a socket", adapter.CleanText(socket, 200))
	}
	if spawnOrdered[harness] && origin.Spawn.Known() {
		backdate(evs, at, hookTime(at, origin.Spawn, now))
		in.orderMu.Lock() // from the order's check to the apply: a hook started later waits
		defer in.orderMu.Unlock()
		in.order(evs, at, origin.Spawn)
	}
	if slices.ContainsFunc(evs, func(ev adapter.Event) bool { return ev.Turn != "" }) {
		in.ended.mu.Lock() // from the check to the record: a turn's end and its late hook race
		defer in.ended.mu.Unlock()
	}
	res := Ingested{Holdable: p.Holdable()}
	stale := 0
	for _, ev := range evs {
		if in.ended.stale(ev) {
			in.Log.Debug("event of a turn that already ended: dropped", "session", ev.SessionID,
				"event", ev.Kind, "turn", ev.Turn)
			stale++
			continue
		}
		ev = in.ended.endAfterItsTurn(ev)
		if ev.Pane != "" {
			ev.Program, ev.AskerUnknown = origin.Program, !origin.Program.Known()
		}
		out, err := in.Engine.ingest(ctx, ev, true)
		if err != nil {
			in.Log.Error("ingest", "session", ev.SessionID, "err", err)
			return Ingested{}, fmt.Errorf("%w: %w", fault.ErrNotStored, err)
		}
		in.ended.record(ev)
		res.Changed = res.Changed || out.Changed
		res.SessionID, res.Prompt = ev.SessionID, out.Prompt
	}
	if stale == len(evs) {
		res.Ignored = "its turn already ended"
	}
	in.events.Add(1)
	return res, nil
}

// maxHookStart bounds how long a hook may have taken to start for its spawn to date it: a
// spawn further back is not the hook's own (a wrapper that runs hooks, a made-up one).
const maxHookStart = 3 * time.Second

// hookTime returns when a hook stamped at (when it first ran) was started by its agent, if
// that is known and earlier. Under load a hook can start hundreds of milliseconds late,
// stamped after what its agent did next: an async hook of a submitted prompt, started as
// the human's answer went in, ran after the live state had already said that turn was over,
// and took the new stop out of the queue (the real-agent suite's text-at-the-stop test,
// under load). Only for a harness whose hooks one process starts in order (spawnOrdered):
// a harness whose hooks and turn-end notice are started by two processes was seen to start
// a turn's after-tool hook after the turn's notice; its turn ids order its events instead
// (endedTurns).
func hookTime(at time.Time, spawn lineage.Spawn, now time.Time) time.Time {
	started, ok := spawn.Latest(now)
	if ok && started.Before(at) && at.Sub(started) < maxHookStart {
		return started
	}
	return at
}

// backdate dates the unstuck events of evs, stamped at, at started instead: news that the
// session moved on is as old as the hook. A stuck event keeps its stamp: a hook that says
// what a session waits for (a PermissionRequest's tool and subject, a StopFailure's error)
// is richer than the live state and the transcript that saw the same moment, and must stay
// the later word, or the dialog it would hold for is opened without it.
func backdate(evs []adapter.Event, at, started time.Time) {
	for i := range evs {
		if evs[i].Kind == adapter.KindUnstuck && evs[i].At.Equal(at) {
			evs[i].At = started
		}
	}
}

// order dates evs, the events of one hook stamped at and started at spawn, before the hook
// of their session that was applied last when their agent started that one later: a hook
// slow to start (a UserPromptSubmit under load) is otherwise stamped after the hooks that
// followed it (its turn's Stop), and would undo them. Called with orderMu held.
func (in *Ingestor) order(evs []adapter.Event, at time.Time, spawn lineage.Spawn) {
	id := evs[0].SessionID
	last, seen := in.lastHook[id]
	switch {
	case seen && spawn.SameParent(last.spawn) && spawn.Before(last.spawn) && !at.Before(last.at):
		older := last.at.Add(-time.Microsecond)
		for i := range evs {
			if evs[i].At.Equal(at) {
				evs[i].At = older
			}
		}
		in.Log.Debug("hook started before the last one applied: dated before it", "session", id,
			"event", evs[0].Kind, "stamped", at, "dated", older)
	case !seen || !spawn.SameParent(last.spawn) || last.spawn.Before(spawn):
		if in.lastHook == nil || len(in.lastHook) >= maxOrdered {
			in.lastHook = make(map[string]spawnedHook)
		}
		in.lastHook[id] = spawnedHook{spawn: spawn, at: at}
	}
}

// Generic applies one generic envelope unless its id was applied before. The event is
// applied before its id is recorded: a crash between the two makes a retry apply it again,
// which the queue rules make harmless, where the other order would lose it. Errors as Hook.
func (in *Ingestor) Generic(ctx context.Context, body []byte) (Ingested, error) {
	if !utf8.Valid(body) {
		return Ingested{}, refusal("body is not valid UTF-8")
	}
	p, err := generic.Parse(body, in.Now())
	var envelope *generic.Error
	if errors.As(err, &envelope) {
		return Ingested{}, &fault.RefusedError{Reason: envelope.Error(), Envelope: envelope}
	}
	if !in.socketOK(p.Event.TmuxSocket) {
		return Ingested{}, refusal("tmux socket %s does not exist or is not a socket", adapter.CleanText(p.Event.TmuxSocket, 200))
	}
	release := in.claimID(p.ID) // a concurrent repeat waits for this one, then sees it done
	defer release()
	seen, err := in.Engine.EventSeen(ctx, p.ID)
	if err != nil {
		return Ingested{}, fmt.Errorf("%w: %w", fault.ErrNotStored, err)
	}
	if seen {
		return Ingested{Duplicate: true}, nil
	}
	// An envelope says nothing the daemon can check of who sent it: an answer to what it
	// asks is never typed (DELIVERY.md), and it takes no identity from the session's past.
	p.Event.AskerUnknown = p.Event.Pane != ""
	out, err := in.Engine.Ingest(ctx, p.Event)
	if err == nil {
		err = in.Engine.RecordEvent(ctx, p.ID, in.Now())
	}
	if err != nil {
		in.Log.Error("ingest generic event", "id", p.ID, "err", err)
		return Ingested{}, fmt.Errorf("%w: %w", fault.ErrNotStored, err)
	}
	in.events.Add(1)
	return Ingested{Changed: out.Changed}, nil
}

// claimID waits until no other request is applying id, marks it as ours, and returns the
// function that lets the next one in.
func (in *Ingestor) claimID(id string) func() {
	for {
		in.idsMu.Lock()
		if in.inflight == nil {
			in.inflight = make(map[string]chan struct{})
		}
		wait, busy := in.inflight[id]
		if !busy {
			done := make(chan struct{})
			in.inflight[id] = done
			in.idsMu.Unlock()
			return func() {
				in.idsMu.Lock()
				delete(in.inflight, id)
				in.idsMu.Unlock()
				close(done)
			}
		}
		in.idsMu.Unlock()
		<-wait
	}
}

func (in *Ingestor) socketOK(path string) bool {
	if path == "" {
		return true
	}
	if in.SocketExists != nil {
		return in.SocketExists(path)
	}
	return IsSocket(path)
}

// IsSocket reports whether path is a unix socket.
func IsSocket(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&os.ModeSocket != 0
}
