// Package claude turns Claude Code's signals into adapter Events: hook payloads (hook.go)
// and transcript lines (transcript.go). It is the only package that knows Claude Code.
package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// Harness is the harness name Claude Code events carry.
const Harness = adapter.HarnessClaude

// Command is the name Claude Code's process runs under (a tmux pane's current command):
// the screen adapter finds its panes by it.
const Command = "claude"

// Meta is what arrives beside a hook payload.
type Meta = adapter.Meta

// ErrUnknownEvent is returned for a hook event that says nothing about waiting (such as
// SubagentStop or PreCompact): the daemon acknowledges it and changes nothing.
var ErrUnknownEvent = fmt.Errorf("hook %w", adapter.ErrIgnored)

// Payload is one Claude Code hook payload, decoded once where it comes in (the emitter and
// the daemon each read it once) and passed on: what it says, and whether it may hold.
type Payload struct {
	adapter.HookPayload
}

// DecodeHook reads one hook payload. It returns an error wrapping adapter.ErrInvalid for a
// payload that is not one JSON object with a hook_event_name.
func DecodeHook(body []byte) (Payload, error) {
	p, err := adapter.DecodeHook(body)
	return Payload{p}, err
}

// Events returns the event p says, with where and when its hook ran. It returns an error
// wrapping adapter.ErrInvalid for a payload without a session_id or of an unknown shape,
// and ErrUnknownEvent for a valid payload of an event we do not use.
func (p Payload) Events(meta Meta) ([]adapter.Event, error) {
	ev, err := p.event(meta)
	if err != nil {
		return nil, err
	}
	return []adapter.Event{ev}, nil
}

func (p Payload) event(meta Meta) (adapter.Event, error) {
	return adapter.HookEvent(Harness, &p.HookPayload, meta, classify, ErrUnknownEvent)
}

// Holdable reports whether p may hold for an answer: a PermissionRequest, whose dialog is on
// screen while its hook runs; never a PreToolUse, which runs before its dialog is drawn.
func (p Payload) Holdable() bool { return p.HookEventName == "PermissionRequest" }

// classify sets what a Claude Code hook event says of its own: a question or a plan, a
// permission, a notification; the rest is adapter.ClassifyHook's.
func classify(ev *adapter.Event, p *adapter.HookPayload) bool {
	switch p.HookEventName {
	case "PermissionRequest":
		// Claude Code 2.1.197 asks permission for the question or plan it has just shown:
		// the same wait as the PreToolUse before it, so it says the same.
		call := PendingCall("", p.ToolName, p.PermissionMode, p.ToolInput)
		ev.Stuck(adapter.ReasonPermission, call.Detail, call.Summary)
		ev.Ask = call.Ask
	case "PreToolUse":
		// A question or a plan blocks on the human as soon as the tool starts. Any other
		// tool is about to run, and most never ask: that alone queues nothing, but the call
		// is what a permission dialog opening now asks about (Claude Code 2.1.332's auto
		// mode fires no PermissionRequest), so it rides along for the daemon to pair.
		// Its Subject is the PermissionRequest's that follows, so that both are one record.
		ev.Call = PendingCall(p.ToolUseID, p.ToolName, p.PermissionMode, p.ToolInput)
		if asksHuman(p.ToolName) {
			ev.Stuck(adapter.ReasonPermission, ev.Call.Detail, ev.Call.Summary)
			ev.Ask = ev.Call.Ask
			break
		}
		ev.Kind = adapter.KindTouch
	case "PostToolUse", "PostToolUseFailure":
		ev.Kind = adapter.KindUnstuck
		if p.ToolUseID != "" {
			ev.Call = &adapter.ToolCall{ID: p.ToolUseID, Done: true, Tool: p.ToolName}
		}
	case "UserPromptSubmit":
		ev.Kind, ev.By, ev.Submitted = adapter.KindUnstuck, promptBy(p.Source, p.Prompt), true
	case "Notification":
		// Late backups: permission_prompt comes 6 s after a dialog, idle_prompt after 60 s idle.
		switch p.Notification {
		case "permission_prompt":
			ev.Stuck(adapter.ReasonPermission, "notification", p.Message)
		case "idle_prompt":
			ev.Stuck(adapter.ReasonStopped, "idle", p.Message)
		case "elicitation_dialog", "agent_needs_input":
			// A dialog of its own (2.1.332's "Auto mode can't check actions" offer): not a
			// yes or no, so it is answered in its pane.
			ev.Stuck(adapter.ReasonPermission, "input", p.Message)
			ev.Ask = &adapter.Ask{Kind: adapter.AskNone, From: adapter.AskFromHook}
		default:
			ev.Kind = adapter.KindTouch
		}
		ev.Backup = ev.Kind == adapter.KindStuck
	case "PermissionDenied":
		ev.Kind = adapter.KindUnstuck
	default:
		return adapter.ClassifyHook(ev, p)
	}
	return true
}

// PendingCall is tool call id of tool with input, about to run in permission mode mode,
// with the words and Ask that a permission for it is queued with: for a question or a plan
// what it asks, for any other tool what it wants to do, allow or deny. Its Ask's Subject
// fingerprints the whole call, as the PermissionRequest for it does.
func PendingCall(id, tool, mode string, input json.RawMessage) *adapter.ToolCall {
	call := &adapter.ToolCall{ID: id, Tool: tool, Mode: mode}
	if detail, summary, ask, ok := humanTool(tool, input); ok {
		call.Detail, call.Summary, call.Ask = detail, summary, ask
	} else {
		call.Detail, call.Summary = tool, toolSummary(tool, input)
		call.Ask = adapter.PermissionAsk(adapter.CleanText(call.Summary, adapter.MaxSummaryLen), adapter.AskFromHook)
	}
	call.Summary = adapter.CleanText(call.Summary, adapter.MaxSummaryLen)
	call.Detail = adapter.CleanText(call.Detail, 80)
	call.ID = adapter.CleanText(call.ID, 200)
	call.Ask.Subject = Subject(tool, input)
	return call
}

// taskNotification opens the prompt Claude Code submits by itself when a background task
// ends (observed, 2.1.332): the session was woken, not answered.
const taskNotification = "<task-notification>"

// promptBy says who submitted a prompt: a person, unless Claude Code says another source
// (the SDK types declare "source"; 2.1.332 sent none) or the prompt is a background task's
// notification.
func promptBy(source, prompt string) string {
	if (source != "" && source != "user") || strings.HasPrefix(strings.TrimLeft(prompt, " \t\r\n"), taskNotification) {
		return adapter.ByOther
	}
	return adapter.ByHuman
}

// Details of the tools that exist to ask the human something.
const (
	DetailQuestion = adapter.DetailQuestion
	DetailPlan     = adapter.DetailPlan
)

// humanTool reports whether tool is one that waits on the human by design (AskUserQuestion,
// ExitPlanMode), with the detail and summary that say what it asks and its Ask; its input
// is read once.
func humanTool(tool string, input json.RawMessage) (detail, summary string, ask *adapter.Ask, ok bool) {
	switch tool {
	case "AskUserQuestion":
		in, ok := parseQuestions(input)
		return DetailQuestion, questionSummary(in, ok), questionAsk(in, ok), true
	case "ExitPlanMode":
		summary := planSummary(input)
		return DetailPlan, summary, adapter.PermissionAsk(adapter.CleanText(summary, adapter.MaxSummaryLen), adapter.AskFromHook), true
	}
	return "", "", nil, false
}

// asksHuman reports whether tool is one of humanTool's, without reading its input.
func asksHuman(tool string) bool { return tool == "AskUserQuestion" || tool == "ExitPlanMode" }

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

// questionAsk is what a question asks: its first set of options (keys 1, 2, … as its menu
// numbers them); in, read when ok, is its input.
func questionAsk(in questions, ok bool) *adapter.Ask {
	if !ok || len(in.Questions) != 1 || len(in.Questions[0].Options) == 0 {
		// Several questions are answered one screen after another, which one choice from
		// afar cannot do: they are answered in the pane.
		return &adapter.Ask{Kind: adapter.AskNone, From: adapter.AskFromHook}
	}
	q := in.Questions[0]
	labels := make([]string, len(q.Options))
	for i, o := range q.Options {
		labels[i] = o.Label
	}
	return adapter.MenuAsk(q.Question, labels, adapter.AskFromHook)
}

// questions is AskUserQuestion's tool_input, as far as Trail Boss reads it.
type questions struct {
	Questions []struct {
		Question string `json:"question"`
		Options  []struct {
			Label string `json:"label"`
		} `json:"options"`
	} `json:"questions"`
}

func parseQuestions(input json.RawMessage) (questions, bool) {
	var in questions
	return in, json.Unmarshal(input, &in) == nil
}

func questionSummary(in questions, ok bool) string {
	if !ok || len(in.Questions) == 0 {
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
