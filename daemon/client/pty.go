package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// The trailboss run supervisor's side of docs/delivery.md's PTY protocol.

// PTYStreamIdle is how long the answer stream may carry nothing, not even the daemon's
// heartbeat (every 10 s), before PTYAnswers takes the connection for dead.
const PTYStreamIdle = 30 * time.Second

// maxPTYLine bounds one line of the answer stream.
const maxPTYLine = 1 << 20

// PTYReport posts one report of a trailboss run supervisor (POST /v1/pty/report), with the
// tmux pane it runs in (pane and tmux are $TMUX_PANE and $TMUX, empty outside tmux), and
// returns the daemon's acknowledgement: for state prompt, the prompt record's id. Errors
// are Post's: a 4xx is a *RefusedError, an unreachable daemon ErrDown.
func (c *Client) PTYReport(ctx context.Context, rep wire.PTYReport, pane, tmux string) (wire.PTYReportAck, error) {
	var ack wire.PTYReportAck
	body, err := json.Marshal(rep)
	if err != nil {
		return ack, err
	}
	var headers map[string]string
	if pane != "" || tmux != "" {
		headers = map[string]string{wire.HeaderPane: pane, wire.HeaderTmux: tmux}
	}
	err = c.PostFor(ctx, wire.RoutePTYReport, body, headers, &ack)
	return ack, err
}

// PTYWritten tells the daemon what became of an answer (POST /v1/pty/written).
func (c *Client) PTYWritten(ctx context.Context, w wire.PTYWritten) error {
	body, err := json.Marshal(w)
	if err != nil {
		return err
	}
	return c.PostFor(ctx, wire.RoutePTYWritten, body, nil, nil)
}

// PTYAnswers holds session's answer stream open (GET /v1/pty/answers) and calls fn with
// each answer, in order, skipping heartbeats. It returns when ctx is done (ctx's error),
// when the stream ends or breaks, or when it carried nothing for PTYStreamIdle; the
// daemon's refusal (a 4xx) is a *RefusedError, an unreachable daemon ErrDown. fn runs on
// the stream's goroutine: the next answer waits for it.
func (c *Client) PTYAnswers(ctx context.Context, session string, fn func(wire.PTYAnswer)) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(sctx, http.MethodGet,
		c.base+wire.RoutePTYAnswers+"?"+url.Values{"session": {session}}.Encode(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	// The client's own timeout would end the stream: the idle timer stands in for it.
	var idled atomic.Bool
	idle := time.AfterFunc(PTYStreamIdle, func() {
		idled.Store(true)
		cancel()
	})
	defer idle.Stop()
	silent := fmt.Errorf("the answer stream carried nothing for %v, not even a heartbeat", PTYStreamIdle)
	resp, err := c.WithTimeout(0).http.Do(req)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case idled.Load():
		return silent
	case err != nil:
		return c.failed(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		reply, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		var e wire.Error
		if json.Unmarshal(reply, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(reply))
		}
		if resp.StatusCode >= 500 {
			return fmt.Errorf("the daemon could not open the answer stream: %s: %s", resp.Status, e.Error)
		}
		return &RefusedError{Status: resp.Status, Message: e.Error}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 4096), maxPTYLine)
	for sc.Scan() {
		idle.Reset(PTYStreamIdle)
		var a wire.PTYAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return fmt.Errorf("the answer stream carried a line that is not JSON: %w", err)
		}
		if a.AnswerID == "" {
			continue // a heartbeat
		}
		fn(a)
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case idled.Load():
		return silent
	case sc.Err() != nil:
		return fmt.Errorf("the answer stream broke: %w", sc.Err())
	}
	return fmt.Errorf("the daemon closed the answer stream")
}
