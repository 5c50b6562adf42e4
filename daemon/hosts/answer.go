package hosts

// An answer to another host's prompt, given on the hub, goes to that host's daemon as the
// same POST /v1/prompts/{id}/answer the hub itself serves, through the host's ssh
// (Forward): that daemon applies its own delivery rules and its own checks of the pane and
// the agent. The hub's HTTP API (daemon/httpapi) forwards `trailboss reply` and the popup
// this way; a channel inside the hub (the Telegram relay) through Set.Answer.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/wire"
)

// HubName is how this daemon names itself to the hosts it forwards to (HeaderHub): its
// host name, as it says.
var HubName = func() string {
	name, err := os.Hostname()
	if err != nil || name == "" {
		return "unknown"
	}
	return adapter.CleanText(name, 64)
}()

// AnswerRequest returns the request that forwards a, an answer to host prompt remoteID
// (the host's own id). Only what the host reads goes: the choice or the text, and the
// channel as a claim (the host records it as a claim of its API's caller); a nonce is the
// hub's, never the host's, and the tmux client is this machine's, which the host cannot
// look up.
func AnswerRequest(remoteID string, a wire.Answer) Request {
	body, _ := json.Marshal(wire.Answer{Choice: a.Choice, Text: a.Text, Channel: a.Channel})
	return Request{Method: http.MethodPost, Path: wire.PromptRoute(wire.RouteAnswer, remoteID), Body: body, Hub: HubName}
}

// ReadAnswer returns what host's daemon made of a forwarded answer (resp) as the hub's own
// deliverer says it: a wire.Delivered, or an error wire.OutcomeOf reads (a refusal or a
// bad answer in the host's words, after "on HOST: "; wire.ErrUnknownPrompt).
func ReadAnswer(host string, resp Response) (wire.Delivered, error) {
	var out wire.Delivered
	switch resp.Status {
	case http.StatusOK:
		if err := json.Unmarshal(resp.Body, &out); err != nil {
			return out, errors.New("on " + host + ": the daemon's answer is not one of Trail Boss's: " + err.Error())
		}
		return out, nil
	case http.StatusConflict:
		var ref wire.Refused
		_ = json.Unmarshal(resp.Body, &ref)
		return out, &wire.PromptRefusal{Reason: ref.Reason, Message: "on " + host + ": " + ref.Error}
	case http.StatusNotFound:
		return out, wire.ErrUnknownPrompt
	}
	var e wire.Error
	_ = json.Unmarshal(resp.Body, &e)
	return out, &wire.BadAnswerError{Message: "on " + host + ": " + e.Error}
}

// ForwardedVia is the audit log's Via of an answer forwarded to host that went there by
// out.Via.
func ForwardedVia(host string, out wire.Delivered) string {
	if out.Via != "" {
		return "forwarded to " + host + " (" + out.Via + " there)"
	}
	return "forwarded to " + host
}

// Answer forwards a, an answer of a channel inside the hub to the hub's prompt id
// ("host/p…"), to that host's daemon, records the attempt in the hub's audit log
// (s.Audit), and returns what the host made of it, as ReadAnswer. A host that cannot be
// asked now (unreachable) is a *wire.PromptRefusal saying since when: nothing was sent.
func (s *Set) Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error) {
	audit := wire.Delivery{At: time.Now(), Channel: adapter.CleanText(a.Channel, 40), PromptID: adapter.CleanText(id, 80),
		Actor: adapter.CleanText(a.Actor, 120), Choice: adapter.CleanText(a.Choice, 40), Length: len(a.Text) + len(a.Choice)}
	out, err := s.answer(ctx, id, a)
	audit.Result, audit.Reason = wire.OutcomeOf(out, err).Audit()
	host, _, _ := SplitPrompt(id)
	audit.Via = ForwardedVia(host, out)
	if s.Audit != nil {
		if rerr := s.Audit(context.WithoutCancel(ctx), audit); rerr != nil {
			s.log.Error("audit log", "err", rerr)
		}
	}
	s.log.Info("answer forwarded", "prompt", audit.PromptID, "host", host, "channel", audit.Channel, "actor", audit.Actor,
		"result", audit.Result, "reason", audit.Reason)
	return out, err
}

func (s *Set) answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error) {
	host, remote, ok := SplitPrompt(id)
	if !ok {
		return wire.Delivered{}, wire.ErrUnknownPrompt
	}
	// The answer is applied there whatever becomes of the caller: it may be typed already.
	resp, err := s.Forward(context.WithoutCancel(ctx), host, AnswerRequest(remote, a))
	var down *UnreachableError
	switch {
	case errors.Is(err, ErrUnknownHost):
		return wire.Delivered{}, wire.ErrUnknownPrompt
	case errors.As(err, &down):
		return wire.Delivered{}, &wire.PromptRefusal{Reason: wire.RefusedUnreachable,
			Message: "the host " + host + " is unreachable since " + down.Since.Format(time.TimeOnly) + ", so nothing was sent there: " +
				"answer it on that machine, or again once it is connected (" + down.Why + ")"}
	case err != nil:
		return wire.Delivered{}, errors.New(host + ": not forwarded: " + err.Error())
	}
	return ReadAnswer(host, resp)
}

// Items returns every host's items (Merge), without this machine's own.
func (s *Set) Items() []wire.Item { return s.Queue(nil) }

// Unreachable reports whether host, one of [[hosts]], is not connected now: its items are
// what it said last (or none yet). A name not in [[hosts]] is not (nothing will come of it).
func (s *Set) Unreachable(host string) bool {
	for _, c := range s.conns {
		if c.cfg.Name == host {
			c.mu.Lock()
			defer c.mu.Unlock()
			return !c.connected
		}
	}
	return false
}

// Subscribe returns a channel signalled (coalesced, never blocking) after a host's items or
// its reachability changed, for a reader of Items other than the status line's.
func (s *Set) Subscribe() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{}, 1)
	s.subscribers = append(s.subscribers, ch)
	return ch
}
