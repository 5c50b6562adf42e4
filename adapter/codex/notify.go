package codex

import (
	"fmt"
	"slices"
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// NotifyTurnComplete is the one notify type Codex sends: a turn ended and Codex waits for
// its human.
const NotifyTurnComplete = "agent-turn-complete"

// notifyPayload is the JSON that Codex appends as the last argument of the notify program.
// Its fields are kebab-case. Older releases sent neither thread-id nor cwd.
type notifyPayload struct {
	Type          *string  `json:"type"`
	ThreadID      string   `json:"thread-id"`
	TurnID        string   `json:"turn-id"`
	Cwd           string   `json:"cwd"`
	Client        string   `json:"client"`
	InputMessages []string `json:"input-messages"`
	LastMessage   *string  `json:"last-assistant-message"`
}

// SpoolFields are the fields of a Codex payload, hook or notify, that this adapter reads:
// what a spooled one keeps (adapter.Slim).
var SpoolFields = append(slices.Clone(adapter.HookFields),
	"type", "thread-id", "turn-id", "client", "input-messages", "last-assistant-message")

// Turn is what one agent-turn-complete notification says.
type Turn struct {
	// Event is the session's stuck event: stopped, with the last assistant message as its
	// summary.
	Event adapter.Event
	// Prompted reports that the turn began with input (its input-messages): whatever the
	// session waited for before this turn was answered, so it is queued afresh at this
	// turn's end rather than keeping the place of an older wait. Notify is the only signal
	// a Codex without hooks sends, and nothing else would ever take it out of the queue.
	Prompted bool
}

// ParseNotify turns one notify payload into an Event: agent-turn-complete is the session
// (its thread-id) stuck, stopped, with the last assistant message as the summary. It returns
// an error wrapping adapter.ErrInvalid for a payload that is not one JSON object with a type
// and a session, and ErrUnknownEvent for another notify type.
func ParseNotify(payload []byte, meta Meta) (adapter.Event, error) {
	t, err := ParseNotifyTurn(payload, meta)
	return t.Event, err
}

// ParseNotifyTurn is ParseNotify, and whether the turn began with the human's input.
//
// A payload of an older Codex carries no thread-id: the session is then named after its pane
// ("codex:%3@/tmp/tmux-1000/default"), which is one Codex session at a time; outside tmux
// such a payload is refused.
func ParseNotifyTurn(payload []byte, meta Meta) (Turn, error) {
	var p notifyPayload
	if err := adapter.DecodeOne(payload, &p, "notify payload"); err != nil {
		return Turn{}, err
	}
	if p.Type == nil || *p.Type == "" {
		return Turn{}, fmt.Errorf("%w: notify payload: missing type", adapter.ErrInvalid)
	}
	if isTitleThread(p.InputMessages) {
		return Turn{}, ErrTitleThread
	}
	socket, err := adapter.SocketFromTmuxEnv(meta.Tmux)
	if err != nil {
		return Turn{}, err
	}
	session := p.ThreadID
	if session == "" && meta.Pane != "" && socket != "" {
		session = "codex:" + meta.Pane + "@" + socket
	}
	if session == "" {
		return Turn{}, fmt.Errorf("%w: notify payload: missing thread-id (and no tmux pane to name the session by)", adapter.ErrInvalid)
	}
	ev := adapter.Event{
		Harness:    Harness,
		SessionID:  session,
		Pane:       meta.Pane,
		TmuxSocket: socket,
		Cwd:        p.Cwd,
		At:         meta.EmittedAt,
		Turn:       p.TurnID,
	}
	known := *p.Type == NotifyTurnComplete
	if known {
		ev.Kind, ev.Reason, ev.Summary = adapter.KindStuck, adapter.ReasonStopped, adapter.Deref(p.LastMessage)
		ev.EndsTurn = p.TurnID != ""
	}
	ev, err = finish(ev, known, *p.Type)
	if err != nil {
		return Turn{}, err
	}
	return Turn{Event: ev, Prompted: prompted(p.InputMessages)}, nil
}

// ErrTitleThread is returned for the notify of Codex's hidden title thread: on each prompt
// Codex runs a side turn on a thread of its own to name the task, and notifies its end with
// the TUI's environment (so the same pane). It is nobody's session and waits for nobody.
var ErrTitleThread = fmt.Errorf("codex title-generation thread: %w", adapter.ErrIgnored)

// titleThreadPrompt is how Codex (0.169.0) opens the one input of a title thread.
const titleThreadPrompt = "Generate a concise, single-line task title"

func isTitleThread(messages []string) bool {
	return len(messages) == 1 && strings.HasPrefix(strings.TrimSpace(messages[0]), titleThreadPrompt)
}

func prompted(messages []string) bool {
	for _, m := range messages {
		if strings.TrimSpace(m) != "" {
			return true
		}
	}
	return false
}
