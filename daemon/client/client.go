// Package client is the HTTP client (net/http's) that the CLI and the popup use to talk to
// the daemon. The hot verbs use package hot instead, whose errors, daemon address and
// reading of answers this one shares.
package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/trailboss/trailboss/daemon/client/hot"
	"github.com/trailboss/trailboss/daemon/wire"
)

// Item is one queue entry; Status the stuck and ready counts.
type (
	Item   = wire.Item
	Status = wire.Status
)

// ErrDown means the daemon could not be reached. Its text is the one message a person sees
// for it, wherever they meet it: the keys, the popup, ls, status and doctor.
var ErrDown = hot.ErrDown

// ErrForeign means something answers at the daemon's address that is not Trail Boss's
// daemon: another program took the port.
var ErrForeign = hot.ErrForeign

// DownError is ErrDown with the address tried and the cause, for logs; its message is
// ErrDown's alone, without the network's words.
type DownError = hot.DownError

// ErrBusy means the daemon did not answer in time: it may be running, busy or unreachable.
var ErrBusy = hot.ErrBusy

// BusyError is ErrBusy with the address, how long the client waited and the cause.
type BusyError = hot.BusyError

// RefusedError is the daemon's "no" to what was posted (a 4xx answer): sending it again
// would only be refused again.
type RefusedError = hot.RefusedError

// ForeignError is ErrForeign with the address.
type ForeignError = hot.ForeignError

// Post sends body (JSON) to path with the given extra headers, and returns nil once the
// daemon acknowledged it. A 4xx answer is a *RefusedError; an unreachable daemon is
// ErrDown; a daemon that could not take it (5xx) is another error. The emitter posts
// every hook's payload through it.
func (c *Client) Post(ctx context.Context, path string, body []byte, headers map[string]string) error {
	return c.PostFor(ctx, path, body, headers, nil)
}

// PostFor is Post that also decodes a 2xx answer into out (when out is not nil).
func (c *Client) PostFor(ctx context.Context, path string, body []byte, headers map[string]string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.failed(err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return hot.PostOutcome(path, resp.StatusCode, resp.Status, reply, out)
}

// Client talks to one daemon.
type Client struct {
	base      string
	where     string // the address or the socket's path, for messages
	token     string
	transport *http.Transport
	http      *http.Client
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, out any) (int, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, c.failed(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return resp.StatusCode, hot.Outcome(method, path, c.where, resp.StatusCode, resp.Status, resp.Header.Get("Content-Type"), body, out)
}

// Queue returns every stuck session in queue order.
func (c *Client) Queue(ctx context.Context) ([]Item, error) {
	q, err := c.QueueView(ctx)
	return q.Items, err
}

// QueueView returns the queue as GET /v1/queue gives it: the items, and whether delivery
// is off (and how to turn it on).
func (c *Client) QueueView(ctx context.Context) (wire.Queue, error) {
	var out wire.Queue
	_, err := c.do(ctx, http.MethodGet, wire.RouteQueue, nil, &out)
	return out, err
}

// Hosts returns a hub's [[hosts]] and their state (none on a daemon without).
func (c *Client) Hosts(ctx context.Context) ([]wire.Host, error) {
	var out wire.Hosts
	_, err := c.do(ctx, http.MethodGet, wire.RouteHosts, nil, &out)
	return out.Hosts, err
}

// Next returns the head for a client of the tmux server at socket that is on pane, or false
// when nothing is ready.
func (c *Client) Next(ctx context.Context, socket, pane string) (Item, bool, error) {
	var it Item
	code, err := c.do(ctx, http.MethodGet, wire.RouteNext, hot.Where(socket, pane), &it)
	return it, err == nil && code == http.StatusOK, err
}

// Skip skips the item at pane (or the head) and returns the new head, or false when none.
func (c *Client) Skip(ctx context.Context, socket, pane string) (Item, bool, error) {
	var it Item
	code, err := c.do(ctx, http.MethodPost, wire.RouteSkip, hot.Where(socket, pane), &it)
	return it, err == nil && code == http.StatusOK, err
}

// SkipSession moves one queued session to the tail with a cooldown.
func (c *Client) SkipSession(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodPost, wire.RouteSkip, url.Values{"session": {id}}, nil)
	return err
}

// Dismiss drops one queued session until its next stuck event.
func (c *Client) Dismiss(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodPost, wire.RouteDismiss, url.Values{"session": {id}}, nil)
	return err
}

// Sessions returns every live session, most recently heard from first.
func (c *Client) Sessions(ctx context.Context) ([]wire.Session, error) {
	var out wire.Sessions
	_, err := c.do(ctx, http.MethodGet, wire.RouteSessions, nil, &out)
	return out.Sessions, err
}

// Health asks the daemon's health check (no token needed) and returns its version.
func (c *Client) Health(ctx context.Context) (string, error) {
	var out wire.Health
	_, err := c.do(ctx, http.MethodGet, wire.RouteHealth, nil, &out)
	return out.Version, err
}

// Watch asks the screen adapter to watch a pane (harness names what runs there); with
// stop, to stop.
func (c *Client) Watch(ctx context.Context, socket, pane, harness string, stop bool) error {
	method := http.MethodPost
	if stop {
		method = http.MethodDelete
	}
	_, err := c.do(ctx, method, wire.RouteWatch, url.Values{"socket": {socket}, "pane": {pane}, "harness": {harness}}, nil)
	return err
}

// Status returns the stuck and ready counts.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	_, err := c.do(ctx, http.MethodGet, wire.RouteStatus, nil, &s)
	return s, err
}
