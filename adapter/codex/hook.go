package codex

import (
	"bytes"
	"encoding/json"

	"github.com/trailboss/trailboss/adapter"
)

// ParseHook turns one hook payload into an Event, as Claude Code's hooks are read: an
// approval request (PermissionRequest) is the session stuck for permission with the command
// as the summary; Stop and StopFailure are stuck, stopped; a prompt or a tool that ran is
// progress (unstuck); SessionStart and SessionEnd start and end the session. It returns an
// error wrapping adapter.ErrInvalid for a payload that is not one JSON object with a
// session_id and a hook_event_name, and ErrUnknownEvent for a valid payload of a hook we do
// not use (SubagentStart, SubagentStop, PreCompact, PostCompact, …).
func ParseHook(body []byte, meta Meta) (adapter.Event, error) {
	return adapter.ParseHook(Harness, body, meta, classify, ErrUnknownEvent)
}

// classify sets the event's kind, reason, detail and summary from the hook event, and
// reports false for an event we do not use.
func classify(ev *adapter.Event, p *adapter.HookPayload) bool {
	stuck := func(reason, detail, summary string) {
		ev.Kind, ev.Reason, ev.Detail, ev.Summary = adapter.KindStuck, reason, detail, summary
	}
	switch p.HookEventName {
	case "PermissionRequest":
		stuck(adapter.ReasonPermission, p.ToolName, toolSummary(p.ToolName, p.ToolInput))
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
