package codex

import (
	"bytes"
	"encoding/json"

	"github.com/trailboss/trailboss/adapter"
)

// ParseHook turns one hook payload into an Event, as Claude Code's hooks are read: an
// approval request (PermissionRequest) is the session stuck for permission with the command
// as the summary; Stop, StopFailure and Interrupt (Esc mid-turn) are stuck, stopped; a prompt or a tool that ran is
// progress (unstuck); SessionStart and SessionEnd start and end the session. It returns an
// error wrapping adapter.ErrInvalid for a payload that is not one JSON object with a
// session_id and a hook_event_name, and ErrUnknownEvent for a valid payload of a hook we do
// not use (SubagentStart, SubagentStop, PreCompact, PostCompact, …).
func ParseHook(body []byte, meta Meta) (adapter.Event, error) {
	return adapter.ParseHook(Harness, body, meta, classify, ErrUnknownEvent)
}

// InterruptedSummary is the summary of a turn the human interrupted (Interrupt carries no
// words of the agent's).
const InterruptedSummary = "Interrupted: waiting for your next prompt"

// classify sets what a Codex hook event says of its own: an approval request, an interrupted
// turn; the rest is adapter.ClassifyHook's.
func classify(ev *adapter.Event, p *adapter.HookPayload) bool {
	switch p.HookEventName {
	case "PermissionRequest":
		ev.Stuck(adapter.ReasonPermission, p.ToolName, toolSummary(p.ToolName, p.ToolInput))
	case "Interrupt":
		// The human pressed Esc mid-turn: the turn is over and Codex waits for them. Neither
		// Stop nor notify fires for it.
		ev.Stuck(adapter.ReasonStopped, adapter.DetailInterrupted, InterruptedSummary)
		// The turn is over: a slow hook of it arriving later must not take the session out.
		ev.EndsTurn = p.TurnID != ""
	case "PreToolUse":
		// A tool is about to run: the session moved on.
		ev.Kind = adapter.KindUnstuck
	default:
		return adapter.ClassifyHook(ev, p)
	}
	return true
}

// toolSummary says what an approval is for: "Bash: git push origin main", with Codex's
// description when it gave one (a network approval's "network-access example.com").
func toolSummary(tool string, input json.RawMessage) string {
	var in struct {
		Command     string `json:"command"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(input, &in) // a tool_input of another shape leaves the fields empty
	if tool == "" {
		tool = "tool"
	}
	switch {
	case in.Command != "" && in.Description != "":
		return tool + ": " + in.Command + " — " + in.Description
	case in.Command != "":
		return tool + ": " + in.Command
	case in.Description != "":
		return tool + ": " + in.Description
	case len(input) > 0 && !bytes.Equal(input, []byte("null")):
		return tool + " " + string(input)
	}
	return tool
}
