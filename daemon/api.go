package daemon

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
	"sort"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// MaxBody is the largest request body the API reads.
const MaxBody = 1 << 20

// API is the daemon's HTTP face.
type API struct {
	Engine  *Engine
	Token   string
	Version string
	Log     *slog.Logger
	Ingest  *Ingestor      // the way in for every payload
	Screens *ScreenWatcher // nil when the screen adapter is off

	Deliver *Deliverer // answers to prompt records
	Holds   *Holds     // PermissionRequest hooks holding for an answer
	PTY     *PTYHub    // trailboss run supervisors' answer streams
	// HoldPermissions: a PermissionRequest hook that can hold is told to, so that an
	// answer from a channel becomes its decision ([delivery] hold_permissions).
	HoldPermissions bool
	// DeliveryOff, when not empty, says that delivery is off and how to turn it on: no
	// answer is typed and no hook is held.
	DeliveryOff string
	// Channels are the delivery channels running beside the daemon (GET /v1/channels).
	Channels []Channel
	// Done is closed when the daemon stops, ending long polls and streams.
	Done <-chan struct{}
}

// IsSocket reports whether path is a unix socket.
func IsSocket(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

// Handler returns the routes. Everything but /healthz needs the bearer token; anything that
// looks like a browser (an Origin header, a Host that is not loopback) is refused first.
func (a *API) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(a.containPanics, refuseBrowsers)
	r.Get(wire.RouteHealth, a.healthz)
	r.Group(func(r chi.Router) {
		r.Use(a.requireToken)
		for name := range hookParsers {
			r.Post(wire.HookRoute(name), a.hookRoute(name))
		}
		r.Post(wire.RouteEvents, a.genericEvent)
		r.Get(wire.RouteQueue, a.queue)
		r.Get(wire.RouteNext, a.next)
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

// containPanics answers 500 for a request whose handling panicked, after guard logged it,
// instead of letting net/http drop the connection with no answer.
func (a *API) containPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := guard(a.Log, "answering a request", []any{"method", r.Method, "path", r.URL.Path}, func() {
			next.ServeHTTP(w, r)
		})
		if err != nil {
			writeError(w, http.StatusInternalServerError,
				"the daemon hit an internal error with this request and logged it; the request was not applied")
		}
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

func (a *API) requireToken(next http.Handler) http.Handler {
	want := []byte("Bearer " + a.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			writeError(w, http.StatusUnauthorized, "missing or wrong token: send Authorization: Bearer <token from the state directory>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (a *API) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, wire.Health{OK: true, Version: a.Version})
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
func (a *API) hookRoute(harness string) http.HandlerFunc {
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
		tmux := r.Header.Get(wire.HeaderTmux)
		res, err := a.Ingest.Hook(context.WithoutCancel(r.Context()), harness, body,
			r.Header.Get(wire.HeaderPane), tmux, at, originOf(r, tmux))
		if err != nil {
			writeIngestError(w, err)
			return
		}
		out := wire.HookAck{OK: true, Changed: res.Changed, Ignored: res.Ignored}
		if r.Header.Get(wire.HeaderCanHold) == "1" && holdable(harness, body) {
			out.Hold = a.holdFor(res)
		}
		writeJSON(w, http.StatusOK, out)
	}
}

// writeIngestError answers what the ingestor said: the sender's fault is 400 (with the
// envelope's problems when it was one), a store that cannot write is 503.
func writeIngestError(w http.ResponseWriter, err error) {
	var refused *RefusedError
	switch {
	case errors.As(err, &refused) && refused.Envelope != nil:
		writeJSON(w, http.StatusBadRequest, wire.EnvelopeRefused{Error: refused.Error(),
			Reason: refused.Envelope.Reason, Problems: refused.Envelope.Problems})
	case errors.As(err, &refused):
		writeError(w, http.StatusBadRequest, refused.Error())
	case errors.Is(err, ErrNotStored):
		writeError(w, http.StatusServiceUnavailable, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// genericEvent takes one versioned envelope (adapter/generic) from anything that has no
// adapter of its own.
func (a *API) genericEvent(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	res, err := a.Ingest.Generic(context.WithoutCancel(r.Context()), body)
	if err != nil {
		writeIngestError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.EventAck{OK: true, Changed: res.Changed, Duplicate: res.Duplicate})
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

func (a *API) queue(w http.ResponseWriter, r *http.Request) {
	items := a.Engine.Items()
	out := wire.Queue{Items: make([]wire.Item, len(items)), DeliveryOff: a.DeliveryOff}
	for i, it := range items {
		out.Items[i] = toItem(i+1, it)
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

func (a *API) next(w http.ResponseWriter, r *http.Request) {
	f, ok := filter(w, r)
	if !ok {
		return
	}
	head, found := a.Engine.Head(f)
	if !found {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, toItem(1, head))
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
	case errors.Is(err, ErrNotQueued):
		writeError(w, http.StatusNotFound, "session "+adapter.CleanText(id, 80)+" is not in the queue")
	case err != nil:
		writeError(w, http.StatusServiceUnavailable, "not stored: "+err.Error())
	default:
		writeJSON(w, http.StatusOK, wire.OK{OK: true})
	}
}

// skip skips ?session= if given; otherwise the item on ?pane= or the head, and answers the
// new head.
func (a *API) skip(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("session") {
		if id, ok := sessionParam(w, r); ok {
			answerSessionOp(w, id, a.Engine.SkipSession(r.Context(), id))
		}
		return
	}
	f, ok := filter(w, r)
	if !ok {
		return
	}
	head, found, _, err := a.Engine.Skip(r.Context(), f)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "skip not stored: "+err.Error())
		return
	}
	if !found {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, toItem(1, head))
}

func (a *API) dismiss(w http.ResponseWriter, r *http.Request) {
	if id, ok := sessionParam(w, r); ok {
		answerSessionOp(w, id, a.Engine.Dismiss(r.Context(), id))
	}
}

func (a *API) status(w http.ResponseWriter, r *http.Request) {
	stuck, cooling, ready := a.Engine.Status()
	writeJSON(w, http.StatusOK, wire.Status{Stuck: stuck, Cooling: cooling, Ready: ready, Events: a.Ingest.Events()})
}

// watch adds (POST) or removes (DELETE) a pane for the screen adapter to watch:
// ?pane=%N&socket=PATH&harness=NAME.
func (a *API) watch(w http.ResponseWriter, r *http.Request) {
	if a.Screens == nil {
		writeError(w, http.StatusNotFound, "the screen adapter is off (trailboss daemon --screen-tick 0)")
		return
	}
	q := r.URL.Query()
	pane, socket, harness := q.Get("pane"), q.Get("socket"), q.Get("harness")
	switch {
	case !adapter.ValidPane(pane):
		writeError(w, http.StatusBadRequest, "pane "+adapter.CleanText(pane, 40)+" is not a tmux pane id (% and digits)")
		return
	case socket == "" || !a.Ingest.socketOK(socket):
		writeError(w, http.StatusBadRequest, "socket "+adapter.CleanText(socket, 200)+" is not a tmux server's socket")
		return
	}
	if r.Method == http.MethodDelete {
		writeJSON(w, http.StatusOK, wire.Unwatched{OK: true, WasWatched: a.Screens.Unwatch(socket, pane)})
		return
	}
	if harness == "" {
		harness = "screen"
	}
	a.Screens.Watch(socket, pane, adapter.CleanText(harness, 40))
	writeJSON(w, http.StatusOK, wire.OK{OK: true})
}

// sessions lists every live session, most recently heard from first (for doctor).
func (a *API) sessions(w http.ResponseWriter, r *http.Request) {
	all := a.Engine.Snapshot()
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
