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
	// Host is the [[hosts]] name of the machine whose daemon queued it; empty for this
	// machine's own. Only a hub's queue carries other hosts' items.
	Host string `json:"host,omitempty"`
	// Stale says that the hub lost its connection to Host: the item is what that host said
	// last, and may since have been answered there.
	Stale bool `json:"stale,omitempty"`
	// Attach is, on a hub, the shell command its host window runs for another host's item:
	// `ssh -t HOST trailboss attach --socket S --pane P` through the hub's own connection.
	Attach string `json:"attach,omitempty"`
	// Landed, in the answer of POST /v1/jump, says the daemon has switched the client to
	// Pane itself; otherwise the client moves there on its own.
	Landed bool `json:"landed,omitempty"`
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
	// Remote counts, of Stuck, the items of other hosts (a hub's [[hosts]]).
	Remote int `json:"remote,omitempty"`
	// Unreachable names the hosts the hub cannot reach now, whose items are stale.
	Unreachable []string `json:"unreachable,omitempty"`
}

// QueueUpdate is one message of GET /v1/queue/stream: the daemon's own queue, sent when the
// stream opens, after every change, and as a heartbeat (Beat) when nothing changed for a
// while. Each is one JSON object on a line.
type QueueUpdate struct {
	// ServerTime is the daemon's clock when it sent the message: the hub estimates the
	// host's clock offset from it.
	ServerTime  time.Time `json:"server_time"`
	Beat        bool      `json:"beat,omitempty"` // nothing changed; Items is omitted
	Items       []Item    `json:"items,omitempty"`
	DeliveryOff string    `json:"delivery_off,omitempty"`
}

// Host is one [[hosts]] entry as GET /v1/hosts shows it: whether the hub reaches its
// daemon now, and since when; or why not.
type Host struct {
	Name      string `json:"name"`
	SSH       string `json:"ssh"`
	Connected bool   `json:"connected"`
	// Since is when the host became connected, or unreachable (zero before the first try
	// ended).
	Since time.Time `json:"since"`
	Items int       `json:"items"` // the host's items the hub holds (stale ones too)
	// RTT is the round trip of the last request through ssh, in milliseconds.
	RTTMillis float64 `json:"rtt_ms"`
	// ClockOffsetMillis is how far the host's clock is ahead of the hub's, in
	// milliseconds: its items' times are taken back by it.
	ClockOffsetMillis float64 `json:"clock_offset_ms"`
	// Error is why the host is not connected: ssh's own last line, word for word, or what
	// the hub saw.
	Error string `json:"error,omitempty"`
	// LeftOut says that the host's Trail Boss speaks another protocol than the hub's: it is
	// not read (Error says which versions) until both run the same.
	LeftOut bool `json:"left_out,omitempty"`
}

// Hosts is the answer of GET /v1/hosts.
type Hosts struct {
	Hosts []Host `json:"hosts"`
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

// HostJump is the body of a hub's POST /v1/hosts/jump: move the client that the hub's host
// window holds on Host to Pane of the tmux server at Socket there.
type HostJump struct {
	Host   string `json:"host"`
	Socket string `json:"socket"`
	Pane   string `json:"pane"`
}

// Attached is the body of POST /v1/attached (`trailboss attach`, on the machine it runs on):
// the tmux client that a hub's host window is about to be, on the server at Socket.
type Attached struct {
	Socket string `json:"socket"`
	Client string `json:"client"`
}

// AttachedSwitch is the body of POST /v1/attached/switch: move the client that
// `trailboss attach` registered for Socket to Pane.
type AttachedSwitch struct {
	Socket string `json:"socket"`
	Pane   string `json:"pane"`
}
