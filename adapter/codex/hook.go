package codex

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/trailboss/trailboss/adapter"
)

// hookPayload holds the fields of a Codex hook's stdin JSON that matter to us. Codex's hook
// payloads follow Claude Code's (snake_case, hook_event_name) with Codex's own additions
// (turn_id, model); unknown fields are ignored. transcript_path may be null.
type hookPayload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath *string         `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	Source         string          `json:"source"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	LastMessage    *string         `json:"last_assistant_message"`
	Error          json.RawMessage `json:"error"`
	ErrorDetails   json.RawMessage `json:"error_details"`
	Reason         string          `json:"reason"`
}

// ParseHook turns one hook payload into an Event, as Claude Code's hooks are read: an
// approval request (PermissionRequest) is the session stuck for permission with the command
// as the summary; Stop and StopFailure are stuck, stopped; a prompt or a tool that ran is
// progress (unstuck); SessionStart and SessionEnd start and end the session. It returns an
// error wrapping adapter.ErrInvalid for a payload that is not one JSON object with a
// session_id and a hook_event_name, and ErrUnknownEvent for a valid payload of a hook we do
// not use (SubagentStart, SubagentStop, PreCompact, PostCompact, …).
func ParseHook(body []byte, meta Meta) (adapter.Event, error) {
	var p hookPayload
	if err := adapter.DecodeOne(body, &p, "hook payload"); err != nil {
		return adapter.Event{}, err
	}
	if p.HookEventName == "" {
		return adapter.Event{}, fmt.Errorf("%w: missing hook_event_name", adapter.ErrInvalid)
	}
	socket, err := adapter.SocketFromTmuxEnv(meta.Tmux)
	if err != nil {
		return adapter.Event{}, err
	}
	ev := adapter.Event{
		Harness:        Harness,
		SessionID:      p.SessionID,
		Pane:           meta.Pane,
		TmuxSocket:     socket,
		TranscriptPath: adapter.Deref(p.TranscriptPath),
		Cwd:            p.Cwd,
		At:             meta.EmittedAt,
	}
	return finish(ev, classify(&ev, &p), p.HookEventName)
}

// classify sets the event's kind, reason, detail and summary from the hook event, and
// reports false for an event we do not use.
func classify(ev *adapter.Event, p *hookPayload) bool {
	stuck := func(reason, detail, summary string) {
		ev.Kind, ev.Reason, ev.Detail, ev.Summary = adapter.KindStuck, reason, detail, summary
	}
	switch p.HookEventName {
	case "SessionStart":
		ev.Kind, ev.Detail = adapter.KindStart, p.Source
	case "PermissionRequest":
		stuck(adapter.ReasonPermission, p.ToolName, toolSummary(p.ToolName, p.ToolInput))
	case "Stop":
		stuck(adapter.ReasonStopped, "", adapter.Deref(p.LastMessage))
	case "StopFailure":
		// The turn died on an API error; Stop does not fire.
		msg := adapter.JoinNonEmpty(": ", adapter.RawText(p.Error), adapter.RawText(p.ErrorDetails))
		stuck(adapter.ReasonStopped, "error", adapter.JoinNonEmpty(" — ", msg, adapter.Deref(p.LastMessage)))
	case "UserPromptSubmit", "PreToolUse", "PostToolUse":
		// The human answered, or a tool is about to run or ran: the session moved on.
		ev.Kind = adapter.KindUnstuck
	case "SessionEnd":
		ev.Kind, ev.Detail = adapter.KindEnd, p.Reason
	default:
		return false
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
