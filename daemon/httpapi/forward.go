package httpapi

// A hub forwards what is done to another host's item (an answer to its prompt, a skip, a
// dismiss) to that host's daemon, through the host's ssh (package hosts). That daemon
// decides: its own delivery rules (delivery must be on there too) and its own checks of
// the pane and the agent. Its answer comes back to the caller as it was, its words
// prefixed with the host's name, and the hub's audit log records that it forwarded it.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/hosts"
	"github.com/trailboss/trailboss/daemon/wire"
)

// forward sends req to host and writes what it answered to w, its error words prefixed
// with the host's name. It returns the host's answer; ok is false when the host could not
// be asked (w has the hub's own 502 then).
func (a *Server) forward(w http.ResponseWriter, r *http.Request, host string, req hosts.Request) (resp hosts.Response, ok bool) {
	req.Hub = hosts.HubName
	// The answer is applied there whatever becomes of this request: it may be typed already.
	resp, err := a.Hosts.Forward(context.WithoutCancel(r.Context()), host, req)
	switch {
	case errors.Is(err, hosts.ErrUnknownHost):
		writeError(w, http.StatusNotFound, "no host is named "+adapter.CleanText(host, 40)+" in this hub's [[hosts]]")
		return resp, false
	case err != nil:
		writeError(w, http.StatusBadGateway, host+": not forwarded: "+err.Error())
		return resp, false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.Status)
	_, _ = w.Write(prefixError(host, resp.Body))
	return resp, true
}

// prefixError returns body, a daemon's JSON answer, with its "error" (if any) said to be
// host's: "devbox: delivery is off there …".
func prefixError(host string, body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	var msg string
	if raw, has := m["error"]; !has || json.Unmarshal(raw, &msg) != nil || msg == "" {
		return body
	}
	m["error"], _ = json.Marshal(host + ": " + msg)
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return append(out, '\n')
}

// forwardAnswer forwards ans, an answer to prompt remoteID of host, and records in this
// hub's audit log that it did, and what the host said.
func (a *Server) forwardAnswer(w http.ResponseWriter, r *http.Request, host, remoteID string, ans wire.Answer) {
	hubID := hosts.Namespaced(host, remoteID)
	claimed := ans.Channel
	audit := wire.Delivery{At: time.Now(), Channel: wire.ChannelAPI, PromptID: adapter.CleanText(hubID, 80),
		Actor: adapter.CleanText(actorOf(r)+inTmux(r, ans.Client), 120), Claimed: adapter.CleanText(claimed, 40),
		Choice: adapter.CleanText(ans.Choice, 40), Length: len(ans.Text) + len(ans.Choice)}
	resp, ok := a.forward(w, r, host, hosts.AnswerRequest(remoteID, wire.Answer{Choice: ans.Choice, Text: ans.Text, Channel: claimed}))
	var out wire.Delivered
	var err error
	if ok {
		out, err = hosts.ReadAnswer(host, resp)
	} else {
		err = errors.New("not forwarded: " + host + " could not be asked")
	}
	audit.Result, audit.Reason = wire.OutcomeOf(out, err).Audit()
	audit.Via = hosts.ForwardedVia(host, out)
	if rerr := a.Core.RecordDelivery(context.WithoutCancel(r.Context()), audit); rerr != nil {
		a.Log.Error("audit log", "err", rerr)
	}
	a.Log.Info("answer forwarded", "prompt", hubID, "host", host, "actor", audit.Actor, "claimed", audit.Claimed,
		"status", resp.Status, "result", audit.Result, "reason", audit.Reason)
}

// forwardSessionOp forwards a skip or dismiss (route) of session id to host.
func (a *Server) forwardSessionOp(w http.ResponseWriter, r *http.Request, route, host, id string) {
	resp, ok := a.forward(w, r, host, hosts.Request{Method: http.MethodPost,
		Path: route + "?" + url.Values{"session": {id}}.Encode()})
	a.Log.Info("forwarded", "route", route, "host", host, "session", id, "actor", actorOf(r), "status", resp.Status, "sent", ok)
}

// sessionOp applies op (this daemon's skip or dismiss of session ?session=) or, on a hub,
// forwards it to the host whose item it is: the one ?host= names, else the one whose
// queue holds the session when this daemon's does not.
func (a *Server) sessionOp(w http.ResponseWriter, r *http.Request, route string, op func(id string) error) {
	id, ok := sessionParam(w, r)
	if !ok {
		return
	}
	if h := r.URL.Query().Get("host"); h != "" && a.Hosts != nil {
		a.forwardSessionOp(w, r, route, h, id)
		return
	}
	err := op(id)
	if errors.Is(err, fault.ErrNotQueued) && a.Hosts != nil {
		if h := a.Hosts.HostOf(id); h != "" {
			a.forwardSessionOp(w, r, route, h, id)
			return
		}
	}
	answerSessionOp(w, id, err)
}
