package tmuxctl

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A tmux command run as its own process costs a process start and a client handshake (about
// 2.5 ms) for well under a millisecond of tmux's work. A control-mode client (tmux -C, as
// terminal emulators use) stays attached and takes one command a line, answering each in a
// block framed by "%begin TIME NUMBER FLAGS" and "%end …" (or "%error …"): the daemon holds
// one per tmux server and runs its hot commands through it, starting no process.
//
// What a control client is, and how ours keeps out of the way:
//   - it is attached to a session (tmux has no session-less control client: one exits after
//     its first command), so it is listed by list-clients. It attaches with -f
//     ignore-size,no-output: it never sizes a window and is sent no pane output. ListClients
//     leaves out every control client with no-output, which no terminal can be (it would
//     show nothing), so it is never taken for the operator's client.
//   - a command it runs has it as the current client: a command that names no client or
//     target (switch-client without -c) would act on it. controlSafe lets through only
//     commands that name what they act on; the rest run as processes.
//   - tmux writes a command's output into the block as it is, so a pane showing
//     "%end 1 2 1" makes a capture look finished early. Each command line is followed by a
//     display-message of a random nonce; the answer is everything up to the nonce's block,
//     and an answer whose framing does not add up is thrown away and the command run as a
//     process.
//   - it ends when the server ends (or its session is destroyed): the next command starts a
//     new one, no sooner than a backoff after a failed start, and runs as a process until it
//     is up. A server it cannot attach to (no session yet, an old tmux) is served by
//     processes as before.

// counts of what this process asked of tmux, for the daemon's debug endpoint and tests.
var (
	processesStarted atomic.Int64 // one-shot tmux processes (run without a control client)
	controlsStarted  atomic.Int64 // control clients started
	controlCommands  atomic.Int64 // commands answered by a control client
)

// Counts are what this process has asked of tmux since it started.
type Counts struct {
	Processes       int64 `json:"processes"`        // one-shot tmux processes started
	ControlClients  int64 `json:"control_clients"`  // control-mode clients started
	ControlCommands int64 `json:"control_commands"` // commands run through a control client
}

// Started returns the counts of this process.
func Started() Counts {
	return Counts{Processes: processesStarted.Load(), ControlClients: controlsStarted.Load(),
		ControlCommands: controlCommands.Load()}
}

// errControlDown says the control client could not answer; the command runs as a process.
var errControlDown = errors.New("tmux control client unavailable")

// Backoff between failed starts of a control client.
const (
	controlBackoffMin = 250 * time.Millisecond
	controlBackoffMax = 5 * time.Second
	controlAttachWait = 3 * time.Second // for a new control client's first answer
	controlAnswerWait = 3 * time.Second // for the answer to a command
)

// Pool holds one control client per tmux server, started on first use.
type Pool struct {
	Bin string   // tmux binary; "tmux" when empty
	Env []string // environment of the tmux processes; the caller's own when nil

	mu       sync.Mutex
	controls map[string]*control
	closed   bool
}

// Server returns a Server for socket whose commands go through the pool's control client of
// that server when they can. It has the signature of New, for the daemon's components.
func (p *Pool) Server(socket string) *Server {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &Server{Bin: p.Bin, Socket: socket, Env: p.Env}
	if p.closed || socket == "" {
		return s
	}
	if p.controls == nil {
		p.controls = map[string]*control{}
	}
	c := p.controls[socket]
	if c == nil {
		c = &control{bin: p.Bin, socket: socket, env: p.Env}
		p.controls[socket] = c
	}
	s.control = c
	return s
}

// Close ends every control client; Servers made after run their commands as processes.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.controls {
		c.close()
	}
	p.controls = nil
}

// control is one control-mode client of one tmux server.
type control struct {
	bin, socket string
	env         []string

	mu      sync.Mutex // one command line in flight
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   <-chan string // the client's output, a line each (no "\n"); closed at its end
	stderr  *bytes.Buffer
	closed  bool
	retryAt time.Time     // no new start before then
	backoff time.Duration // of the next failed start
}

// run runs one tmux command line (argv as Server.run takes it) through the control client.
// It returns errControlDown when the client is not up and cannot be started now, or when
// its answer could not be trusted; the caller then runs the command as a process.
func (c *control) run(ctx context.Context, args []string) (string, error) {
	line, ok := controlLine(args)
	if !ok {
		return "", errControlDown
	}
	// tmux answers in well under a millisecond: a client that keeps a command longer is
	// stuck, and the command runs as a process.
	ctx, cancel := context.WithTimeout(ctx, controlAnswerWait)
	defer cancel()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return "", errControlDown
		}
	}
	out, failed, err := c.exchange(ctx, line)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, errControlEnded) {
			// Half an answer may still come: a client out of step is not used again.
			c.stop()
		}
		return "", errControlDown
	}
	controlCommands.Add(1)
	if failed {
		return "", commandError(args[0], out)
	}
	return out, nil
}

// commandError is the error of a command that tmux refused with msg, as runInput makes it.
func commandError(name, msg string) error {
	msg = strings.TrimSpace(msg)
	if kind := classify(msg); kind != nil {
		return fmt.Errorf("tmux %s: %w: %s", name, kind, msg)
	}
	return fmt.Errorf("tmux %s: %s", name, msg)
}

var (
	errControlEnded   = errors.New("control client ended")
	errControlOutStep = errors.New("control client's answer out of step")
)

// start starts the control client and waits for its first answer. On failure it sets the
// backoff and returns an error.
func (c *control) start() error {
	now := time.Now()
	if c.closed || now.Before(c.retryAt) {
		return errControlDown
	}
	err := c.attach()
	if err != nil {
		c.stop()
		c.backoff = min(max(2*c.backoff, controlBackoffMin), controlBackoffMax)
		c.retryAt = now.Add(c.backoff)
		return err
	}
	c.backoff = 0
	return nil
}

func (c *control) attach() error {
	bin := c.bin
	if bin == "" {
		bin = "tmux"
	}
	// -N: attach-session starts a server when none answers (running the user's tmux.conf,
	// which may restore saved sessions): a control client only joins one that is running.
	// ignore-size: it never sizes a window; no-output: it is sent no pane output (and
	// ListClients knows it by that flag).
	cmd := exec.Command(bin, "-u", "-N", "-C", "-S", c.socket, "attach-session", "-f", "ignore-size,no-output")
	// Not $TMUX: a daemon started from inside tmux has it, and tmux refuses to attach a
	// client that says it runs inside the same server ("sessions should be nested with care").
	env := c.env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=")
	})
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	c.stderr = &bytes.Buffer{}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	controlsStarted.Add(1)
	lines := make(chan string, 64)
	go readLines(stdout, lines)
	c.cmd, c.stdin, c.lines = cmd, stdin, lines
	ctx, cancel := context.WithTimeout(context.Background(), controlAttachWait)
	defer cancel()
	if _, _, err := c.exchange(ctx, ""); err != nil {
		return fmt.Errorf("attach a tmux control client: %w: %s", err, strings.TrimSpace(c.stderr.String()))
	}
	return nil
}

// readLines sends r's lines to out, then closes it.
func readLines(r io.Reader, out chan<- string) {
	defer close(out)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			out <- strings.TrimSuffix(line, "\n")
		}
		if err != nil {
			return
		}
	}
}

// stop ends the control client, if any; the next command starts a new one.
func (c *control) stop() {
	if c.cmd == nil {
		return
	}
	_ = c.stdin.Close() // tmux detaches the client when its input ends
	_ = c.cmd.Process.Kill()
	go func(cmd *exec.Cmd, lines <-chan string) {
		for range lines { // let the reader finish
		}
		_ = cmd.Wait()
	}(c.cmd, c.lines)
	c.cmd, c.stdin, c.lines = nil, nil, nil
}

func (c *control) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.stop()
}

// exchange writes line (none when "") and a display-message of a fresh nonce, and reads
// the answer: the output of line's blocks, and whether one of them failed. Everything up to
// the nonce's block is the answer; a line of output outside a block, or an end outside one,
// says a command's output forged a block's end, and the answer is not used.
func (c *control) exchange(ctx context.Context, line string) (string, bool, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", false, err
	}
	nonce := "trailboss-" + hex.EncodeToString(raw[:])
	msg := "display-message -p " + nonce + "\n"
	if line != "" {
		msg = line + "\n" + msg
	}
	if _, err := io.WriteString(c.stdin, msg); err != nil {
		return "", false, errControlEnded
	}
	var (
		out     strings.Builder
		block   []string // the lines of the open block
		open    string   // "TIME NUMBER FLAGS" of the open block, or ""
		failed  bool
		outStep bool
	)
	for {
		var l string
		var ok bool
		select {
		case l, ok = <-c.lines:
			if !ok {
				return "", false, errControlEnded
			}
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
		if open == "" {
			switch {
			case strings.HasPrefix(l, "%begin "):
				open = strings.TrimPrefix(l, "%begin ")
				block = block[:0]
			case strings.HasPrefix(l, "%end "), strings.HasPrefix(l, "%error "), !strings.HasPrefix(l, "%"):
				outStep = true
			}
			continue // a notification (%session-changed, %window-add, …)
		}
		end, isEnd := strings.CutPrefix(l, "%end ")
		errEnd, isErr := strings.CutPrefix(l, "%error ")
		if (!isEnd || end != open) && (!isErr || errEnd != open) {
			block = append(block, l)
			continue
		}
		flags := open[strings.LastIndexByte(open, ' ')+1:]
		open = ""
		if len(block) == 1 && block[0] == nonce {
			if outStep {
				return "", false, errControlOutStep
			}
			return out.String(), failed, nil
		}
		if flags != "1" {
			continue // not a command of this client's (its attach's own block)
		}
		failed = failed || isErr
		for _, b := range block {
			out.WriteString(b)
			out.WriteByte('\n')
		}
	}
}

// controlLine returns args (as Server.run takes them: ";" alone between commands, a trailing
// ";" of an argument written "\;") as one line of tmux's command language, and whether the
// command may run through a control client (controlSafe).
func controlLine(args []string) (string, bool) {
	var b strings.Builder
	cmdStart := true
	for _, a := range args {
		if a == ";" {
			b.WriteString(" ;")
			cmdStart = true
			continue
		}
		if strings.ContainsAny(a, "\n\r") {
			return "", false // a command line is one line
		}
		if cmdStart && !controlCommand[a] {
			return "", false
		}
		cmdStart = false
		if s, ok := strings.CutSuffix(a, `\;`); ok {
			a = s + ";"
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		// Inside single quotes tmux takes every character as it is; a quote is closed,
		// written as \' and opened again.
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	if b.Len() == 0 || !controlSafe(args) {
		return "", false
	}
	return b.String(), true
}

// controlCommand are the commands a control client may run for us: each one names the
// client, pane or option it acts on (controlSafe checks the ones that may leave it out), and
// each may run twice (a command whose answer was lost runs again as a process). Typing
// (send-keys, paste-buffer) is not among them: keys typed twice are an answer given twice.
var controlCommand = map[string]bool{
	"switch-client": true, "select-window": true, "select-pane": true,
	"set-option": true, "show-options": true, "refresh-client": true, "display-message": true,
	"list-clients": true, "list-panes": true, "capture-pane": true,
}

// controlSafe reports whether no command of args would act on the current client, which
// through a control client is the control client itself: switch-client and refresh-client
// must name a client, display-message a client or a pane, and the window and pane commands
// a target.
func controlSafe(args []string) bool {
	for len(args) > 0 {
		i := 0
		for i < len(args) && args[i] != ";" {
			i++
		}
		cmd := args[:i]
		if i < len(args) {
			i++
		}
		args = args[i:]
		has := func(flag string) bool {
			for _, a := range cmd[1:] {
				if a == "--" {
					return false
				}
				if a == flag {
					return true
				}
			}
			return false
		}
		switch cmd[0] {
		case "switch-client":
			if !has("-c") {
				return false
			}
		case "refresh-client":
			if !has("-t") {
				return false
			}
		case "display-message":
			if !has("-c") && !has("-t") {
				return false
			}
		case "select-window", "select-pane", "capture-pane":
			if !has("-t") {
				return false
			}
		case "list-panes":
			if !has("-a") {
				return false
			}
		}
	}
	return true
}
