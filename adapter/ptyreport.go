package adapter

import "time"

// The body of POST /v1/pty/report, by which a trailboss run supervisor reports what its
// child's output shows: here, beside the events, so that both the daemon's wire
// (daemon/wire, which names it) and the "pty" harness's adapter (adapter/pty, which reads
// it) use it, and no adapter imports the daemon.

// WireChoice is one answer a prompt offers, as it goes on the wire (daemon/wire's Choice).
type WireChoice struct {
	Key   string `json:"key"`
	Label string `json:"label"`
}

// PTY supervisor states for POST /v1/pty/report.
const (
	PTYStart   = "start"
	PTYPrompt  = "prompt"
	PTYWorking = "working"
	PTYExit    = "exit"
)

// PTYPromptReport is what the supervisor's classifier read off its child's output.
type PTYPromptReport struct {
	Kind          string       `json:"kind"`
	Question      string       `json:"question"`
	Choices       []WireChoice `json:"choices"`
	Excerpt       string       `json:"excerpt"`
	LowConfidence bool         `json:"low_confidence"`
	// Secret: a prompt for a password or the like — by its words, or asked while the
	// child's terminal hid what is typed — answered at the keyboard only.
	Secret bool `json:"secret,omitempty"`
}

// PTYReport is the body of POST /v1/pty/report.
type PTYReport struct {
	SessionID string           `json:"session_id"`
	Name      string           `json:"name"`
	Cwd       string           `json:"cwd"`
	PID       int              `json:"pid"`
	At        time.Time        `json:"at"`
	State     string           `json:"state"`
	Prompt    *PTYPromptReport `json:"prompt,omitempty"`
	ExitCode  int              `json:"exit_code"`
}
