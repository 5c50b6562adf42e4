package hosts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// Backoff between attempts: from firstRetry, doubling, up to retryCap while ssh itself
// fails to connect (a refused or unreachable server costs one TCP attempt, and the host is
// back within a second of its sshd), up to slowRetryCap when ssh got in but the other end
// refused (a key not accepted, the remote daemon down), which retrying fast would not mend.
const (
	firstRetry   = 100 * time.Millisecond
	retryCap     = 500 * time.Millisecond
	slowRetryCap = 10 * time.Second
)

// Conn is the hub's connection to one host's daemon, and what it last said.
type Conn struct {
	cfg     Config
	version string // this hub's Trail Boss, as the mismatch says it
	ctl     string // the ControlMaster's socket
	log     *slog.Logger
	ssh     string // the ssh program; "ssh" from PATH
	// notify, when set, is called after the items or the state changed; it must not block.
	notify func()

	mu        sync.Mutex
	connected bool
	leftOut   bool        // the host speaks another protocol (versionError)
	since     time.Time   // when connected, or unreachable
	lastErr   string      // why not connected
	items     []wire.Item // the host's queue as it said last; Host set
	cooling   int         // of items, the ones not ready: Counts reads it, not every item
	rtt       time.Duration
	ahead     time.Duration // the largest (server time - receipt) seen on this connection
	offset    time.Duration // how far the host's clock is ahead of ours
	changed   chan struct{} // closed, and made anew, when items or state change (Await)
}

// NewConn returns the manager of host c, its ControlMaster in stateDir, for a hub that runs
// Trail Boss version.
func NewConn(c Config, stateDir, version string, log *slog.Logger) *Conn {
	return &Conn{cfg: c, version: version, ctl: ControlPath(stateDir, c.Name), log: log.With("host", c.Name), ssh: "ssh",
		changed: make(chan struct{})}
}

// Run keeps the host connected until ctx ends: it runs ssh, reads the host's queue while
// the connection lasts, and when it ends marks the host unreachable and tries again.
func (c *Conn) Run(ctx context.Context) error {
	if len(c.ctl) > MaxControlPath {
		c.fail(fmt.Sprintf("the state directory's path is too long for ssh's control socket %s (at most %d bytes): "+
			"set TRAILBOSS_STATE_DIR to a shorter folder of yours", c.ctl, MaxControlPath))
		<-ctx.Done()
		return nil
	}
	wait := firstRetry
	// Where ssh connects, for the probe (probe.go): learnt once, beside the first
	// connection, so that asking is not on the way back.
	learnt := make(chan string, 1)
	go func() { learnt <- sshAddress(ctx, c.ssh, c.cfg, c.ctl) }()
	for ctx.Err() == nil {
		reached, slow, why := c.session(ctx)
		if ctx.Err() != nil {
			break
		}
		if reached {
			wait = firstRetry
		}
		if !slow && cannotReach(why) {
			if addr := <-learnt; addr != "" {
				learnt <- addr
				waitReachable(ctx, addr, slowRetryCap)
				wait = firstRetry
				continue
			}
			learnt <- ""
		}
		limit := retryCap
		if slow {
			limit = slowRetryCap
		}
		t := time.NewTimer(min(wait, limit))
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		wait = min(wait*2, limit)
	}
	_ = os.Remove(c.ctl)
	return nil
}

// session runs one ssh until it ends. reached says that the remote daemon's stream was
// read; slow that ssh got through to the host and was refused there, so that retrying at
// once would not help; why is what the host's state says.
func (c *Conn) session(ctx context.Context) (reached, slow bool, why string) {
	// A ControlMaster killed before it cleaned up leaves its socket, and ssh would then run
	// without a master; the file is ours, in our own state directory.
	if fi, err := os.Lstat(c.ctl); err == nil && fi.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(c.ctl)
	}
	cmd := exec.CommandContext(ctx, c.ssh, sshArgs(c.cfg, c.ctl)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	stderr := &lastLine{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		c.fail("run ssh: " + err.Error())
		return false, true, ""
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		c.fail("run ssh: " + err.Error())
		return false, true, ""
	}
	if err := cmd.Start(); err != nil {
		c.fail("run ssh: " + err.Error())
		return false, true, ""
	}
	readErr := c.speak(in, bufio.NewReader(out))
	reached = readErr == nil || errors.Is(readErr, errStreamEnded)
	in.Close()
	waitErr := cmd.Wait()
	why = stderr.String()
	if errors.As(readErr, new(*versionError)) {
		why = readErr.Error()
	}
	if why == "" {
		switch {
		case readErr != nil && !errors.Is(readErr, errStreamEnded) && !isEnd(readErr):
			why = readErr.Error()
		case waitErr != nil:
			why = "ssh exited: " + waitErr.Error()
		default:
			why = "the remote daemon ended the stream"
		}
	}
	var mismatch *versionError
	if errors.As(readErr, &mismatch) {
		c.failAs(why, true)
		c.log.Warn("host left out", "why", why)
		return false, true, why
	}
	c.fail(why)
	var ee *exec.ExitError
	slow = strings.Contains(why, "Permission denied") || (errors.As(waitErr, &ee) && ee.ExitCode() != 255 && ee.ExitCode() != -1)
	c.log.Info("host unreachable", "why", why)
	return reached, slow, why
}

// errStreamEnded is the remote daemon closing a stream that was read.
var errStreamEnded = errors.New("the remote daemon ended the stream")

func isEnd(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed)
}

// speak asks the health check once (it waits for ssh to connect and the bridge to start),
// then once more together with the queue stream, sent in one write so that a connection
// coming back costs one round trip after ssh's own: the second health check's answer is the
// round trip. Then it applies every update of the stream until it ends.
func (c *Conn) speak(in io.Writer, out *bufio.Reader) error {
	var health bytes.Buffer
	if err := get(in, out, wire.RouteHealth, &health); err != nil {
		return err
	}
	if err := c.sameProtocol(health.Bytes()); err != nil {
		return err
	}
	began := time.Now()
	if _, err := io.WriteString(in, request(wire.RouteHealth)+request(wire.RouteQueueStream)); err != nil {
		return err
	}
	if err := readOK(out, wire.RouteHealth, io.Discard); err != nil {
		return err
	}
	rtt := time.Since(began)
	resp, err := http.ReadResponse(out, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return refusal(wire.RouteQueueStream, resp)
	}
	dec := json.NewDecoder(resp.Body)
	items := newItemDecoder(c.finish)
	for first := true; ; first = false {
		var upd pushedUpdate
		if err := dec.Decode(&upd); err != nil {
			if !first && isEnd(err) {
				return errStreamEnded
			}
			return err
		}
		var its []wire.Item
		if !upd.Beat {
			var err error
			if its, err = items.decode(upd.Items); err != nil {
				return err
			}
		}
		c.take(upd.ServerTime, upd.Beat, its, time.Now(), rtt, first)
	}
}

// versionError is a host whose Trail Boss speaks another protocol than this hub's: the hub
// leaves it out rather than read what it might say differently.
type versionError struct {
	host, theirs, ours string
	theirProtocol      int
}

func (e *versionError) Error() string {
	msg := fmt.Sprintf("%s runs Trail Boss %s, this hub runs %s: left out until both run the same version", e.host, e.theirs, e.ours)
	if e.theirs == e.ours {
		msg += fmt.Sprintf(" (its protocol is %d, this hub's %d)", e.theirProtocol, wire.Protocol)
	}
	return msg
}

// sameProtocol returns a *versionError unless health, the host's answer to GET /healthz,
// says this hub's protocol.
func (c *Conn) sameProtocol(health []byte) error {
	var h wire.Health
	if err := json.Unmarshal(health, &h); err != nil {
		return fmt.Errorf("read the remote daemon's health answer: %w", err)
	}
	if h.Protocol == wire.Protocol {
		return nil
	}
	theirs := h.Version
	if theirs == "" {
		theirs = "of unknown version"
	}
	return &versionError{host: c.cfg.Name, theirs: theirs, ours: c.version, theirProtocol: h.Protocol}
}

// finish returns it, an item of the host's own queue as its daemon sent it, as the hub
// holds it: with its host, its prompts named for it, and the command of its host window.
func (c *Conn) finish(it wire.Item) wire.Item {
	it.Host, it.Stale = c.cfg.Name, false
	// Its prompt records are the host's: named "host/id" here, so that they never meet
	// this daemon's own, and an answer to one is forwarded there (Forward).
	namespacePrompts(c.cfg.Name, &it)
	if it.Pane != "" {
		it.Attach = shellLine(attachArgs(c.cfg, c.ctl, it.TmuxSocket, it.Pane))
	}
	return it
}

// take applies an update the host sent at sent (its clock) and that arrived at got:
// items, finished, are its whole queue, unless beat says that nothing changed.
func (c *Conn) take(sent time.Time, beat bool, items []wire.Item, got time.Time, rtt time.Duration, first bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notify != nil && (first || !beat) {
		defer c.notify() // it never blocks nor takes mu
	}
	// The server's time reached us one way later than it was read: the least delayed
	// sample says the most, and half a round trip is that one way.
	ahead := sent.Sub(got)
	if first || ahead > c.ahead {
		c.ahead = ahead
	}
	c.offset, c.rtt = c.ahead+rtt/2, rtt
	if first {
		c.connected, c.since, c.lastErr, c.leftOut = true, got, "", false
		c.log.Info("host connected", "rtt", rtt, "clock_offset", c.offset)
	}
	if beat {
		return
	}
	defer c.wake()
	c.items, c.cooling = items, 0
	for _, it := range items {
		if !it.Ready {
			c.cooling++
		}
	}
}

// fail marks the host unreachable for why; its items stay, stale.
func (c *Conn) fail(why string) { c.failAs(why, false) }

// failAs is fail; leftOut says that the host is not read for its version.
func (c *Conn) failAs(why string, leftOut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notify != nil {
		defer c.notify() // it never blocks nor takes mu
	}
	if c.connected || c.since.IsZero() {
		c.since = time.Now()
	}
	c.connected, c.lastErr, c.leftOut = false, why, leftOut
	// A new list, not the published one changed: a snapshot taken before is read without
	// the lock.
	stale := make([]wire.Item, len(c.items))
	for i, it := range c.items {
		it.Stale = true
		stale[i] = it
	}
	c.items = stale
	c.wake()
}

// wake tells Await's waiters that the items or the state changed. Called with mu held.
func (c *Conn) wake() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// request returns a GET of route as the hub sends it through the bridge.
func request(route string) string {
	return "GET " + route + " HTTP/1.1\r\nHost: trailboss\r\nUser-Agent: trailboss-hub\r\n\r\n"
}

// get sends GET route and copies a 200's body to body.
func get(in io.Writer, out *bufio.Reader, route string, body io.Writer) error {
	if _, err := io.WriteString(in, request(route)); err != nil {
		return err
	}
	return readOK(out, route, body)
}

// readOK reads the answer to GET route and copies a 200's body to body.
func readOK(out *bufio.Reader, route string, body io.Writer) error {
	resp, err := http.ReadResponse(out, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return refusal(route, resp)
	}
	_, err = io.Copy(body, resp.Body)
	return err
}

// refusal says what the remote daemon answered instead of 200.
func refusal(route string, resp *http.Response) error {
	var e wire.Error
	_ = json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&e)
	msg := e.Error
	if msg == "" {
		msg = resp.Status
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("the remote daemon did not take the bridge as its own user's (%s): "+
			"restart it there (trailboss stop && trailboss start) so that it runs the same trailboss as the bridge", msg)
	}
	return fmt.Errorf("the remote daemon answered GET %s with %s", route, msg)
}

// lastLine keeps the last non-empty line written to it (ssh's stderr), bounded.
type lastLine struct {
	mu   sync.Mutex
	buf  []byte // the line being written
	last string
}

func (l *lastLine) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range p {
		if b == '\n' {
			if s := strings.TrimSpace(string(l.buf)); s != "" {
				l.last = s
			}
			l.buf = l.buf[:0]
			continue
		}
		if len(l.buf) < 1024 {
			l.buf = append(l.buf, b)
		}
	}
	return len(p), nil
}

// String returns the last line, or the unfinished one when nothing else came.
func (l *lastLine) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := strings.TrimSpace(string(l.buf)); s != "" {
		return s
	}
	return l.last
}
