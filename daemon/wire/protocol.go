package wire

import (
	"net/url"
	"strings"
)

// Headers a hook's emitter (and trailboss run's supervisor) sends beside its payload.
const (
	HeaderPane      = "X-Tmux-Pane"            // the hook's TMUX_PANE
	HeaderTmux      = "X-Tmux"                 // the hook's TMUX: the tmux server it runs in
	HeaderEmittedAt = "X-Trailboss-Emitted-At" // when the hook ran, RFC 3339 with nanoseconds
	// HeaderCanHold ("1") says that the hook posting a PermissionRequest can hold for an
	// answer; the daemon then says in its HookAck whether to.
	HeaderCanHold = "X-Trailboss-Can-Hold"
	// HeaderProgram is the program that ran the hook, as the emitter read it from /proc
	// (lineage.Claim). The daemon believes it only over TCP from its own user, checked
	// against /proc; over its unix socket it reads the peer itself.
	HeaderProgram = "X-Trailboss-Program"
)

// Routes of the daemon's HTTP API. Everything but RouteHealth needs the bearer token, but
// from a `trailboss bridge` of the daemon's own user (another machine's hub, over ssh).
const (
	RouteHealth = "/healthz"
	RouteHooks  = "/v1/hooks/" // + a harness's name (HookRoute)
	RouteEvents = "/v1/events" // one generic envelope
	RouteQueue  = "/v1/queue"
	// RouteQueueStream streams the daemon's own queue (QueueUpdate, a line each) for as
	// long as the caller reads: what a hub reads another host's daemon by.
	RouteQueueStream = "/v1/queue/stream"
	RouteHosts       = "/v1/hosts" // a hub's [[hosts]] and their state
	// RouteHostJump, on a hub, moves its host window's client on another host to a pane.
	RouteHostJump = "/v1/hosts/jump"
	// RouteAttached registers the tmux client a hub's host window holds on this machine
	// (`trailboss attach`); RouteAttachedSwitch moves it to a pane.
	RouteAttached       = "/v1/attached"
	RouteAttachedSwitch = "/v1/attached/switch"
	RouteNext           = "/v1/next"
	// RouteJump answers as RouteNext does and lands ?client= on the item's pane in the
	// daemon, through its tmux control client: the key binding starts no tmux process.
	RouteJump = "/v1/jump"
	// RouteTmuxCounts says what the daemon has asked of tmux (tmuxctl.Counts), for tests
	// and benchmarks.
	RouteTmuxCounts = "/v1/debug/tmux"
	// RouteSkip skips and answers the new head; with ?client= it lands that client on it
	// as RouteJump does.
	RouteSkip       = "/v1/skip"
	RouteDismiss    = "/v1/dismiss"
	RouteStatus     = "/v1/status"
	RouteSessions   = "/v1/sessions"
	RouteWatch      = "/v1/watch"
	RouteChannels   = "/v1/channels"
	RouteAnswer     = "/v1/prompts/{id}/answer" // PromptRoute fills in the id
	RouteWait       = "/v1/prompts/{id}/wait"   // PromptRoute fills in the id
	RouteDeliveries = "/v1/deliveries"
	RoutePTYReport  = "/v1/pty/report"
	RoutePTYAnswers = "/v1/pty/answers"
	RoutePTYWritten = "/v1/pty/written"
)

// HookRoute returns the route a harness's hooks post to.
func HookRoute(harness string) string { return RouteHooks + harness }

// PromptRoute returns route (RouteAnswer or RouteWait) for the prompt record id.
func PromptRoute(route, id string) string {
	return strings.Replace(route, "{id}", url.PathEscape(id), 1)
}

// Protocol is the version of what a hub and another host's daemon say to each other (the
// health answer, the queue stream, the forwarded requests): a hub reads a host only when
// both say the same number. Raise it with any change that the other side could misread;
// builds of one source always agree, whatever their version strings.
const Protocol = 1

// Health is the answer of GET /healthz.
type Health struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	// Protocol is the daemon's Protocol; absent (0) from a Trail Boss older than hubs.
	Protocol int `json:"protocol,omitempty"`
}

// OK is the answer of a request that only needs to say it was done: a skip or dismiss of
// one session, POST /v1/watch.
type OK struct {
	OK bool `json:"ok"`
}

// EventAck is the 200 answer of POST /v1/events.
type EventAck struct {
	Changed   bool `json:"changed"`   // the queue or a session changed
	Duplicate bool `json:"duplicate"` // an event whose id was applied before
	OK        bool `json:"ok"`
}

// EnvelopeRefused is the 400 answer of POST /v1/events for an envelope the daemon will
// never take, with each of its problems.
type EnvelopeRefused struct {
	Error    string   `json:"error"`
	Problems []string `json:"problems"`
	Reason   string   `json:"reason"`
}

// Unwatched is the answer of DELETE /v1/watch.
type Unwatched struct {
	OK         bool `json:"ok"`
	WasWatched bool `json:"was_watched"`
}

// PTYWrittenAck is the answer of POST /v1/pty/written.
type PTYWrittenAck struct {
	Expected bool `json:"expected"` // the answer was one the daemon waited to hear about
	OK       bool `json:"ok"`
}
