package wire

import (
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
)

// Prompt kinds: what an answer to a prompt record looks like. They are the adapter's ask
// kinds, under the names the protocol gives them.
const (
	KindPermission = adapter.AskPermission // choices allow / deny
	KindYesNo      = adapter.AskYesNo      // choices y / n
	KindChoice     = adapter.AskMenu       // choices 1, 2, … (or the menu's own letters)
	KindFreeText   = adapter.AskFreeText   // no choices: a line of text
	KindPressEnter = adapter.AskPressEnter // one choice: enter
)

// Prompt statuses: a prompt record's own (queue.Prompt.Status).
const (
	PromptPending   = queue.PromptPending
	PromptAnswered  = queue.PromptAnswered
	PromptExpired   = queue.PromptExpired
	PromptWithdrawn = queue.PromptWithdrawn // the session moved on, or its prompt changed
	PromptFailed    = queue.PromptFailed    // the session (or the child of trailboss run) ended
)

// Choice keys with a meaning of their own (the adapter's): a permission's two, and a
// press_enter prompt's one.
const (
	ChoiceAllow = adapter.ChoiceAllow
	ChoiceDeny  = adapter.ChoiceDeny
	ChoiceEnter = adapter.ChoiceEnter
)

// Choice is one answer a prompt offers (adapter.WireChoice, which a trailboss run
// supervisor's report carries too).
type Choice = adapter.WireChoice

// Prompt is the pending prompt record of a queue item, as GET /v1/queue shows it.
type Prompt struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Question  string    `json:"question"`
	Choices   []Choice  `json:"choices"`
	ExpiresAt time.Time `json:"expires_at"`
	// Secret: it asks for a password or the like. It is answered at the keyboard only; a
	// channel shows that it waits, never offers to answer it.
	Secret bool `json:"secret,omitempty"`
}

// ClosedPrompt is a queue item's prompt record that no longer takes answers, as GET
// /v1/queue shows it.
type ClosedPrompt struct {
	ID       string    `json:"id"`
	Status   string    `json:"status"`            // answered, expired, withdrawn, failed
	Channel  string    `json:"channel,omitempty"` // answered: the channel that answered it
	Answer   string    `json:"answer,omitempty"`  // answered: the choice key; "" for a typed text
	ClosedAt time.Time `json:"closed_at"`
}

// Answer is the body of POST /v1/prompts/{id}/answer: a Choice key or a Text.
type Answer struct {
	Choice string `json:"choice,omitempty"`
	Text   string `json:"text,omitempty"`
	// Channel is what the caller says it is ("cli", "popup"). The daemon records an answer
	// through the HTTP API as channel "api", with this as what it claimed; only a channel
	// inside the daemon (the Telegram relay) names itself.
	Channel string `json:"channel,omitempty"`
	// Client is the tmux client the caller says it answers from (the popup's); the audit
	// log keeps it beside the tmux server the daemon found the caller running in.
	Client string `json:"client,omitempty"`
	Nonce  string `json:"nonce,omitempty"` // checked when given
	// Actor and Claimed are set by the daemon, never read from a request: who the caller is,
	// and what it said it was.
	Actor   string `json:"-"`
	Claimed string `json:"-"`
}

// ChannelAPI is the channel of every answer that comes through the HTTP API, whatever the
// caller says it is.
const ChannelAPI = "api"

// Delivery paths.
const (
	ViaHook = "hook" // the holding PermissionRequest hook printed the decision
	ViaKeys = "keys" // typed into the tmux pane
	ViaPTY  = "pty"  // written to the PTY of trailboss run
)

// Delivered is the 200 answer of POST /v1/prompts/{id}/answer.
type Delivered struct {
	Delivered bool   `json:"delivered"`
	Via       string `json:"via"`
	// Confirmed: the agent was seen to take the answer (it moved on, its screen changed,
	// the hook or the supervisor took it) within a few seconds.
	Confirmed bool `json:"confirmed"`
}

// Reasons of a 409 answer: nothing was typed.
const (
	RefusedAnswered  = "answered"     // the prompt was answered already
	RefusedExpired   = "expired"      // its time ran out
	RefusedChanged   = "changed"      // the session moved on or now asks something else
	RefusedPaneMoved = "pane_moved"   // the pane is gone or belongs to another session
	RefusedOff       = "delivery_off" // the operator has not switched delivery on
	RefusedSecret    = "secret"       // it asks for a password or the like: answered at the keyboard only
	// RefusedUnknownAsker: the daemon does not know which program asked (a generic event,
	// a hook whose sender could not be verified), so it types into no pane for it.
	RefusedUnknownAsker = "unknown_asker"
	// RefusedUnreachable: the prompt is another host's, and the hub cannot reach that host
	// now (only a channel inside the hub, such as the Telegram relay, gets it as a refusal).
	RefusedUnreachable = "host_unreachable"
)

// Refused is the 409 answer of POST /v1/prompts/{id}/answer.
type Refused struct {
	Error  string `json:"error"`
	Reason string `json:"reason"`
}

// Hold is the daemon's answer to a PermissionRequest hook that may hold: it names the
// prompt to wait for. Absent when the hook must return at once.
type Hold struct {
	PromptID  string    `json:"prompt_id"`
	ExpiresAt time.Time `json:"expires_at"`
}

// HookAck is the 200 answer to a hook's POST. (Its fields are in the order the daemon
// always wrote them.)
type HookAck struct {
	Changed bool  `json:"changed"`        // the queue or a session changed
	Hold    *Hold `json:"hold,omitempty"` // only to a hook that said it can hold
	// Ignored says why a valid payload of an event Trail Boss does not use changed nothing.
	Ignored string `json:"ignored,omitempty"`
	OK      bool   `json:"ok"`
}

// PromptWait is the answer of GET /v1/prompts/{id}/wait.
type PromptWait struct {
	Status string       `json:"status"`
	Answer *GivenAnswer `json:"answer,omitempty"` // when Status is answered
	// Subject is what the record asks about when a hook's request opened it: the
	// fingerprint of the tool call (claude.Subject). The holding hook prints a decision
	// only when it is its own request's.
	Subject string `json:"subject,omitempty"`
}

// GivenAnswer is what a person answered, with the label of the choice.
type GivenAnswer struct {
	Choice string `json:"choice,omitempty"`
	Label  string `json:"label,omitempty"`
	Text   string `json:"text,omitempty"`
}

// Delivery is one attempt to deliver an answer, as the audit log keeps it.
type Delivery struct {
	At        time.Time `json:"at"`
	Channel   string    `json:"channel"`
	PromptID  string    `json:"prompt_id"`
	SessionID string    `json:"session_id"`
	Pane      string    `json:"pane"`
	Via       string    `json:"via"`    // hook, keys, pty, or "" when refused before a path
	Length    int       `json:"length"` // bytes of what was typed or decided; never the text
	// Choice is the choice the answer made (allow, deny, an option's key); "" for a reply,
	// whose text is never kept.
	Choice string `json:"choice,omitempty"`
	Result string `json:"result"` // delivered, confirmed, refused, failed
	Reason string `json:"reason"` // why refused or failed
	// Actor is who answered, as the daemon knows it: "uid 1000 pid 4242 trailboss" (the
	// unix socket's peer), "uid 1000 over TCP from 127.0.0.1:51234", "telegram user 42 (Ann)".
	Actor string `json:"actor"`
	// Claimed is what an API caller said it was ("popup", "cli", …); "" for a channel inside
	// the daemon.
	Claimed string `json:"claimed,omitempty"`
}

// Deliveries is the answer of GET /v1/deliveries, newest first.
type Deliveries struct {
	Deliveries []Delivery `json:"deliveries"`
}

// A trailboss run supervisor's report (POST /v1/pty/report), in the adapter package so
// that the "pty" harness's adapter (adapter/pty), which reads it, imports nothing of the
// daemon.
const (
	PTYStart   = adapter.PTYStart
	PTYPrompt  = adapter.PTYPrompt
	PTYWorking = adapter.PTYWorking
	PTYExit    = adapter.PTYExit
)

type (
	PTYPromptReport = adapter.PTYPromptReport
	PTYReport       = adapter.PTYReport
)

// PTYReportAck is the answer of POST /v1/pty/report.
type PTYReportAck struct {
	OK       bool   `json:"ok"`
	PromptID string `json:"prompt_id,omitempty"`
}

// PTYAnswer is one line of GET /v1/pty/answers; an empty one is a heartbeat.
type PTYAnswer struct {
	AnswerID string `json:"answer_id,omitempty"`
	PromptID string `json:"prompt_id,omitempty"`
	Data     string `json:"data,omitempty"`
}

// PTYWritten is the body of POST /v1/pty/written.
type PTYWritten struct {
	SessionID string `json:"session_id"`
	AnswerID  string `json:"answer_id"`
	OK        bool   `json:"ok"`
	Reason    string `json:"reason,omitempty"`
}

// Channel states, as GET /v1/channels reports them.
const (
	ChannelStarting     = "starting"
	ChannelOK           = "ok"           // its service answers
	ChannelOutage       = "outage"       // its service does not answer; retrying with backoff
	ChannelConflict     = "conflict"     // another program takes its updates (Telegram's 409)
	ChannelUnauthorized = "unauthorized" // its service refuses the credentials
)

// ChannelStatus is how one delivery channel is doing.
type ChannelStatus struct {
	Name   string    `json:"name"`
	State  string    `json:"state"`
	Since  time.Time `json:"since"`            // when it entered this state
	Detail string    `json:"detail,omitempty"` // what is wrong, in plain words
	Shown  int       `json:"shown"`            // prompts shown with buttons now
}

// Channels is the answer of GET /v1/channels.
type Channels struct {
	Channels []ChannelStatus `json:"channels"`
}

// ChannelWords names a channel as a person reads it in "answered from …" and "denied
// from …": the popup, trailboss reply, Telegram, the API.
func ChannelWords(ch string) string {
	switch ch {
	case "popup":
		return "the popup"
	case "cli":
		return "trailboss reply"
	case "telegram":
		return "Telegram"
	case "", "api":
		return "the API"
	}
	return ch
}
