// Package codex turns OpenAI Codex CLI's signals into adapter Events: the payload its
// `notify` program gets when a turn ends (notify.go), and the payloads of its hooks
// (hook.go). It is the only package that knows Codex CLI.
package codex

import (
	"encoding/json"
	"fmt"

	"github.com/trailboss/trailboss/adapter"
)

// Harness is the harness name Codex events carry.
const Harness = adapter.HarnessCodex

// Command is the name Codex CLI's process runs under (a tmux pane's current command): the
// screen adapter finds its panes by it. npm's `codex` is a Node script that, on Node <
// 22.15, spawns the native binary as its child: its pane's current command is then "node",
// and Command is the name of that child.
//
// The screen adapter reads Codex's panes even when a notify or a hook bound them to a
// session: its notify reports a turn's end, not an approval prompt. While it waits for an
// approval, Codex rewrites the terminal title every second, which moves its window's
// activity time with nothing new on screen.
const Command = "codex"

// Meta is what arrives beside a payload: the environment of the program Codex ran.
type Meta = adapter.Meta

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
	answered.EndsTurn = false
	return []adapter.Event{answered, t.Event}, nil
}

// finish is adapter.Finish for Codex's events.
func finish(ev adapter.Event, known bool, name string) (adapter.Event, error) {
	return adapter.Finish(ev, known, name, ErrUnknownEvent)
}
