// Package hot is the daemon's client for the hot verbs (emit, status, jump-next, skip), on
// a small HTTP/1.1 client of its own rather than net/http, which trailboss-hot would spend
// half its start initializing. Package client, the full client, shares its errors, how it
// reaches the daemon and how it reads the daemon's answers.
package hot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wire"
)

// Client talks to one daemon, one connection per request.
type Client struct {
	target  Target
	timeout time.Duration // of each request in all; 0 for none
}

// New returns a client for the daemon of stateDir (Find), whose requests each take at most
// timeout.
func New(addr, stateDir string, timeout time.Duration) (*Client, error) {
	t, err := Find(addr, stateDir)
	if err != nil {
		return nil, err
	}
	return &Client{target: t, timeout: timeout}, nil
}

// WithTimeout returns a copy of c whose requests may take up to d (for long polls).
func (c *Client) WithTimeout(d time.Duration) *Client {
	cp := *c
	cp.timeout = d
	return &cp
}

// Failed returns the error of a request to the daemon at where that got no answer within
// (0 when not known): an *ImpostorError or a *statedir.NotYoursError (nothing was sent: the
// daemon's place is not the user's own) as it is, one that ran out of time as a *BusyError,
// anything else (refused, no socket) as the daemon being down.
func Failed(where string, within time.Duration, err error) error {
	var impostor *ImpostorError
	if errors.As(err, &impostor) {
		return impostor
	}
	var notYours *statedir.NotYoursError
	if errors.As(err, &notYours) {
		return notYours
	}
	if timedOut(err) {
		return &BusyError{Addr: where, Within: within, Cause: err}
	}
	return &DownError{Addr: where, Cause: err}
}

// PostFor sends body (JSON) to path with the given extra headers, and returns nil once the
// daemon acknowledged it, its 2xx answer decoded into out (when out is not nil). A 4xx
// answer is a *RefusedError; an unreachable daemon ErrDown, one that did not answer in time ErrBusy; a daemon that could not take
// it (5xx) another error. The emitter posts every hook's payload through it.
func (c *Client) PostFor(ctx context.Context, path string, body []byte, headers map[string]string, out any) error {
	h := map[string]string{"Authorization": "Bearer " + c.target.Token, "Content-Type": "application/json"}
	for k, v := range headers {
		h[k] = v
	}
	resp, err := roundTrip(ctx, c.target, c.timeout, request{method: "POST", target: path, headers: h, body: body}, 1<<20)
	if err != nil {
		return Failed(c.target.Where(), c.timeout, err)
	}
	return PostOutcome(path, resp.code, resp.status, resp.body, out)
}

// PostOutcome returns what a POST to path returns for the daemon's answer: its code, status
// ("200 OK") and body (what of it could be read). See PostFor.
func PostOutcome(path string, code int, status string, reply []byte, out any) error {
	var e wire.Error
	if json.Unmarshal(reply, &e) != nil || e.Error == "" {
		e.Error = strings.TrimSpace(string(reply))
	}
	switch {
	case code >= 500:
		return fmt.Errorf("daemon could not take the event: %s: %s", status, e.Error)
	case code >= 300:
		return &RefusedError{Status: status, Message: e.Error}
	}
	if out != nil {
		if err := json.Unmarshal(reply, out); err != nil {
			return fmt.Errorf("POST %s: decode the daemon's answer: %w", path, err)
		}
	}
	return nil
}

// do sends method path?q with the token and decodes a 2xx answer into out (when not nil).
// It returns the answer's code and Outcome's error.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, out any) (int, error) {
	target := path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	h := map[string]string{"Authorization": "Bearer " + c.target.Token}
	resp, err := roundTrip(ctx, c.target, c.timeout, request{method: method, target: target, headers: h}, 16<<20)
	if err != nil {
		return 0, Failed(c.target.Where(), c.timeout, err)
	}
	if resp.bodyErr != nil {
		return resp.code, fmt.Errorf("%s %s: %w", method, path, resp.bodyErr)
	}
	return resp.code, Outcome(method, path, c.target.Where(), resp.code, resp.status, resp.contentType, resp.body, out)
}

// Outcome returns what a request (method, path) to the daemon at where returns for its
// answer: nil for a 204, or a 2xx decoded into out (when not nil); a *ForeignError when the
// answer is not the daemon's JSON; else an error with the daemon's reason.
func Outcome(method, path, where string, code int, status, contentType string, body []byte, out any) error {
	const noContent = 204
	if code != noContent && !strings.HasPrefix(contentType, "application/json") {
		// The daemon answers everything in JSON: this is another server on our port.
		return &ForeignError{Addr: where}
	}
	switch {
	case code == noContent:
		return nil
	case code >= 300:
		var e wire.Error
		_ = json.Unmarshal(body, &e)
		if e.Error == "" {
			e.Error = strings.TrimSpace(string(body))
		}
		return fmt.Errorf("%s %s: %s: %s", method, path, status, e.Error)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			return fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
	}
	return nil
}

// Where returns the parameters that say which tmux client asks: its server's socket and
// the pane it is on (each left out when "").
func Where(socket, pane string) url.Values {
	q := url.Values{}
	if socket != "" {
		q.Set("socket", socket)
	}
	if pane != "" {
		q.Set("pane", pane)
	}
	return q
}

// Next returns the head for a client of the tmux server at socket that is on pane, or false
// when nothing is ready.
func (c *Client) Next(ctx context.Context, socket, pane string) (wire.Item, bool, error) {
	var it wire.Item
	code, err := c.do(ctx, "GET", wire.RouteNext, Where(socket, pane), &it)
	return it, err == nil && code == 200, err
}

// Jump returns the head as Next does and has the daemon switch client to it (Landed set
// when it did). A daemon from before POST /v1/jump answers as Next, Landed false.
func (c *Client) Jump(ctx context.Context, socket, pane, client string) (wire.Item, bool, error) {
	const notFound = 404
	q := Where(socket, pane)
	q.Set("client", client)
	var it wire.Item
	code, err := c.do(ctx, "POST", wire.RouteJump, q, &it)
	if code == notFound {
		return c.Next(ctx, socket, pane)
	}
	return it, err == nil && code == 200, err
}

// Skip skips the item at pane (or the head) and returns the new head, or false when none.
// With client, the daemon also switches that client to the new head (Landed set when it
// did; a daemon from before that answers Landed false).
func (c *Client) Skip(ctx context.Context, socket, pane, client string) (wire.Item, bool, error) {
	q := Where(socket, pane)
	if client != "" {
		q.Set("client", client)
	}
	var it wire.Item
	code, err := c.do(ctx, "POST", wire.RouteSkip, q, &it)
	return it, err == nil && code == 200, err
}

// Status returns the stuck and ready counts.
func (c *Client) Status(ctx context.Context) (wire.Status, error) {
	var s wire.Status
	_, err := c.do(ctx, "GET", wire.RouteStatus, nil, &s)
	return s, err
}

// WaitPrompt waits up to timeout for prompt id to leave pending and returns its status
// (and the answer when it was answered). The client's own timeout must be longer.
func (c *Client) WaitPrompt(ctx context.Context, id string, timeout time.Duration) (wire.PromptWait, error) {
	var out wire.PromptWait
	_, err := c.do(ctx, "GET", wire.PromptRoute(wire.RouteWait, id), url.Values{"timeout": {timeout.String()}}, &out)
	return out, err
}

// HostJump asks a hub to move its host window's client on host to pane of the tmux server at
// socket there (through ssh: it may take longer than a local request).
func (c *Client) HostJump(ctx context.Context, host, socket, pane string) error {
	body, err := json.Marshal(wire.HostJump{Host: host, Socket: socket, Pane: pane})
	if err != nil {
		return err
	}
	return c.WithTimeout(max(c.timeout, 10*time.Second)).PostFor(ctx, wire.RouteHostJump, body, nil, nil)
}
