// Package gemini turns Gemini CLI's hook payloads into adapter Events. It is the only
// package that knows Gemini CLI (observed: ../shared/GEMINI.md, 0.61.0).
//
// Gemini's hooks are Claude-like (a JSON object on stdin naming the session and the event)
// but its own events: BeforeAgent (a prompt submitted), AfterAgent (the turn's end, with its
// words), Notification ToolPermission (a permission dialog, or for details.type ask_user a
// question), BeforeTool and AfterTool, SessionStart and SessionEnd. It runs each hook
// synchronously, one after another, so they arrive in the order of what they tell.
//
// No hook can approve in Gemini (a BeforeTool "allow" does not skip the dialog): a
// permission is answered from afar by keys, the option chosen by its label on the screen
// (adapter/prompt reads Gemini's dialogs), and nothing here ever holds.
package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// Harness is the harness name Gemini CLI events carry.
const Harness = adapter.HarnessGemini

// Command is the name Gemini CLI's process runs under (a tmux pane's current command): the
// screen adapter finds its panes by it.
const Command = "gemini"

// ErrUnknownEvent is returned for a valid payload of a hook Trail Boss does not use
// (BeforeModel, PreCompress, a BeforeTool of another tool than ask_user): acknowledged,
// nothing changes.
var ErrUnknownEvent = fmt.Errorf("gemini %w", adapter.ErrIgnored)

// AskUserTool is the tool whose dialog is a question: its BeforeTool carries the question
// and options, and its Notification (details.type ask_user) names neither.
const AskUserTool = "ask_user"

// payload is what Trail Boss reads of a Gemini hook's stdin. Unknown fields are ignored.
type payload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	Source         string          `json:"source"`          // SessionStart
	Reason         string          `json:"reason"`          // SessionEnd
	PromptResponse string          `json:"prompt_response"` // AfterAgent: the turn's words
	ToolName       string          `json:"tool_name"`       // BeforeTool, AfterTool
	ToolInput      json.RawMessage `json:"tool_input"`
	Notification   string          `json:"notification_type"` // Notification: ToolPermission
	Message        string          `json:"message"`
	Details        struct {
		Type    string `json:"type"` // exec, edit, …, or ask_user
		Title   string `json:"title"`
		Command string `json:"command"`
	} `json:"details"`
}

// SpoolFields are the top-level fields of a payload the adapter reads: what a spooled
// payload keeps (an AfterTool's tool_response can be megabytes).
var SpoolFields = []string{"session_id", "transcript_path", "cwd", "hook_event_name", "source", "reason",
	"prompt_response", "tool_name", "tool_input", "notification_type", "message", "details"}

// Parse turns one hook payload into the event it says:
//
//   - SessionStart (at launch) registers the session on its pane;
//   - BeforeAgent, a prompt submitted, and AfterTool, a tool that ran, are unstuck;
//   - AfterAgent is the turn's end: stuck, stopped, with its words;
//   - Notification ToolPermission is stuck for permission with the command, asked as
//     allow / deny; for a question (details.type ask_user) it names no options, so it is
//     a reminder (Backup) that takes the words and options of the ask_user call its
//     BeforeTool announced;
//   - BeforeTool of ask_user announces that call (KindTouch with the Call);
//   - SessionEnd (fired twice on /quit) ends the session.
//
// It returns an error wrapping adapter.ErrInvalid for a payload that is not one JSON object
// with a session_id and a hook_event_name, and ErrUnknownEvent for one of a hook Trail Boss
// does not use.
func Parse(body []byte, meta adapter.Meta) ([]adapter.Event, error) {
	var p payload
	if err := adapter.DecodeOne(body, &p, "gemini hook payload"); err != nil {
		return nil, err
	}
	if p.HookEventName == "" {
		return nil, fmt.Errorf("%w: missing hook_event_name", adapter.ErrInvalid)
	}
	socket, err := adapter.SocketFromTmuxEnv(meta.Tmux)
	if err != nil {
		return nil, err
	}
	ev := adapter.Event{Harness: Harness, SessionID: p.SessionID, Pane: meta.Pane, TmuxSocket: socket,
		TranscriptPath: p.TranscriptPath, Cwd: p.Cwd, At: meta.EmittedAt}
	ev, err = adapter.Finish(ev, classify(&ev, p), p.HookEventName, ErrUnknownEvent)
	if err != nil {
		return nil, err
	}
	return []adapter.Event{ev}, nil
}

func classify(ev *adapter.Event, p payload) bool {
	switch p.HookEventName {
	case "SessionStart":
		ev.Kind, ev.Detail = adapter.KindStart, p.Source
	case "BeforeAgent":
		// A prompt submitted. Not marked Submitted: that guards against a prompt's hook
		// that a parallel hook overtook, which Gemini's hooks, run one at a time, never
		// are; and a dialog closed with Esc fires nothing, so this prompt is what says
		// the session left it.
		ev.Kind, ev.By = adapter.KindUnstuck, adapter.ByHuman
	case "AfterAgent":
		ev.Stuck(adapter.ReasonStopped, "", p.PromptResponse)
	case "AfterTool":
		// It comes only once the command has run, seconds after it ended (3–4 s after
		// the approval beside other builds), and nothing comes between: the deliverer
		// takes the session out itself once an approval typed as keys is seen taken
		// (the registry's silentApproval, daemon/harnesses.go).
		ev.Kind, ev.Call = adapter.KindUnstuck, &adapter.ToolCall{Done: true, Tool: p.ToolName}
	case "BeforeTool":
		if p.ToolName != AskUserTool {
			return false
		}
		qs := questions(p.ToolInput)
		ev.Kind = adapter.KindTouch
		ev.Call = &adapter.ToolCall{Tool: AskUserTool, Detail: "question", Summary: questionSummary(qs), Ask: questionAsk(qs)}
	case "Notification":
		if p.Notification != "ToolPermission" {
			return false
		}
		if p.Details.Type == AskUserTool {
			// Said as Claude Code's permission_prompt reminder is: the engine gives it the
			// words and options of the call its BeforeTool announced.
			ev.Stuck(adapter.ReasonPermission, "notification", "a question: answer it in the pane")
			ev.Backup = true
			return true
		}
		summary := permissionSummary(p)
		ev.Stuck(adapter.ReasonPermission, p.Details.Type, summary)
		if p.Details.Command == "" {
			// Only a command is shown whole on the dialog and checked there before a key
			// is typed: any other permission is answered in the pane.
			ev.Ask = &adapter.Ask{Kind: adapter.AskNone, From: adapter.AskFromHook}
			return true
		}
		ev.Ask = adapter.PermissionAsk(adapter.CleanText(summary, adapter.MaxSummaryLen), adapter.AskFromHook)
	case "SessionEnd":
		ev.Kind, ev.Detail = adapter.KindEnd, p.Reason
	default:
		return false
	}
	return true
}

// permissionSummary says what a permission is for: "Shell: touch x" for a command, else
// the dialog's title or message.
func permissionSummary(p payload) string {
	if p.Details.Command != "" {
		if p.Details.Type == "exec" {
			return "Shell: " + p.Details.Command
		}
		return p.Details.Type + ": " + p.Details.Command
	}
	return adapter.JoinNonEmpty(": ", p.Details.Title, p.Message)
}

// question is one question of an ask_user call.
type question struct {
	Question string `json:"question"`
	Options  []struct {
		Label string `json:"label"`
	} `json:"options"`
}

func questions(input json.RawMessage) []question {
	var in struct {
		Questions []question `json:"questions"`
	}
	_ = json.Unmarshal(input, &in) // another shape: no questions, answered in the pane
	return in.Questions
}

// questionSummary is the first question with its options: "Red or blue? [red / blue]".
func questionSummary(qs []question) string {
	if len(qs) == 0 {
		return "a question"
	}
	labels := make([]string, 0, len(qs[0].Options))
	for _, o := range qs[0].Options {
		labels = append(labels, o.Label)
	}
	s := qs[0].Question
	if len(labels) > 0 {
		s += " [" + strings.Join(labels, " / ") + "]"
	}
	if len(qs) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(qs)-1)
	}
	return s
}

// questionAsk is what a question asks: its options, keys 1, 2, … as Gemini numbers them.
// Several questions, or one without options, are answered in the pane (AskNone).
func questionAsk(qs []question) *adapter.Ask {
	if len(qs) != 1 || len(qs[0].Options) == 0 {
		return &adapter.Ask{Kind: adapter.AskNone, From: adapter.AskFromHook}
	}
	labels := make([]string, len(qs[0].Options))
	for i, o := range qs[0].Options {
		labels[i] = o.Label
	}
	return adapter.MenuAsk(qs[0].Question, labels, adapter.AskFromHook)
}
