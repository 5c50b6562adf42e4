package httpapi

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// MaxBody is the largest request body the API reads.
const MaxBody = 1 << 20

// Server is the daemon's HTTP face: it reads requests, asks the core, and writes what the
// core answered. Whether to hold a hook, and how long to wait for an answer, is the
// core's to say.
type Server struct {
	Core    Core
	Token   string
	Version string
	Log     *slog.Logger
	// Hosts, on a hub, holds the other hosts' queues, which GET /v1/queue and
	// /v1/status merge in; nil otherwise.
	Hosts Hosts
	// Tmux runs the commands of a tmux server (a tmuxctl.Pool's, which holds a control
	// client); tmuxctl.New when nil.
	Tmux func(socket string) *tmuxctl.Server

	attached attachedClients // the tmux clients of other machines' host windows here
}

// Handler returns the routes. Everything but /healthz needs the bearer token; anything that
// looks like a browser (an Origin header, a Host that is not loopback) is refused first.
func (a *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(a.containPanics, refuseBrowsers)
	r.Get(wire.RouteHealth, a.healthz)
	r.Group(func(r chi.Router) {
		r.Use(a.requireToken)
		for _, name := range a.Core.Harnesses() {
			r.Post(wire.HookRoute(name), a.hookRoute(name))
		}
		r.Post(wire.RouteEvents, a.genericEvent)
		r.Get(wire.RouteQueue, a.queue)
		r.Get(wire.RouteQueueStream, a.queueStream)
		r.Get(wire.RouteHosts, a.hosts)
		r.Get(wire.RouteNext, a.next)
		r.Post(wire.RouteJump, a.jump)
		r.Get(wire.RouteTmuxCounts, a.tmuxCounts)
		r.Post(wire.RouteHostJump, a.hostJump)
		r.Post(wire.RouteAttached, a.attach)
		r.Post(wire.RouteAttachedSwitch, a.attachedSwitch)
		r.Post(wire.RouteSkip, a.skip)
		r.Post(wire.RouteDismiss, a.dismiss)
		r.Get(wire.RouteStatus, a.status)
		r.Get(wire.RouteSessions, a.sessions)
		r.Post(wire.RouteWatch, a.watch)
		r.Delete(wire.RouteWatch, a.watch)
		r.Get(wire.RouteChannels, a.channels)
		a.promptRoutes(r)
	})
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed on "+r.URL.Path)
	})
	return r
}

// containPanics answers 500 for a request whose handling panicked, after logging the panic
// with its stack, instead of letting net/http drop the connection with no answer: a bug met
// by one request must cost that request, never the daemon.
func (a *Server) containPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				a.Log.Error("recovered from a panic; the daemon goes on", "method", r.Method, "path", r.URL.Path,
					"while", "answering a request", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				writeError(w, http.StatusInternalServerError,
					"the daemon hit an internal error with this request and logged it; the request was not applied")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// refuseBrowsers keeps web pages from driving the daemon: a browser always sends Origin on
// cross-origin requests, and DNS rebinding shows up as a Host that is not loopback. (No
// browser reaches the unix socket, whose requests name any Host.)
func refuseBrowsers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" {
			writeError(w, http.StatusForbidden, "requests from browsers (with an Origin header) are refused")
			return
		}
		if !onSocket(r) && !loopbackHost(r.Host) {
			writeError(w, http.StatusForbidden, "Host "+adapter.CleanText(r.Host, 80)+" is not a loopback address")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// IsLoopbackHost reports whether host (a name or an IP, with or without a port) is this
// machine's loopback: localhost, 127.0.0.0/8 or ::1.
func IsLoopbackHost(host string) bool { return loopbackHost(host) }

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func (a *Server) requireToken(next http.Handler) http.Handler {
	want := []byte("Bearer " + a.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" && bridged(r) {
			next.ServeHTTP(w, r) // another machine's hub, as this user, through its ssh
			return
		}
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			writeError(w, http.StatusUnauthorized, "missing or wrong token: send Authorization: Bearer <token from the state directory>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (a *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, wire.Health{OK: true, Version: a.Version, Protocol: wire.Protocol})
}

// readBody reads at most MaxBody bytes; a larger body is answered 413 and ok is false.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > MaxBody {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body of %d bytes is over the %d byte limit", r.ContentLength, MaxBody))
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body is over the %d byte limit", MaxBody))
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, "reading body: "+err.Error())
		return nil, false
	}
	return body, true
}

// hookRoute serves one harness's hook payloads, with the emitter's headers: the pane, the
// TMUX value and when the hook ran.
func (a *Server) hookRoute(harness string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		var at time.Time
		if v := r.Header.Get(wire.HeaderEmittedAt); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				writeError(w, http.StatusBadRequest, wire.HeaderEmittedAt+" is not an RFC 3339 time: "+adapter.CleanText(v, 60))
				return
			}
			at = t
		}
		// Once the event is here it is committed even if the hook gives up waiting: the
		// hook may have spooled it too, and applying an event twice changes nothing.
		ack, err := a.Core.Hook(context.WithoutCancel(r.Context()), HookPost{Harness: harness, Payload: body,
			Pane: r.Header.Get(wire.HeaderPane), Tmux: r.Header.Get(wire.HeaderTmux), EmittedAt: at,
			CanHold: r.Header.Get(wire.HeaderCanHold) == "1", PID: peerPID(r), Claim: a.claimOf(r)})
		if err != nil {
			writeIngestError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, ack)
	}
}

// claimOf returns what the emitter of hook request r says of the program that ran it, when
// that word is worth checking: over TCP, from a process of the daemon's own user. Over the
// unix socket the daemon reads the peer itself and needs no word; from another user it
// takes none. A malformed claim is no claim (who asked is then not known).
func (a *Server) claimOf(r *http.Request) *lineage.Claim {
	v := r.Header.Get(wire.HeaderProgram)
	if v == "" || onSocket(r) {
		return nil
	}
	if uid, ok := tcpPeerUID(r); !ok || uid != os.Getuid() {
		return nil
	}
	c, err := lineage.ParseClaim(v)
	if err != nil {
		a.Log.Debug("hook's program claim dropped", "err", err)
		return nil
	}
	return &c
}

// writeIngestError answers what the ingestor said: the sender's fault is 400 (with the
// envelope's problems when it was one), a store that cannot write is 503.
func writeIngestError(w http.ResponseWriter, err error) {
	var refused *fault.RefusedError
	switch {
	case errors.As(err, &refused) && refused.Envelope != nil:
		writeJSON(w, http.StatusBadRequest, wire.EnvelopeRefused{Error: refused.Error(),
			Reason: refused.Envelope.Reason, Problems: refused.Envelope.Problems})
	case errors.As(err, &refused):
		writeError(w, http.StatusBadRequest, refused.Error())
	case errors.Is(err, fault.ErrNotStored):
		writeError(w, http.StatusServiceUnavailable, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// genericEvent takes one versioned envelope (adapter/generic) from anything that has no
// adapter of its own.
func (a *Server) genericEvent(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	ack, err := a.Core.Generic(context.WithoutCancel(r.Context()), body)
	if err != nil {
		writeIngestError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ack)
}

func toItem(pos int, it queue.Item) wire.Item {
	out := wire.Item{Position: pos, SessionID: it.ID, Harness: it.Harness, Pane: it.Pane,
		TmuxSocket: it.TmuxSocket, Reason: it.Reason, Detail: it.Detail, Summary: it.Summary,
		Cwd: it.Cwd, TranscriptPath: it.TranscriptPath, Since: it.Since, Ready: it.Ready, Prompt: toPrompt(it.Prompt),
		PromptClosed: toClosedPrompt(it.Closed)}
	if !it.Ready && !it.CooldownUntil.IsZero() {
		c := it.CooldownUntil
		out.CooldownUntil = &c
	}
	return out
}

func (a *Server) queue(w http.ResponseWriter, r *http.Request) {
	items := a.Core.Items()
	out := wire.Queue{Items: make([]wire.Item, len(items)), DeliveryOff: a.Core.DeliveryOff()}
	for i, it := range items {
		out.Items[i] = toItem(i+1, it)
	}
	if a.Hosts != nil {
		out.Items = a.Hosts.Queue(out.Items)
	}
	writeJSON(w, http.StatusOK, out)
}

// filter reads ?socket= and ?pane= (the tmux server and pane the caller is on).
func filter(w http.ResponseWriter, r *http.Request) (queue.Filter, bool) {
	f := queue.Filter{Socket: r.URL.Query().Get("socket"), ExcludePane: r.URL.Query().Get("pane")}
	if f.ExcludePane != "" && !adapter.ValidPane(f.ExcludePane) {
		writeError(w, http.StatusBadRequest, "pane "+adapter.CleanText(f.ExcludePane, 40)+" is not a tmux pane id (% and digits)")
		return f, false
	}
	return f, true
}

func (a *Server) next(w http.ResponseWriter, r *http.Request) {
	f, ok := filter(w, r)
	if !ok {
		return
	}
	it, found := a.pickNext(f)
	if !found {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, it)
}

// pickNext returns where a client of f's server on f's pane goes next, or false for nowhere.
func (a *Server) pickNext(f queue.Filter) (wire.Item, bool) {
	if a.Hosts != nil {
		return a.nextOfAll(f)
	}
	head, found := a.Core.Head(f)
	if !found {
		return wire.Item{}, false
	}
	return toItem(1, head), true
}

// jump is next, and then the switch of ?client= to the item's pane, done here: the key
// binding's process asks once and starts no tmux of its own. An item of another host, or a
// switch that failed, is answered with Landed false and the client moves (or says why it
// cannot) as it does after next.
func (a *Server) jump(w http.ResponseWriter, r *http.Request) {
	f, ok := filter(w, r)
	if !ok {
		return
	}
	client := r.URL.Query().Get("client")
	if !a.clientOK(w, f, client) {
		return
	}
	it, found := a.pickNext(f)
	if !found {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	a.land(r.Context(), f.Socket, client, &it)
	writeJSON(w, http.StatusOK, it)
}

// clientOK reports whether client (?client=) names a tmux client of a tmux server's socket
// (f.Socket), and answers 400 when not.
func (a *Server) clientOK(w http.ResponseWriter, f queue.Filter, client string) bool {
	switch {
	case client == "" || strings.HasPrefix(client, "-") || len(client) > 256:
		writeError(w, http.StatusBadRequest, "?client= must name a tmux client (#{client_name}), got "+adapter.CleanText(client, 80))
		return false
	case f.Socket == "" || !a.Core.TmuxSocketOK(f.Socket):
		writeError(w, http.StatusBadRequest, "socket "+adapter.CleanText(f.Socket, 200)+" is not a tmux server's socket")
		return false
	}
	return true
}

// land switches client of the tmux server at socket to it's pane (through the daemon's
// control client of that server, else a tmux process) and sets it.Landed when it did. An
// item of another host or server is left to the caller, as is a switch that failed.
func (a *Server) land(ctx context.Context, socket, client string, it *wire.Item) {
	if !landsOn(socket, *it) {
		return
	}
	err := a.tmux(socket).SwitchClient(ctx, client, it.Pane)
	it.Landed = err == nil
	if err != nil {
		a.Log.Debug("the client moves on its own", "client", client, "pane", it.Pane, "err", err)
	}
}

// landsOn reports whether the daemon itself switches a client of the tmux server at socket
// to it: an item of this host with a pane on that very server.
func landsOn(socket string, it wire.Item) bool {
	return it.Host == "" && it.Pane != "" && it.TmuxSocket == socket
}

// JumpPanes returns where the jump key takes a client of the tmux server at socket, by
// jump's own rule (pickNext): head, from any pane but head's, and next, from head's pane.
// Each is "" where jump would not land the client itself: nothing ready, an item of
// another host; next also when head is the only stuck pane (jump then stays and says
// nothing else is stuck). The tmux status publisher keeps them as options that the key
// binding reads, so that a local jump starts no process.
func (a *Server) JumpPanes(socket string) (head, next string) {
	h, found := a.pickNext(queue.Filter{Socket: socket})
	if !found || !landsOn(socket, h) {
		return "", ""
	}
	n, found := a.pickNext(queue.Filter{Socket: socket, ExcludePane: h.Pane})
	if !found || !landsOn(socket, n) || n.Pane == h.Pane {
		return h.Pane, ""
	}
	return h.Pane, n.Pane
}

// tmux returns the Server of the tmux server at socket.
func (a *Server) tmux(socket string) *tmuxctl.Server {
	if a.Tmux == nil {
		return tmuxctl.New(socket)
	}
	return a.Tmux(socket)
}

// tmuxCounts answers what this daemon has asked of tmux.
func (a *Server) tmuxCounts(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, tmuxctl.Started())
}

// sessionParam returns ?session= when it is there and well formed.
func sessionParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.URL.Query().Get("session")
	if id == "" || len(id) > adapter.MaxSessionIDLen {
		writeError(w, http.StatusBadRequest, "missing or over-long ?session=")
		return "", false
	}
	return id, true
}

// answerSessionOp answers a skip or dismiss of one session.
func answerSessionOp(w http.ResponseWriter, id string, err error) {
	switch {
	case errors.Is(err, fault.ErrNotQueued):
		writeError(w, http.StatusNotFound, "session "+adapter.CleanText(id, 80)+" is not in the queue")
	case err != nil:
		writeError(w, http.StatusServiceUnavailable, "not stored: "+err.Error())
	default:
		writeJSON(w, http.StatusOK, wire.OK{OK: true})
	}
}

// skip skips ?session= if given; otherwise the item on ?pane= or the head, and answers the
// new head.
func (a *Server) skip(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("session") {
		a.sessionOp(w, r, wire.RouteSkip, func(id string) error { return a.Core.SkipSession(r.Context(), id) })
		return
	}
	f, ok := filter(w, r)
	if !ok {
		return
	}
	// ?client= (the key binding's): the new head is landed on here, as by jump. On a hub,
	// the item is skipped where it lives, and the client lands by itself (Landed false).
	client := r.URL.Query().Get("client")
	if r.URL.Query().Has("client") && !a.clientOK(w, f, client) {
		return
	}
	if a.Hosts != nil {
		a.skipOfAll(w, r, f)
		return
	}
	head, found, err := a.Core.Skip(r.Context(), f)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "skip not stored: "+err.Error())
		return
	}
	if !found {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	it := toItem(1, head)
	if client != "" {
		a.land(r.Context(), f.Socket, client, &it)
	}
	writeJSON(w, http.StatusOK, it)
}

func (a *Server) dismiss(w http.ResponseWriter, r *http.Request) {
	a.sessionOp(w, r, wire.RouteDismiss, func(id string) error { return a.Core.Dismiss(r.Context(), id) })
}

func (a *Server) status(w http.ResponseWriter, r *http.Request) {
	st := a.Core.Status()
	if a.Hosts != nil {
		stuck, cooling, unreachable := a.Hosts.Counts()
		st.Stuck += stuck
		st.Cooling += cooling
		st.Remote, st.Unreachable = stuck, unreachable
	}
	writeJSON(w, http.StatusOK, st)
}

// hosts lists a hub's [[hosts]] with their state; none on a daemon without.
func (a *Server) hosts(w http.ResponseWriter, r *http.Request) {
	out := wire.Hosts{Hosts: []wire.Host{}}
	if a.Hosts != nil {
		out.Hosts = a.Hosts.States()
	}
	writeJSON(w, http.StatusOK, out)
}

// watch adds (POST) or removes (DELETE) a pane for the screen adapter to watch:
// ?pane=%N&socket=PATH&harness=NAME.
func (a *Server) watch(w http.ResponseWriter, r *http.Request) {
	if !a.Core.ScreensOn() {
		writeError(w, http.StatusNotFound, "the screen adapter is off (trailboss daemon --screen-tick 0)")
		return
	}
	q := r.URL.Query()
	pane, socket, harness := q.Get("pane"), q.Get("socket"), q.Get("harness")
	switch {
	case !adapter.ValidPane(pane):
		writeError(w, http.StatusBadRequest, "pane "+adapter.CleanText(pane, 40)+" is not a tmux pane id (% and digits)")
		return
	case socket == "" || !a.Core.TmuxSocketOK(socket):
		writeError(w, http.StatusBadRequest, "socket "+adapter.CleanText(socket, 200)+" is not a tmux server's socket")
		return
	}
	if r.Method == http.MethodDelete {
		writeJSON(w, http.StatusOK, wire.Unwatched{OK: true, WasWatched: a.Core.Unwatch(socket, pane)})
		return
	}
	if harness == "" {
		harness = adapter.HarnessScreen
	}
	a.Core.Watch(socket, pane, adapter.CleanText(harness, 40))
	writeJSON(w, http.StatusOK, wire.OK{OK: true})
}

// sessions lists every live session, most recently heard from first (for doctor).
func (a *Server) sessions(w http.ResponseWriter, r *http.Request) {
	all := a.Core.Sessions()
	sort.Slice(all, func(i, j int) bool { return all[i].LastEventAt.After(all[j].LastEventAt) })
	out := wire.Sessions{Sessions: make([]wire.Session, len(all))}
	for i, s := range all {
		out.Sessions[i] = wire.Session{SessionID: s.ID, Harness: s.Harness, Pane: s.Pane,
			TmuxSocket: s.TmuxSocket, Cwd: s.Cwd, Stuck: s.Stuck, LastEventAt: s.LastEventAt}
	}
	writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, wire.Error{Error: msg})
}
