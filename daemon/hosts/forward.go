package hosts

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// HeaderHub names the hub that forwards a request, as the hub says (its host name): the
// remote daemon's audit records it beside what it reads itself (the bridge's
// SSH_CONNECTION).
const HeaderHub = "X-Trailboss-Hub"

// Request is one request the hub forwards to a host's daemon: an answer, skip or dismiss
// of one of its items.
type Request struct {
	Method string
	Path   string // with its query, as the remote daemon routes it
	Body   []byte
	Hub    string // this hub's name, sent as HeaderHub
}

// Response is what the host's daemon answered, status and body as they came.
type Response struct {
	Status int
	Body   []byte
}

// ErrUnknownHost is a host name not in [[hosts]].
var ErrUnknownHost = errors.New("no such host in [[hosts]]")

// UnreachableError is a host not connected now: nothing was sent to it.
type UnreachableError struct {
	Since time.Time // since when
	Why   string    // ssh's last line, or what else ended the connection
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("it is unreachable since %s (%s): answer it on that machine, or again once trailboss hosts says it is connected",
		e.Since.Format(time.TimeOnly), e.Why)
}

// forwardTimeout bounds one forwarded request: an answer may be typed into a pane and
// confirmed there, which the remote daemon waits for.
const forwardTimeout = 30 * time.Second

// Forward sends req to host's daemon and returns its answer. It goes over a new session of
// the host's ControlMaster (the stream's own session is busy with the queue): `ssh … host
// trailboss bridge` again, multiplexed on the connection that is there, so no new login.
func (s *Set) Forward(ctx context.Context, host string, req Request) (Response, error) {
	for _, c := range s.conns {
		if c.cfg.Name == host {
			return c.forward(ctx, req)
		}
	}
	return Response{}, ErrUnknownHost
}

// HostOf returns the host whose queue holds session id; "" when none does (or more than
// one, which is not for the hub to pick).
func (s *Set) HostOf(session string) string {
	found := ""
	for _, c := range s.conns {
		c.mu.Lock()
		for _, it := range c.items {
			if it.SessionID == session {
				if found != "" {
					c.mu.Unlock()
					return ""
				}
				found = c.cfg.Name
				break
			}
		}
		c.mu.Unlock()
	}
	return found
}

func (c *Conn) forward(ctx context.Context, req Request) (Response, error) {
	c.mu.Lock()
	connected, since, why := c.connected, c.since, c.lastErr
	c.mu.Unlock()
	if !connected {
		return Response{}, &UnreachableError{Since: since, Why: why}
	}
	ctx, cancel := context.WithTimeout(ctx, forwardTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.ssh, sshForwardArgs(c.cfg, c.ctl)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	stderr := &lastLine{}
	cmd.Stderr = stderr
	var in bytes.Buffer
	fmt.Fprintf(&in, "%s %s HTTP/1.1\r\nHost: trailboss\r\nUser-Agent: trailboss-hub\r\nConnection: close\r\n", req.Method, req.Path)
	fmt.Fprintf(&in, "%s: %s\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n", HeaderHub, req.Hub, strconv.Itoa(len(req.Body)))
	in.Write(req.Body)
	cmd.Stdin = &in
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Response{}, fmt.Errorf("run ssh: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return Response{}, fmt.Errorf("run ssh: %w", err)
	}
	resp, readErr := readResponse(out)
	waitErr := cmd.Wait()
	if readErr != nil {
		if line := stderr.String(); line != "" {
			return Response{}, fmt.Errorf("ssh: %s", line)
		}
		if waitErr != nil {
			return Response{}, fmt.Errorf("ssh exited before the remote daemon answered: %w", waitErr)
		}
		return Response{}, fmt.Errorf("read the remote daemon's answer: %w", readErr)
	}
	return resp, nil
}

func readResponse(out io.Reader) (Response, error) {
	resp, err := http.ReadResponse(bufio.NewReader(out), nil)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Response{}, err
	}
	return Response{Status: resp.StatusCode, Body: body}, nil
}

// Namespaced returns the id by which the hub names host's prompt id: "host/id". Host
// names hold no "/" (config), so the first "/" splits it again (SplitPrompt).
func Namespaced(host, id string) string { return host + "/" + id }

// SplitPrompt returns the host and the host's own prompt id of a hub's prompt id; ok is
// false for one of the hub's own (no "/").
func SplitPrompt(id string) (host, remote string, ok bool) {
	for i := 0; i < len(id); i++ {
		if id[i] == '/' {
			return id[:i], id[i+1:], i > 0
		}
	}
	return "", id, false
}

// namespacePrompts renames the prompt records of it, a host's item, as the hub names
// them.
func namespacePrompts(host string, it *wire.Item) {
	if it.Prompt != nil {
		p := *it.Prompt
		p.ID = Namespaced(host, p.ID)
		it.Prompt = &p
	}
	if it.PromptClosed != nil {
		p := *it.PromptClosed
		p.ID = Namespaced(host, p.ID)
		it.PromptClosed = &p
	}
}
