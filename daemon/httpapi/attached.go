package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/hosts"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// The jump to another machine's pane (issue 30). On the hub, /v1/next picks from every
// host's items; for another host's item, the hot client puts the operator on the hub's host
// window (which runs `ssh -t HOST trailboss attach`) and, when that window was there
// already, asks the hub to move its client there (POST /v1/hosts/jump), which the hub
// forwards through ssh to that host's daemon (POST /v1/attached/switch). That daemon knows
// which of its tmux clients is the hub's window because `trailboss attach` said so before it
// became that client (POST /v1/attached).

// attachedClients are the tmux clients that hubs' host windows hold here, by tmux server.
type attachedClients struct {
	mu     sync.Mutex
	client map[string]string // socket → client name (its tty)
}

func (c *attachedClients) set(socket, client string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client == nil {
		c.client = map[string]string{}
	}
	c.client[socket] = client
}

func (c *attachedClients) get(socket string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	client, ok := c.client[socket]
	return client, ok
}

// decodeStrict reads r's body as JSON into v, refusing unknown fields; it answers 400 and
// returns false when it cannot.
func decodeStrict(w http.ResponseWriter, r *http.Request, v any, shape string) bool {
	body, ok := readBody(w, r)
	if !ok {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "the body is not JSON of the form "+shape+": "+adapter.CleanText(err.Error(), 200))
		return false
	}
	return true
}

// attach registers the tmux client a hub's host window is about to be.
func (a *Server) attach(w http.ResponseWriter, r *http.Request) {
	var in wire.Attached
	if !decodeStrict(w, r, &in, `{"socket": "…", "client": "/dev/pts/N"}`) {
		return
	}
	switch {
	case in.Socket == "" || !a.Core.TmuxSocketOK(in.Socket):
		writeError(w, http.StatusBadRequest, "socket "+adapter.CleanText(in.Socket, 200)+" is not a tmux server's socket")
		return
	case !strings.HasPrefix(in.Client, "/dev/"):
		writeError(w, http.StatusBadRequest, "client "+adapter.CleanText(in.Client, 80)+" is not a terminal (/dev/…)")
		return
	}
	a.attached.set(in.Socket, in.Client)
	a.Log.Info("a hub's host window attaches", "socket", in.Socket, "client", in.Client, "actor", actorOf(r))
	writeJSON(w, http.StatusOK, wire.OK{OK: true})
}

// attachedSwitch moves the registered client of a tmux server to a pane of it.
func (a *Server) attachedSwitch(w http.ResponseWriter, r *http.Request) {
	var in wire.AttachedSwitch
	if !decodeStrict(w, r, &in, `{"socket": "…", "pane": "%N"}`) {
		return
	}
	if !adapter.ValidPane(in.Pane) {
		writeError(w, http.StatusBadRequest, "pane "+adapter.CleanText(in.Pane, 40)+" is not a tmux pane id (% and digits)")
		return
	}
	client, ok := a.attached.get(in.Socket)
	if !ok {
		writeError(w, http.StatusConflict, "no host window is attached to this machine's tmux server "+
			adapter.CleanText(in.Socket, 200)+" yet: press the key again once it shows")
		return
	}
	// Applied whatever becomes of the request: a hub's one-shot bridge may close its side
	// once the request is sent.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
	defer cancel()
	if err := a.tmux(in.Socket).SwitchClient(ctx, client, in.Pane); err != nil {
		code := http.StatusServiceUnavailable
		if errors.Is(err, tmuxctl.ErrNoClient) {
			code = http.StatusConflict
		}
		writeError(w, code, "could not move the host window's tmux client "+client+": "+adapter.CleanText(err.Error(), 200))
		return
	}
	writeJSON(w, http.StatusOK, wire.OK{OK: true})
}

// hostJump, on a hub, forwards a jump to another host's daemon.
func (a *Server) hostJump(w http.ResponseWriter, r *http.Request) {
	var in wire.HostJump
	if !decodeStrict(w, r, &in, `{"host": "…", "socket": "…", "pane": "%N"}`) {
		return
	}
	if a.Hosts == nil {
		writeError(w, http.StatusNotFound, "this daemon has no [[hosts]] in its config.toml")
		return
	}
	if !adapter.ValidPane(in.Pane) {
		writeError(w, http.StatusBadRequest, "pane "+adapter.CleanText(in.Pane, 40)+" is not a tmux pane id (% and digits)")
		return
	}
	if err := a.Hosts.Jump(r.Context(), in.Host, in.Socket, in.Pane); err != nil {
		// A 4xx: the hot client shows the message as it is.
		writeError(w, http.StatusConflict, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, wire.OK{OK: true})
}

// nextOfAll is /v1/next on a hub: the first ready item of every host's, with a pane.
// This machine's own items are taken from the caller's tmux server only, and the caller's
// pane is passed over unless it is the only ready one (queue.Head); another host's items
// are reached through its host window, whatever server the caller is on.
func (a *Server) nextOfAll(f queue.Filter) (wire.Item, bool) {
	items := a.Core.Items()
	local := make([]wire.Item, len(items))
	for i, it := range items {
		local[i] = toItem(i+1, it)
	}
	var excluded *wire.Item
	for it := range a.Hosts.Ordered(local) {
		if !it.Ready || it.Pane == "" || (it.Host == "" && f.Socket != "" && it.TmuxSocket != f.Socket) {
			continue
		}
		if it.Host == "" && f.ExcludePane != "" && it.Pane == f.ExcludePane {
			if excluded == nil {
				excluded = &it
			}
			continue
		}
		return it, true
	}
	if excluded != nil {
		return *excluded, true
	}
	return wire.Item{}, false
}

// skipOfAll answers POST /v1/skip (no ?session=) on a hub: the ready item on the caller's
// own pane when it has one, else the head of every host's queue, is skipped where it
// lives (another host's by its daemon, through ssh), and the answer is the new head of
// all, taken once the hub's copy of that host's queue shows the item cooling.
func (a *Server) skipOfAll(w http.ResponseWriter, r *http.Request, f queue.Filter) {
	var target wire.Item
	found := false
	if f.ExcludePane != "" {
		for _, it := range a.Core.Items() {
			if it.Ready && it.Pane == f.ExcludePane && (f.Socket == "" || it.TmuxSocket == f.Socket) {
				target, found = toItem(1, it), true
				break
			}
		}
	}
	if !found {
		target, found = a.nextOfAll(queue.Filter{Socket: f.Socket})
	}
	if !found {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if target.Host == "" {
		if err := a.Core.SkipSession(r.Context(), target.SessionID); err != nil && !errors.Is(err, fault.ErrNotQueued) {
			writeError(w, http.StatusServiceUnavailable, "skip not stored: "+err.Error())
			return
		}
	} else {
		resp, err := a.Hosts.Forward(context.WithoutCancel(r.Context()), target.Host, hosts.Request{Method: http.MethodPost,
			Path: wire.RouteSkip + "?" + url.Values{"session": {target.SessionID}}.Encode(), Hub: hosts.HubName})
		a.Log.Info("forwarded", "route", wire.RouteSkip, "host", target.Host, "session", target.SessionID,
			"actor", actorOf(r), "status", resp.Status, "err", err)
		switch {
		case err != nil:
			writeError(w, http.StatusBadGateway, target.Host+": skip not forwarded: "+err.Error())
			return
		case resp.Status != http.StatusOK && resp.Status != http.StatusNotFound:
			var e wire.Error
			_ = json.Unmarshal(resp.Body, &e)
			writeError(w, http.StatusBadGateway, target.Host+": skip refused: "+e.Error)
			return
		}
		a.Hosts.Await(r.Context(), target.Host, skipAwait, func(it wire.Item, queued bool) bool {
			return !queued || !it.Ready
		}, target.SessionID)
	}
	if next, found := a.nextOfAll(f); found {
		writeJSON(w, http.StatusOK, next)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// skipAwait bounds how long a hub's skip waits for the host's daemon to push the skipped
// item cooling: it came back from there already, so the push is on its way.
const skipAwait = 2 * time.Second
