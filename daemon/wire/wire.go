// Package wire holds the JSON shapes of the daemon's HTTP API, shared by the server and
// its client so that the two cannot drift apart.
package wire

import "time"

// Item is one queue entry.
type Item struct {
	Position       int        `json:"position"`
	SessionID      string     `json:"session_id"`
	Harness        string     `json:"harness"`
	Pane           string     `json:"pane"`
	TmuxSocket     string     `json:"tmux_socket"`
	Reason         string     `json:"reason"`
	Detail         string     `json:"detail"`
	Summary        string     `json:"summary"`
	Cwd            string     `json:"cwd"`
	TranscriptPath string     `json:"transcript_path"`
	Since          time.Time  `json:"since"`
	Ready          bool       `json:"ready"`            // false while cooling down after a skip
	CooldownUntil  *time.Time `json:"cooldown_until"`   // set while cooling down
	Prompt         *Prompt    `json:"prompt,omitempty"` // its pending prompt record, when it can be answered
	// PromptClosed is the prompt record of this stuck moment once it takes no answers:
	// why none can be sent now.
	PromptClosed *ClosedPrompt `json:"prompt_closed,omitempty"`
}

// Queue is the answer of GET /v1/queue.
type Queue struct {
	Items []Item `json:"items"`
	// DeliveryOff says why answers are refused while delivery is off, and how to turn
	// it on; empty when delivery is on.
	DeliveryOff string `json:"delivery_off,omitempty"`
}

// Status is the answer of GET /v1/status.
type Status struct {
	Stuck   int `json:"stuck"`   // every stuck session, cooling ones included
	Cooling int `json:"cooling"` // the stuck ones cooling after a skip
	Ready   int `json:"ready"`   // the ones "next" can land on
	// Events counts the hook events the daemon applied since it started (from the API and
	// from the spool), for tests and benchmarks.
	Events int64 `json:"events"`
}

// Error is the body of every error answer.
type Error struct {
	Error string `json:"error"`
}

// Session is one live session as GET /v1/sessions shows it.
type Session struct {
	SessionID   string    `json:"session_id"`
	Harness     string    `json:"harness"`
	Pane        string    `json:"pane"` // "" when no event carried one: TMUX_PANE did not arrive
	TmuxSocket  string    `json:"tmux_socket"`
	Cwd         string    `json:"cwd"`
	Stuck       bool      `json:"stuck"`
	LastEventAt time.Time `json:"last_event_at"`
}

// Sessions is the answer of GET /v1/sessions.
type Sessions struct {
	Sessions []Session `json:"sessions"`
}
