// Package codex turns OpenAI Codex CLI's signals into adapter Events: the payload its
// `notify` program gets when a turn ends (notify.go), and the payloads of its hooks
// (hook.go). It is the only package that knows Codex CLI.
package codex

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Harness is the harness name Codex events carry.
const Harness = "codex"

// Meta is what arrives beside a payload: the environment of the program Codex ran, read by
// the emitter.
type Meta struct {
	Pane      string    // TMUX_PANE, or "" outside tmux
	Tmux      string    // TMUX ("socket,pid,index"), or ""
	EmittedAt time.Time // when Codex ran the program; the event's source time
}

// ErrUnknownEvent is returned for a valid payload that says nothing about waiting (a notify
// type other than agent-turn-complete, or a hook such as SubagentStop or PreCompact): the
// daemon acknowledges it and changes nothing.
var ErrUnknownEvent = fmt.Errorf("codex %w", adapter.ErrIgnored)

// Parse reads one payload of either kind, told apart by its fields: a hook's has
// hook_event_name, a notify's has type. It returns the events to apply in order: one, or
// for a turn that began with the human's input, an unstuck before the stuck (see
// ParseNotifyTurn). Errors as ParseHook and ParseNotify.
func Parse(body []byte, meta Meta) ([]adapter.Event, error) {
	var probe struct {
		HookEventName *string `json:"hook_event_name"`
	}
	_ = json.Unmarshal(body, &probe) // a body that is not an object fails below, with its reason
	if probe.HookEventName != nil {
		ev, err := ParseHook(body, meta)
		if err != nil {
			return nil, err
		}
		return []adapter.Event{ev}, nil
	}
	t, err := ParseNotifyTurn(body, meta)
	if err != nil {
		return nil, err
	}
	if !t.Prompted {
		return []adapter.Event{t.Event}, nil
	}
	answered := t.Event
	answered.Kind, answered.Reason, answered.Detail, answered.Summary = adapter.KindUnstuck, "", "", ""
	return []adapter.Event{answered, t.Event}, nil
}

// finish cleans the summary and validates ev; for an event we do not use (known false) it
// still validates the identity fields, then returns ErrUnknownEvent naming it.
func finish(ev adapter.Event, known bool, name string) (adapter.Event, error) {
	if !known {
		ev.Kind = adapter.KindTouch
		if err := ev.Validate(); err != nil {
			return adapter.Event{}, err
		}
		return adapter.Event{}, fmt.Errorf("%w: %q", ErrUnknownEvent, adapter.CleanText(name, 60))
	}
	ev.Summary = adapter.CleanText(ev.Summary, adapter.MaxSummaryLen)
	ev.Detail = adapter.CleanText(ev.Detail, 80)
	if err := ev.Validate(); err != nil {
		return adapter.Event{}, err
	}
	return ev, nil
}
