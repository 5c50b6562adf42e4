// Package copilot turns GitHub Copilot CLI's hooks and its session's events.jsonl into
// adapter Events. It is the only package that knows Copilot CLI (observed:
// ../shared/COPILOT.md, 1.0.102).
//
// Copilot runs a hook with its camelCase payload on stdin, and the payload does not name
// its event: Trail Boss's hook file (`trailboss setup --copilot`) runs
// `trailboss-hot emit --copilot EVENT`, and the emitter wraps the payload in an Envelope
// that names it, with what it read for it from the session's events.jsonl (the turn's last
// words, a question's options), which no payload carries.
package copilot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Harness is the harness name Copilot events carry.
const Harness = adapter.HarnessCopilot

// Name is Copilot CLI as its users know it: the daemon's words for its waits name it.
const Name = "Copilot CLI"

// ErrUnknownEvent is returned for a valid payload of a hook Trail Boss does not use (a
// notification of another type, a subagent's stop): acknowledged, nothing changes.
var ErrUnknownEvent = fmt.Errorf("copilot %w", adapter.ErrIgnored)

// The hook events Trail Boss registers, as Copilot names them in its hook files. Never
// preToolUse: a preToolUse hook that fails denies the tool (COPILOT.md).
const (
	SessionStart       = "sessionStart"
	UserPromptSubmit   = "userPromptSubmitted"
	PermissionRequest  = "permissionRequest"
	Notification       = "notification"
	PostToolUse        = "postToolUse"
	PostToolUseFailure = "postToolUseFailure"
	AgentStop          = "agentStop"
	SessionEnd         = "sessionEnd"
)

// Events are the hook events Trail Boss registers, in the order its hook file lists them.
var Events = []string{SessionStart, UserPromptSubmit, PermissionRequest, Notification,
	PostToolUse, PostToolUseFailure, AgentStop, SessionEnd}

// Notification types that say Copilot waits for its human.
const (
	notePermission  = "permission_prompt"  // its permission dialog is on screen
	noteElicitation = "elicitation_dialog" // ask_user's question is on screen
)

// Envelope is what the emitter sends for one hook: the event's name, the payload as
// Copilot gave it, and what the emitter read for it.
type Envelope struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	// Home is Copilot's configuration folder ($COPILOT_HOME, else ~/.copilot) as the
	// hook's environment says: where the session's events.jsonl is.
	Home string `json:"home,omitempty"`
	// Words is the turn's last assistant text, for an agentStop.
	Words string `json:"words,omitempty"`
	// Question is what ask_user asked, for an elicitation_dialog notification.
	Question *Question `json:"question,omitempty"`
	// CanHold says the hook holds for the operator's answer (a permissionRequest, with
	// holding on): Copilot shows no dialog while it holds, so the wait is queued now.
	CanHold bool `json:"canHold,omitempty"`
}

// Question is one ask_user call: its message, and the options of its one choice field.
type Question struct {
	Message string   `json:"message"`
	Options []string `json:"options,omitempty"`
}

// Payload holds the fields of Copilot's hook payloads that Trail Boss reads.
type Payload struct {
	SessionID  string          `json:"sessionId"`
	Timestamp  float64         `json:"timestamp"` // milliseconds since the epoch
	Cwd        string          `json:"cwd"`
	Source     string          `json:"source"`            // sessionStart
	Reason     string          `json:"reason"`            // sessionEnd
	ToolName   string          `json:"toolName"`          // permissionRequest, postToolUse
	ToolInput  json.RawMessage `json:"toolInput"`         // permissionRequest
	Message    string          `json:"message"`           // notification
	NoteType   string          `json:"notification_type"` // notification
	Transcript string          `json:"transcriptPath"`    // agentStop
	StopReason string          `json:"stopReason"`        // agentStop
}

// Hook is one envelope, decoded once where the daemon takes it in: the envelope and the
// payload it carries.
type Hook struct {
	Envelope Envelope
	Payload  Payload
}

// DecodeHook reads one envelope and its payload. It returns an error wrapping
// adapter.ErrInvalid for one that is not a JSON object naming an event, with a payload
// object.
func DecodeHook(body []byte) (Hook, error) {
	var env Envelope
	if err := adapter.DecodeOne(body, &env, "copilot envelope"); err != nil {
		return Hook{}, err
	}
	if env.Event == "" {
		return Hook{}, fmt.Errorf("%w: copilot envelope: missing event", adapter.ErrInvalid)
	}
	p, err := DecodePayload(env.Payload)
	if err != nil {
		return Hook{}, err
	}
	return Hook{Envelope: env, Payload: p}, nil
}

// DecodePayload reads one hook payload as Copilot gave it. It returns an error wrapping
// adapter.ErrInvalid for one that is not a JSON object.
func DecodePayload(raw []byte) (Payload, error) {
	var p Payload
	if err := adapter.DecodeOne(raw, &p, "copilot payload"); err != nil {
		return Payload{}, err
	}
	return p, nil
}

// Events returns the event h says, with where and when its hook ran:
//
//   - sessionStart registers the session on its pane (it fires at the first prompt);
//   - userPromptSubmitted is a prompt: unstuck, by its human;
//   - permissionRequest that the hook holds is stuck for permission with the command (no
//     dialog is shown while it holds); one not held says nothing yet (it fires before
//     Copilot's rules, also for calls they approve): only the session's place;
//   - a notification permission_prompt is the dialog on screen: stuck for permission; an
//     elicitation_dialog is ask_user's question: stuck, with its options as a menu;
//   - postToolUse and postToolUseFailure are a tool that ran (or was refused): unstuck;
//   - agentStop is the turn's end: stuck, stopped, with its last words;
//   - sessionEnd ends the session.
//
// Every event carries its transcript, the session's events.jsonl under the envelope's
// Home, which the reconciler follows (an Esc, which no hook reports, is written there). It
// returns an error wrapping adapter.ErrInvalid for a malformed envelope, and
// ErrUnknownEvent for one Trail Boss does not use.
func (h Hook) Events(meta adapter.Meta) ([]adapter.Event, error) {
	env, p := h.Envelope, h.Payload
	socket, err := adapter.SocketFromTmuxEnv(meta.Tmux)
	if err != nil {
		return nil, err
	}
	ev := adapter.Event{Harness: Harness, SessionID: p.SessionID, Pane: meta.Pane, TmuxSocket: socket,
		Cwd: p.Cwd, At: meta.EmittedAt, TranscriptPath: TranscriptPath(env.Home, p.SessionID)}
	if p.Transcript != "" && ev.TranscriptPath == "" {
		ev.TranscriptPath = p.Transcript
	}
	ev, err = adapter.Finish(ev, classify(&ev, env, p), env.Event, ErrUnknownEvent)
	if err != nil {
		return nil, err
	}
	return []adapter.Event{ev}, nil
}

// Holdable reports whether h may hold for the operator's answer: a permissionRequest whose
// hook said it holds.
func (h Hook) Holdable() bool { return h.Envelope.CanHold && Holdable(h.Envelope.Event) }

func classify(ev *adapter.Event, env Envelope, p Payload) bool {
	switch env.Event {
	case SessionStart:
		ev.Kind, ev.Detail = adapter.KindStart, p.Source
	case UserPromptSubmit:
		ev.Kind, ev.By, ev.Submitted = adapter.KindUnstuck, adapter.ByHuman, true
	case PermissionRequest:
		if !env.CanHold {
			ev.Kind = adapter.KindTouch
			return true
		}
		cmd := commandOf(p.ToolInput)
		ev.Stuck(adapter.ReasonPermission, p.ToolName, toolSummary(p.ToolName, cmd))
		ev.Ask = adapter.PermissionAsk(adapter.CleanText(askWords(p.ToolName, cmd), adapter.MaxSummaryLen), adapter.AskFromHook)
		ev.Ask.Subject = Subject(p.ToolName, p.ToolInput)
	case Notification:
		switch p.NoteType {
		case notePermission:
			what := strings.TrimSpace(p.Message)
			ev.Stuck(adapter.ReasonPermission, "", what)
			ev.Ask = adapter.PermissionAsk(adapter.CleanText(what, adapter.MaxSummaryLen), adapter.AskFromHook)
		case noteElicitation:
			ev.Stuck(adapter.ReasonPermission, adapter.DetailQuestion, questionSummary(env.Question, p.Message))
			ev.Ask = questionAsk(env.Question)
		default:
			return false
		}
	case PostToolUse, PostToolUseFailure:
		ev.Kind = adapter.KindUnstuck
	case AgentStop:
		ev.Stuck(adapter.ReasonStopped, "", env.Words)
	case SessionEnd:
		ev.Kind, ev.Detail = adapter.KindEnd, p.Reason
	default:
		return false
	}
	return true
}

// commandOf returns the command of a tool's input ({"command": …}), or "".
func commandOf(input json.RawMessage) string {
	var in struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(input, &in) // another shape leaves it empty
	return in.Command
}

// toolSummary says what a permission is for: "bash: touch x".
func toolSummary(tool, cmd string) string {
	if tool == "" {
		tool = "tool"
	}
	if cmd == "" {
		return tool
	}
	return tool + ": " + cmd
}

// askWords is a permission's question as Copilot's own notification words it ("Run
// command: touch x"), so that a dialog asked by the hook and by the notification read
// alike.
func askWords(tool, cmd string) string {
	if cmd == "" {
		return toolSummary(tool, "")
	}
	return "Run command: " + cmd
}

// questionSummary is a question with its options: "Which colour? [Red / Blue]".
func questionSummary(q *Question, fallback string) string {
	if q == nil || q.Message == "" {
		return fallback
	}
	if len(q.Options) == 0 {
		return q.Message
	}
	return q.Message + " [" + strings.Join(q.Options, " / ") + "]"
}

// questionAsk is what an ask_user question asks: its options as a menu, or, without
// them, an answer in the pane only.
func questionAsk(q *Question) *adapter.Ask {
	if q == nil || len(q.Options) == 0 {
		return &adapter.Ask{Kind: adapter.AskNone, From: adapter.AskFromHook}
	}
	return adapter.MenuAsk(q.Message, q.Options, adapter.AskFromHook)
}

// Subject fingerprints a permission request, its tool and whole input, so that a held hook
// takes only an answer given for its own request.
func Subject(tool string, input json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(input)
	return "copilot:" + hex.EncodeToString(h.Sum(nil))[:32]
}

// Holdable reports whether a hook of event may hold for the operator's answer: a
// permissionRequest, which Copilot waits on and takes a decision from.
func Holdable(event string) bool { return event == PermissionRequest }

// Decision is what a held permissionRequest hook prints for Copilot.
type Decision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}

// DecisionFor returns the decision of choice ("allow" or "deny"), or an error when the
// choice decides nothing.
func DecisionFor(choice string) (Decision, error) {
	switch choice {
	case adapter.ChoiceAllow:
		return Decision{Behavior: "allow"}, nil
	case adapter.ChoiceDeny:
		return Decision{Behavior: "deny", Message: "Denied by the user through Trail Boss."}, nil
	}
	return Decision{}, fmt.Errorf("%q is neither allow nor deny", adapter.CleanText(choice, 20))
}

// Home returns Copilot's configuration folder in a hook's environment: $COPILOT_HOME, else
// the folder of the hook file's folder when that is its hooks folder, else ~/.copilot; ""
// when none is known.
func Home(getenv func(string) string) string {
	if h := getenv("COPILOT_HOME"); filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	if d := getenv("COPILOT_HOOK_DIR"); filepath.IsAbs(d) && filepath.Base(d) == "hooks" {
		return filepath.Dir(filepath.Clean(d))
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".copilot")
	}
	return ""
}

// TranscriptPath returns session's events.jsonl under Copilot's folder home, or "" when
// either is unknown or the session id could name another folder.
func TranscriptPath(home, session string) string {
	if home == "" || !filepath.IsAbs(home) || session == "" || strings.ContainsAny(session, `/\`) ||
		session == "." || session == ".." {
		return ""
	}
	return filepath.Join(home, "session-state", session, "events.jsonl")
}

// Time is when Copilot ran the hook (the payload's timestamp, in milliseconds), or fallback
// when it did not say or says nonsense: its notification hooks run in parallel with the
// others, and their own clock keeps their order.
func (p Payload) Time(fallback time.Time) time.Time {
	if p.Timestamp <= 0 || math.IsInf(p.Timestamp, 0) || math.IsNaN(p.Timestamp) {
		return fallback
	}
	at := time.UnixMicro(int64(math.Round(p.Timestamp * 1000)))
	if at.Before(fallback.Add(-time.Hour)) || at.After(fallback.Add(time.Minute)) {
		return fallback
	}
	return at
}
