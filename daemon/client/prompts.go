package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// AnswerRefusedError is the daemon's 409 to an answer: nothing was typed, and Reason
// (wire.RefusedAnswered, …) says why. It is the daemon's own refusal, decoded, so that
// wire.OutcomeOf reads it as the daemon does.
type AnswerRefusedError = wire.PromptRefusal

// ErrUnknownPrompt is the daemon's 404 to an answer: no prompt has that id. It is
// wire.ErrUnknownPrompt (wire.OutcomeOf reads it so), with what to do.
var ErrUnknownPrompt = fmt.Errorf("%w: it may have been answered and forgotten, or never existed — run trailboss ls to see what is waiting",
	wire.ErrUnknownPrompt)

// ErrAnswerTimeout: the daemon did not say in time what became of an answer; it may or may
// not have been delivered, and `trailboss log` will say.
var ErrAnswerTimeout = errors.New("the daemon did not say in time whether the answer was delivered — trailboss log will show what became of it")

// WhyNoPrompt says in plain words why queue item it has no prompt that can be answered
// from elsewhere now (its Prompt is nil), as of now: its prompt was already answered (and
// the agent has not moved on), expired, or changed; or the daemon made none, because it
// does not know the item's pane or cannot tell what it asks. What to do instead is the
// caller's to add: in every case the answer can still be typed in the pane.
func WhyNoPrompt(it Item, now time.Time) string {
	if c := it.PromptClosed; c != nil {
		ago := ""
		if !c.ClosedAt.IsZero() {
			ago = ", " + queue.Age(now.Sub(c.ClosedAt)) + " ago"
		}
		switch c.Status {
		case wire.PromptAnswered:
			what := "a typed reply"
			if c.Answer != "" {
				what = c.Answer
			}
			from := ""
			if c.Channel != "" {
				from = ", from " + c.Channel
			}
			return "its prompt was already answered (" + what + from + ago + "), yet it still waits: " +
				"it may not have taken the answer"
		case wire.PromptExpired:
			return "its prompt expired unanswered" + strings.TrimPrefix(ago, ",") + " (prompt_ttl in config.toml)"
		case wire.PromptFailed:
			return "its session has ended"
		}
		return "what it asks changed, and Trail Boss cannot tell what it asks now"
	}
	if it.Pane == "" && it.Harness != queue.HarnessPTY {
		return "Trail Boss does not know its tmux pane (its hooks did not say), so nothing can be typed into it"
	}
	return "Trail Boss cannot tell what it asks (its question's options are only on its screen)"
}

// Answer delivers a person's answer to prompt id. A 409 is an *AnswerRefusedError, a 404
// ErrUnknownPrompt, a 400 a *RefusedError with the daemon's reason.
func (c *Client) Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error) {
	var out wire.Delivered
	body, err := json.Marshal(a)
	if err != nil {
		return out, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+wire.PromptRoute(wire.RouteAnswer, id), bytes.NewReader(body))
	if err != nil {
		return out, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	var netErr net.Error
	switch {
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout()):
		// The daemon took the request and may be typing the answer: it is not down.
		return out, ErrAnswerTimeout
	case err != nil:
		return out, c.failed(err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch resp.StatusCode {
	case http.StatusOK:
		if err := json.Unmarshal(reply, &out); err != nil {
			return out, fmt.Errorf("the daemon's answer could not be read: %w", err)
		}
		return out, nil
	case http.StatusConflict:
		var r wire.Refused
		_ = json.Unmarshal(reply, &r)
		return out, &AnswerRefusedError{Reason: r.Reason, Message: r.Error}
	case http.StatusNotFound:
		return out, ErrUnknownPrompt
	}
	var e wire.Error
	if json.Unmarshal(reply, &e) != nil || e.Error == "" {
		e.Error = strings.TrimSpace(string(reply))
	}
	return out, &RefusedError{Status: resp.Status, Message: e.Error}
}

// WaitPrompt waits up to timeout for prompt id to leave pending and returns its status
// (and the answer when it was answered). The client's own timeout must be longer.
func (c *Client) WaitPrompt(ctx context.Context, id string, timeout time.Duration) (wire.PromptWait, error) {
	var out wire.PromptWait
	_, err := c.do(ctx, http.MethodGet, wire.PromptRoute(wire.RouteWait, id),
		url.Values{"timeout": {timeout.String()}}, &out)
	return out, err
}

// Deliveries returns the last limit delivery attempts, newest first.
func (c *Client) Deliveries(ctx context.Context, limit int) ([]wire.Delivery, error) {
	var out wire.Deliveries
	_, err := c.do(ctx, http.MethodGet, wire.RouteDeliveries, url.Values{"limit": {strconv.Itoa(limit)}}, &out)
	return out.Deliveries, err
}

// WithTimeout returns a copy of c whose requests may take up to d (for long polls).
func (c *Client) WithTimeout(d time.Duration) *Client {
	cp := *c
	cp.http = &http.Client{Timeout: d, Transport: c.transport}
	return &cp
}
