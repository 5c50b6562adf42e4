// Package opencode turns what OpenCode's TUI says to Trail Boss's plugin into adapter
// Events. OpenCode has no shell hooks: a plugin file runs inside the TUI's process and sees
// every event of its bus; Trail Boss's (hooks/install/opencode.js) hands the few that say
// something about waiting to `trailboss emit --opencode`, one JSON object each. It is the
// only package that knows OpenCode (observed: ../shared/OPENCODE.md, 1.18.33).
package opencode

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// Harness is the harness name OpenCode events carry.
const Harness = adapter.HarnessOpenCode

// Command is the name OpenCode's process runs under (a tmux pane's current command): the
// screen adapter finds its panes by it.
const Command = "opencode"

// ErrUnknownEvent is returned for a valid payload of a bus event Trail Boss does not use
// (a session.status other than busy, a subagent's session): acknowledged, nothing changes.
var ErrUnknownEvent = fmt.Errorf("opencode %w", adapter.ErrIgnored)

// The event types the plugin forwards: OpenCode's bus events as they are named there, and
// "dispose", the plugin's own word for its dispose hook (OpenCode quitting: no bus event
// says so).
const (
	SessionCreated    = "session.created"
	SessionStatus     = "session.status"
	SessionIdle       = "session.idle"
	PermissionAsked   = "permission.asked"
	PermissionReplied = "permission.replied"
	QuestionAsked     = "question.asked"
	QuestionReplied   = "question.replied"
	QuestionRejected  = "question.rejected"
	Dispose           = "dispose"
)

// Payload is what the plugin sends for one event: the bus event's type and properties as
// OpenCode gave them, the turn's last assistant text for a session.idle (the plugin follows
// the message parts, which are not sent), and when the plugin saw it.
type Payload struct {
	Type       string     `json:"type"`
	Properties Properties `json:"properties"`
	Text       string     `json:"text,omitempty"`
	// At is when the plugin saw the event, in milliseconds since the epoch (fractions kept):
	// the event's source time. The plugin's events are sent by processes that start in
	// parallel, so the moment each started says less than this.
	At float64 `json:"at,omitempty"`
	// Plugin and PID are what the plugin says of itself as it loads ("plugin.loaded",
	// which the emitter keeps for trailboss doctor and never sends to the daemon).
	Plugin string `json:"plugin,omitempty"`
	PID    int    `json:"pid,omitempty"`
}

// PluginLoaded is the plugin's own event as it loads (see Payload's Plugin).
const PluginLoaded = "plugin.loaded"

// Properties holds the fields of the events' properties that Trail Boss reads.
type Properties struct {
	SessionID string `json:"sessionID"`
	// session.created
	Info *struct {
		Directory string `json:"directory"`
		ParentID  string `json:"parentID"`
	} `json:"info,omitempty"`
	// session.status
	Status *struct {
		Type string `json:"type"`
	} `json:"status,omitempty"`
	// permission.asked and question.asked: the request's id ("per_…", "que_…")
	ID string `json:"id"`
	// permission.asked
	Permission string   `json:"permission"`
	Patterns   []string `json:"patterns"`
	Metadata   struct {
		Command     string   `json:"command"`
		Directories []string `json:"directories"`
	} `json:"metadata"`
	// question.asked
	Questions []Question `json:"questions"`
}

// Question is one question of a question.asked.
type Question struct {
	Question string `json:"question"`
	Header   string `json:"header"`
	Options  []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
}

// DecodePayload reads one plugin payload. It returns an error wrapping adapter.ErrInvalid
// for a body that is not one JSON object with a type and a session.
func DecodePayload(body []byte) (Payload, error) {
	var p Payload
	if err := adapter.DecodeOne(body, &p, "opencode payload"); err != nil {
		return Payload{}, err
	}
	if p.Type == "" {
		return Payload{}, fmt.Errorf("%w: opencode payload: missing type", adapter.ErrInvalid)
	}
	return p, nil
}

// Events returns the event p says, with where and when the plugin sent it:
//
//   - session.created registers the session on its pane (a subagent's session, which has a
//     parent, is nobody's: ignored);
//   - session.status busy is the session at work again (a new prompt, an answered ask):
//     unstuck; other statuses are ignored (session.idle says the turn ended);
//   - session.idle is the turn's end: stuck, stopped, with its last assistant text;
//   - permission.asked is stuck for permission, with the command or the folders, asked as
//     allow / deny; question.asked is stuck on a question, with its options as a menu;
//   - permission.replied, question.replied and question.rejected are answered: unstuck;
//   - dispose is OpenCode quitting: the session ends.
//
// It returns an error wrapping adapter.ErrInvalid for a malformed payload, and
// ErrUnknownEvent for one of an event Trail Boss does not use.
func (p Payload) Events(meta adapter.Meta) ([]adapter.Event, error) {
	socket, err := adapter.SocketFromTmuxEnv(meta.Tmux)
	if err != nil {
		return nil, err
	}
	ev := adapter.Event{Harness: Harness, SessionID: p.Properties.SessionID, Pane: meta.Pane,
		TmuxSocket: socket, At: meta.EmittedAt}
	known := classify(&ev, p)
	ev, err = adapter.Finish(ev, known, p.Type, ErrUnknownEvent)
	if err != nil {
		return nil, err
	}
	return []adapter.Event{ev}, nil
}

func classify(ev *adapter.Event, p Payload) bool {
	props := p.Properties
	switch p.Type {
	case SessionCreated:
		if props.Info != nil && props.Info.ParentID != "" {
			return false // a subagent's session: its parent's pane is the place
		}
		ev.Kind = adapter.KindStart
		if props.Info != nil {
			ev.Cwd = props.Info.Directory
		}
	case SessionStatus:
		if props.Status == nil || props.Status.Type != "busy" {
			return false
		}
		ev.Kind = adapter.KindUnstuck
	case SessionIdle:
		ev.Stuck(adapter.ReasonStopped, "", p.Text)
	case PermissionAsked:
		summary := permissionSummary(props)
		ev.Stuck(adapter.ReasonPermission, props.Permission, summary)
		ev.Ask = adapter.PermissionAsk(adapter.CleanText(summary, adapter.MaxSummaryLen), adapter.AskFromHook)
		ev.Ask.Subject = props.ID
	case QuestionAsked:
		ev.Stuck(adapter.ReasonPermission, "question", questionSummary(props.Questions))
		ev.Ask = questionAsk(props.Questions)
		ev.Ask.Subject = props.ID
	case PermissionReplied, QuestionReplied, QuestionRejected:
		ev.Kind, ev.By = adapter.KindUnstuck, adapter.ByHuman
	case Dispose:
		ev.Kind = adapter.KindEnd
	default:
		return false
	}
	return true
}

// permissionSummary says what a permission is for: "bash: touch x", or for a folder
// outside the project "external_directory: /tmp/elsewhere".
func permissionSummary(props Properties) string {
	what := props.Permission
	if what == "" {
		what = "permission"
	}
	switch {
	case props.Metadata.Command != "" && props.Permission == "bash":
		return what + ": " + props.Metadata.Command
	case len(props.Metadata.Directories) > 0:
		return what + ": " + strings.Join(props.Metadata.Directories, " ")
	case props.Metadata.Command != "":
		return what + ": " + props.Metadata.Command
	case len(props.Patterns) > 0:
		return what + ": " + strings.Join(props.Patterns, " ")
	}
	return what
}

// questionSummary is the first question with its options: "Which colour? [Red / Blue]".
func questionSummary(qs []Question) string {
	if len(qs) == 0 {
		return "a question"
	}
	q := qs[0]
	labels := make([]string, 0, len(q.Options))
	for _, o := range q.Options {
		labels = append(labels, o.Label)
	}
	s := q.Question
	if len(labels) > 0 {
		s += " [" + strings.Join(labels, " / ") + "]"
	}
	if len(qs) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(qs)-1)
	}
	return s
}

// questionAsk is what a question asks: its options, keys 1, 2, … as OpenCode numbers them.
// Several questions, or one without options, are answered in the pane (AskNone): one choice
// from afar cannot answer them.
func questionAsk(qs []Question) *adapter.Ask {
	if len(qs) != 1 || len(qs[0].Options) == 0 {
		return &adapter.Ask{Kind: adapter.AskNone, From: adapter.AskFromHook}
	}
	q := qs[0]
	labels := make([]string, len(q.Options))
	for i, o := range q.Options {
		labels[i] = o.Label
	}
	return adapter.MenuAsk(q.Question, labels, adapter.AskFromHook)
}

// Holdable reports whether p may hold for the operator's answer: a permission or a
// question, which OpenCode shows until it is answered, from its keyboard or through the
// plugin's client, whichever is first.
func (p Payload) Holdable() bool { return p.Type == PermissionAsked || p.Type == QuestionAsked }

// Reply is what the plugin does with an operator's answer to the request it holds for:
// for a permission, Reply "once" or "reject"; for a question, Answers (one list of
// chosen labels per question).
type Reply struct {
	RequestID string     `json:"requestID"`
	Reply     string     `json:"reply,omitempty"`
	Answers   [][]string `json:"answers,omitempty"`
}

// ReplyFor returns the reply to p's request for the choice key the operator gave, or an
// error when the choice answers nothing of it.
func (p Payload) ReplyFor(choice string) (Reply, error) {
	r := Reply{RequestID: p.Properties.ID}
	switch p.Type {
	case PermissionAsked:
		switch choice {
		case "allow":
			r.Reply = "once"
		case "deny":
			r.Reply = "reject"
		default:
			return Reply{}, fmt.Errorf("%q is neither allow nor deny", adapter.CleanText(choice, 20))
		}
	case QuestionAsked:
		ask := questionAsk(p.Properties.Questions)
		label := ask.Label(choice)
		if label == "" {
			return Reply{}, fmt.Errorf("choice %q is none of the question's options", adapter.CleanText(choice, 20))
		}
		i, _ := strconv.Atoi(choice)
		r.Answers = [][]string{{p.Properties.Questions[0].Options[i-1].Label}} // the label as OpenCode has it, uncleaned
	default:
		return Reply{}, fmt.Errorf("a %s asks nothing", adapter.CleanText(p.Type, 40))
	}
	return r, nil
}
