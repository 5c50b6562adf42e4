// Package claude turns Claude Code's signals into adapter Events: hook payloads (hook.go)
// and transcript lines (transcript.go). It is the only package that knows Claude Code.
package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Harness is the harness name Claude Code events carry.
const Harness = "claude"

// Meta is what arrives beside a hook payload: the hook's environment, read by the emitter.
type Meta struct {
	Pane      string    // TMUX_PANE, or "" outside tmux
	Tmux      string    // TMUX ("socket,pid,index"), or ""
	EmittedAt time.Time // when the hook ran; the event's source time
}

// hookPayload holds the fields of a hook's stdin JSON that matter to us. Claude Code adds
// optional fields often, so unknown ones are ignored.
type hookPayload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	LastMessage    *string         `json:"last_assistant_message"`
	Message        string          `json:"message"`
	Notification   string          `json:"notification_type"`
	Error          json.RawMessage `json:"error"`
	ErrorDetails   json.RawMessage `json:"error_details"`
	Source         string          `json:"source"`
	Reason         string          `json:"reason"`
}

// ErrUnknownEvent is returned for a hook event that says nothing about waiting (such as
// SubagentStop or PreCompact): the daemon acknowledges it and changes nothing.
var ErrUnknownEvent = fmt.Errorf("hook %w", adapter.ErrIgnored)

// ParseHook turns one hook payload into an Event. It returns an error wrapping
// adapter.ErrInvalid for a payload that is not one JSON object with a session_id and a known
// shape, and ErrUnknownEvent for a valid payload of an event we do not use.
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
		TranscriptPath: p.TranscriptPath,
		Cwd:            p.Cwd,
		At:             meta.EmittedAt,
	}
	if !classify(&ev, &p) {
		ev.Kind = adapter.KindTouch // validate the identity fields all the same
		if err := ev.Validate(); err != nil {
			return adapter.Event{}, err
		}
		return adapter.Event{}, fmt.Errorf("%w: %q", ErrUnknownEvent, adapter.CleanText(p.HookEventName, 60))
	}
	ev.Summary = adapter.CleanText(ev.Summary, adapter.MaxSummaryLen)
	if err := ev.Validate(); err != nil {
		return adapter.Event{}, err
	}
	return ev, nil
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
	case "Stop":
		stuck(adapter.ReasonStopped, "", adapter.Deref(p.LastMessage))
	case "StopFailure":
		// The turn died on an API error; Stop does not fire, so this is the only signal.
		stuck(adapter.ReasonStopped, "error", failureSummary(p))
	case "PermissionRequest":
		if detail, summary, ok := humanTool(p.ToolName, p.ToolInput); ok {
			// Claude Code 2.1.197 asks permission for the question or plan it has just
			// shown: the same wait as the PreToolUse before it, so it says the same.
			stuck(adapter.ReasonPermission, detail, summary)
			break
		}
		stuck(adapter.ReasonPermission, p.ToolName, toolSummary(p.ToolName, p.ToolInput))
	case "PreToolUse":
		// A question or a plan blocks on the human as soon as the tool starts; any other
		// tool starting is progress.
		if detail, summary, ok := humanTool(p.ToolName, p.ToolInput); ok {
			stuck(adapter.ReasonPermission, detail, summary)
			break
		}
		ev.Kind = adapter.KindUnstuck
	case "Notification":
		// Late backups: permission_prompt comes 6 s after a dialog, idle_prompt after 60 s idle.
		switch p.Notification {
		case "permission_prompt":
			stuck(adapter.ReasonPermission, "notification", p.Message)
		case "idle_prompt":
			stuck(adapter.ReasonStopped, "idle", p.Message)
		case "elicitation_dialog", "agent_needs_input":
			stuck(adapter.ReasonPermission, "input", p.Message)
		default:
			ev.Kind = adapter.KindTouch
		}
		ev.Backup = ev.Kind == adapter.KindStuck
	case "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "PermissionDenied":
		ev.Kind = adapter.KindUnstuck
	case "SessionEnd":
		ev.Kind, ev.Detail = adapter.KindEnd, p.Reason
	default:
		return false
	}
	return true
}

// Details of the tools that exist to ask the human something.
const (
	DetailQuestion = "question"
	DetailPlan     = "plan"
)

// humanTool reports whether tool is one that waits on the human by design (AskUserQuestion,
// ExitPlanMode), with the detail and summary that say what it asks.
func humanTool(tool string, input json.RawMessage) (detail, summary string, ok bool) {
	switch tool {
	case "AskUserQuestion":
		return DetailQuestion, questionSummary(input), true
	case "ExitPlanMode":
		return DetailPlan, planSummary(input), true
	}
	return "", "", false
}

// failureSummary says why a turn died. Claude Code 2.1.197 sends error "unknown" with no
// details and puts the API's words in last_assistant_message; "unknown" tells the operator
// nothing, so it is left out.
func failureSummary(p *hookPayload) string {
	errText := adapter.RawText(p.Error)
	if strings.EqualFold(errText, "unknown") {
		errText = ""
	}
	msg := adapter.JoinNonEmpty(": ", errText, adapter.RawText(p.ErrorDetails))
	summary := adapter.JoinNonEmpty(" — ", msg, adapter.Deref(p.LastMessage))
	if summary == "" {
		return "the request to the model failed"
	}
	return summary
}

// toolSummary says what a tool wants to do, in the words the operator needs to decide.
func toolSummary(tool string, input json.RawMessage) string {
	var in struct {
		Command     string `json:"command"`
		FilePath    string `json:"file_path"`
		NotebookPth string `json:"notebook_path"`
		URL         string `json:"url"`
		Pattern     string `json:"pattern"`
		Query       string `json:"query"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(input, &in) // a tool_input of another shape leaves the fields empty
	for _, s := range []string{in.Command, in.FilePath, in.NotebookPth, in.URL, in.Pattern, in.Query, in.Description} {
		if s != "" {
			return tool + ": " + s
		}
	}
	if len(input) > 0 && !bytes.Equal(input, []byte("null")) {
		return tool + " " + string(input)
	}
	return tool
}

func questionSummary(input json.RawMessage) string {
	var in struct {
		Questions []struct {
			Question string `json:"question"`
			Options  []struct {
				Label string `json:"label"`
			} `json:"options"`
		} `json:"questions"`
	}
	if json.Unmarshal(input, &in) != nil || len(in.Questions) == 0 {
		return "a question"
	}
	q := in.Questions[0]
	labels := make([]string, 0, len(q.Options))
	for _, o := range q.Options {
		labels = append(labels, o.Label)
	}
	if len(labels) == 0 {
		return q.Question
	}
	return q.Question + " [" + strings.Join(labels, " / ") + "]"
}

func planSummary(input json.RawMessage) string {
	var in struct {
		Plan string `json:"plan"`
	}
	if json.Unmarshal(input, &in) != nil || in.Plan == "" {
		return "plan ready for approval"
	}
	return "plan: " + in.Plan
}
