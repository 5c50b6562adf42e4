package pty

import (
	"context"
	"errors"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Link is the supervisor's connection to the daemon (docs/delivery.md, "The PTY
// supervisor's protocol"). Its types are the supervisor's own; a Report goes on the wire
// as Report.Wire says (wire.go). cmd/trailboss wires it to daemon/client.
type Link interface {
	// Report sends one state change (POST /v1/pty/report) and returns the prompt record's
	// id for a StatePrompt. An error wrapping ErrRefused means the daemon said no and
	// sending it again will not help; any other error means it was not reached.
	Report(ctx context.Context, r Report) (promptID string, err error)
	// Answers holds the answer stream of session open (GET /v1/pty/answers) and calls fn
	// for each answer, in order, until the stream ends or ctx is done; it returns why it
	// ended. Heartbeats are not answers.
	Answers(ctx context.Context, session string, fn func(Answer)) error
	// Written says what became of an answer (POST /v1/pty/written).
	Written(ctx context.Context, w Written) error
}

// ErrRefused marks a Link error that is the daemon's refusal (a 4xx answer).
var ErrRefused = errors.New("the daemon refused the report")

// State is what a report says of the session.
type State string

// Report states.
const (
	StateStart   State = "start"   // the session runs: register it (and its pane)
	StatePrompt  State = "prompt"  // it waits for an answer to Report.Prompt
	StateWorking State = "working" // output moved on after a prompt
	StateExit    State = "exit"    // the child exited with Report.ExitCode
)

// Kind is what an answer to a prompt looks like.
type Kind string

// Prompt kinds.
const (
	KindYesNo      Kind = adapter.AskYesNo      // choices y / n (or yes / no)
	KindChoice     Kind = adapter.AskMenu       // choices 1, 2, … or a, b, …
	KindPressEnter Kind = adapter.AskPressEnter // one choice: KeyEnter
	KindFreeText   Kind = adapter.AskFreeText   // no choices: a line of text
)

// KeyEnter is the key of a press-enter prompt's one choice.
const KeyEnter = adapter.ChoiceEnter

// Choice is one answer a prompt offers.
type Choice struct {
	Key   string
	Label string
}

// Prompt is what the supervisor read off the child's screen.
type Prompt struct {
	Kind     Kind
	Question string
	Choices  []Choice
	// Excerpt is the last lines of output, for the person to see what is asked.
	Excerpt string
	// LowConfidence marks a guess: the prompt was erased before the child went quiet
	// (QA-003), no prompt shows at all (QA-004), or the line merely ends in "?" or ":".
	LowConfidence bool
	// Secret marks a prompt for a password, passphrase or token — by its words, or asked
	// while the child's terminal hides what is typed (echo off in canonical mode, as
	// `read -s` and getpass ask): the daemon takes no answer to it from anywhere, and it
	// is typed at the keyboard only.
	Secret bool
}

// Report is one state change of the session.
type Report struct {
	SessionID string
	Name      string
	Cwd       string
	PID       int // the child's
	At        time.Time
	State     State
	Prompt    *Prompt // StatePrompt only
	ExitCode  int     // StateExit only
}

// Answer is an answer to write to the child.
type Answer struct {
	AnswerID string
	PromptID string
	Data     string // the bytes to write, e.g. "y\r"
}

// Written is what became of an Answer.
type Written struct {
	SessionID string
	AnswerID  string
	OK        bool
	Reason    string // when not OK: ReasonChanged or ReasonSecret
}

// Reasons an answer was not written.
const (
	// ReasonChanged: its prompt is no longer the one on screen.
	ReasonChanged = "changed"
	// ReasonSecret: its prompt asks for a secret (Prompt.Secret), or the child's terminal
	// hides what is typed: that is typed at the keyboard only.
	ReasonSecret = "secret"
)

// Backoff of the daemon link: start fast, so that a daemon restart is noticed at once, and
// settle at a retry every two seconds while it is down.
const (
	backoffMin = 100 * time.Millisecond
	backoffMax = 2 * time.Second
)

// backoff is a doubling delay between backoffMin and backoffMax.
type backoff struct{ d time.Duration }

// next returns the delay to wait now and doubles the following one.
func (b *backoff) next() time.Duration {
	if b.d == 0 {
		b.d = backoffMin
	}
	d := b.d
	b.d = min(2*b.d, backoffMax)
	return d
}

func (b *backoff) reset() { b.d = 0 }

// sleep waits d or until ctx is done, and reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
