package adapter

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Claude Code and Codex CLI run hooks of one shape (Codex's follow Claude Code's): a JSON
// object on standard input naming the session and the hook event. This is the skeleton
// both parse with; each harness's adapter supplies only what its hook events mean.

// Meta is what arrives beside a payload: the environment of the hook or program the harness
// ran, read by the emitter.
type Meta struct {
	Pane      string    // TMUX_PANE, or "" outside tmux
	Tmux      string    // TMUX ("socket,pid,index"), or ""
	EmittedAt time.Time // when the harness ran it; the event's source time
}

// HookPayload holds the fields of a hook's stdin JSON that matter to Trail Boss. Harnesses
// add optional fields often, so unknown ones are ignored.
type HookPayload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath *string         `json:"transcript_path"` // Codex may send null
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
	ToolUseID      string          `json:"tool_use_id"`
	Prompt         string          `json:"prompt"`
	PermissionMode string          `json:"permission_mode"`
	TurnID         string          `json:"turn_id"` // Codex's; Claude Code sends none
}

// Stuck makes e say its session waits for its human, for reason, with a finer detail and
// the words that say what it waits for.
func (e *Event) Stuck(reason, detail, summary string) {
	e.Kind, e.Reason, e.Detail, e.Summary = KindStuck, reason, detail, summary
}

// ClassifyHook sets ev from the hook events whose meaning Claude Code and Codex share — a
// session starting or ending, a turn ending or dying on an API error, a prompt or a tool
// that ran — and reports false for any other, which a harness's own classifier handles.
func ClassifyHook(ev *Event, p *HookPayload) bool {
	switch p.HookEventName {
	case "SessionStart":
		ev.Kind, ev.Detail = KindStart, p.Source
	case "Stop":
		ev.Stuck(ReasonStopped, "", Deref(p.LastMessage))
	case "StopFailure":
		// The turn died on an API error; Stop does not fire, so this is the only signal.
		ev.Stuck(ReasonStopped, "error", failureSummary(p))
	case "UserPromptSubmit", "PostToolUse", "PostToolUseFailure":
		// The human answered, or a tool ran: the session moved on.
		ev.Kind = KindUnstuck
	case "SessionEnd":
		ev.Kind, ev.Detail = KindEnd, p.Reason
	default:
		return false
	}
	return true
}

// failureSummary says why a turn died. Claude Code 2.1.197 sends error "unknown" with no
// details and puts the API's words in last_assistant_message; "unknown" tells the operator
// nothing, so it is left out.
func failureSummary(p *HookPayload) string {
	errText := RawText(p.Error)
	if strings.EqualFold(errText, "unknown") {
		errText = ""
	}
	msg := JoinNonEmpty(": ", errText, RawText(p.ErrorDetails))
	if summary := JoinNonEmpty(" — ", msg, Deref(p.LastMessage)); summary != "" {
		return summary
	}
	return "the request to the model failed"
}

// HookClassifier sets ev's kind, reason, detail and summary from what hook p says, and
// reports false for a hook event the harness's adapter does not use.
type HookClassifier func(ev *Event, p *HookPayload) bool

// ParseHook turns one hook payload of harness into an Event: DecodeHook, then HookEvent.
func ParseHook(harness string, body []byte, meta Meta, classify HookClassifier, unused error) (Event, error) {
	p, err := DecodeHook(body)
	if err != nil {
		return Event{}, err
	}
	return HookEvent(harness, &p, meta, classify, unused)
}

// DecodeHook reads one hook payload. It returns an error wrapping ErrInvalid for a payload
// that is not one JSON object with a hook_event_name.
func DecodeHook(body []byte) (HookPayload, error) {
	var p HookPayload
	if err := DecodeOne(body, &p, "hook payload"); err != nil {
		return HookPayload{}, err
	}
	if p.HookEventName == "" {
		return HookPayload{}, fmt.Errorf("%w: missing hook_event_name", ErrInvalid)
	}
	return p, nil
}

// HookEvent turns hook payload p of harness, decoded, into an Event: the session, pane, tmux
// server, transcript, folder and time from p and meta, the rest from classify. It returns an
// error wrapping ErrInvalid for a payload without a session_id or a bad TMUX, and unused
// (naming the event) for a valid payload of a hook classify does not use.
func HookEvent(harness string, p *HookPayload, meta Meta, classify HookClassifier, unused error) (Event, error) {
	socket, err := SocketFromTmuxEnv(meta.Tmux)
	if err != nil {
		return Event{}, err
	}
	ev := Event{
		Harness:        harness,
		SessionID:      p.SessionID,
		Pane:           meta.Pane,
		TmuxSocket:     socket,
		TranscriptPath: Deref(p.TranscriptPath),
		Cwd:            p.Cwd,
		At:             meta.EmittedAt,
		Turn:           p.TurnID,
	}
	return Finish(ev, classify(&ev, p), p.HookEventName, unused)
}

// Finish cleans ev's words for one terminal line and validates it. For an event the
// adapter does not use (known false) it still validates the identity fields, then returns
// unused naming the event.
func Finish(ev Event, known bool, name string, unused error) (Event, error) {
	if !known {
		ev.Kind = KindTouch
		if err := ev.Validate(); err != nil {
			return Event{}, err
		}
		return Event{}, fmt.Errorf("%w: %q", unused, CleanText(name, 60))
	}
	ev.Summary = CleanText(ev.Summary, MaxSummaryLen)
	ev.Detail = CleanText(ev.Detail, 80)
	if err := ev.Validate(); err != nil {
		return Event{}, err
	}
	return ev, nil
}
