package main

// trailboss run end to end: the real binary as the supervisor, a real child on its PTY,
// the real daemon as its own process with a temp state directory; no tmux.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// lockedBuffer is a supervisor's screen, read while it writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// supervised is a `trailboss run` process.
type supervised struct {
	cmd    *exec.Cmd
	screen *lockedBuffer
	stderr *lockedBuffer
	done   chan struct{}
}

// startRunCmd starts `trailboss run args…` against d (nil: a daemon that is not there),
// its stdin a pipe that stays open, outside tmux.
func startRunCmd(t *testing.T, d *liveDaemon, args ...string) *supervised {
	t.Helper()
	addr, stateDir := "127.0.0.1:1", t.TempDir()
	if d != nil {
		addr, stateDir = d.addr, d.stateDir
	}
	s := &supervised{screen: &lockedBuffer{}, stderr: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command("trailboss", append([]string{"run"}, args...)...)
	// GORACE: a -race binary otherwise sleeps a second at exit, which would read as a run
	// that waits for its daemon.
	s.cmd.Env = append(os.Environ(), "TRAILBOSS_ADDR="+addr, "TRAILBOSS_STATE_DIR="+stateDir, "TMUX=", "TMUX_PANE=",
		"HOME="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
	s.cmd.Stdout, s.cmd.Stderr = s.screen, s.stderr
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.done)
		_ = s.cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-s.done:
		default:
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

// exit waits for the supervisor to exit and returns its exit code.
func (s *supervised) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("trailboss run did not exit; screen %q, stderr %q", s.screen.String(), s.stderr.String())
	}
	return s.cmd.ProcessState.ExitCode()
}

// The brief's end-to-end case: a child under trailboss run asks "(y/n)", the queue shows
// the session with that prompt, an answer through the API reaches the child exactly once,
// a second answer is refused, and the child's exit ends the session.
func TestRunAnsweredThroughTheDaemon(t *testing.T) {
	d := startDaemon(t)
	s := startRunCmd(t, d, "--name", "deploy", "--settle", "300ms", "--",
		"sh", "-c", `printf 'Deploy to production? (y/n) '; read a; echo "got:$a"; sleep 0.5; exit 3`)
	c, err := client.New(d.addr, d.stateDir, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var it client.Item
	waitUntil(t, "the session to wait in the queue with its prompt", 10*time.Second, func() bool {
		items, err := c.Queue(ctx)
		if err != nil || len(items) != 1 || items[0].Prompt == nil {
			return false
		}
		it = items[0]
		return true
	})
	p := it.Prompt
	if !strings.HasPrefix(it.SessionID, "pty-") || p.Kind != wire.KindYesNo || p.Question != "Deploy to production? (y/n)" ||
		len(p.Choices) != 2 || p.Choices[0].Key != "y" || p.Choices[1].Key != "n" || !strings.Contains(it.Summary, "deploy") {
		t.Fatalf("queue item %+v, prompt %+v", it, *p)
	}
	var out wire.Delivered
	waitUntil(t, "the answer to be delivered", 10*time.Second, func() bool {
		// Until the supervisor's answer stream is attached, the daemon refuses (changed).
		out, err = c.Answer(ctx, p.ID, wire.Answer{Choice: "y"})
		var refused *client.AnswerRefusedError
		if errors.As(err, &refused) && refused.Reason == wire.RefusedChanged {
			return false
		}
		return true
	})
	if err != nil || out != (wire.Delivered{Delivered: true, Via: wire.ViaPTY, Confirmed: true}) {
		t.Fatalf("answer: %+v, %v (daemon log:\n%s)", out, err, d.log)
	}
	_, err = c.Answer(ctx, p.ID, wire.Answer{Choice: "y"})
	var refused *client.AnswerRefusedError
	if !errors.As(err, &refused) || refused.Reason != wire.RefusedAnswered {
		t.Fatalf("a second answer: %v, want refused as answered", err)
	}
	if code := s.exit(t); code != 3 {
		t.Fatalf("exit code %d, want the child's 3; stderr %q", code, s.stderr.String())
	}
	if n := strings.Count(s.screen.String(), "got:"); n != 1 || !strings.Contains(s.screen.String(), "got:y") {
		t.Fatalf("the child read %d answers, want one y; screen %q", n, s.screen.String())
	}
	if s.stderr.String() != "" {
		t.Fatalf("trailboss run wrote to the terminal: %q", s.stderr.String())
	}
	waitUntil(t, "the session to leave the queue", 5*time.Second, func() bool {
		items, err := c.Queue(ctx)
		return err == nil && len(items) == 0
	})
}

// Without a daemon the child runs untouched and the run ends as soon as it does.
func TestRunWithoutADaemon(t *testing.T) {
	s := startRunCmd(t, nil, "--", "sh", "-c", `echo hello; exit 0`)
	waitUntil(t, "the child's output", 10*time.Second, func() bool { return strings.Contains(s.screen.String(), "hello") })
	ended := time.Now()
	if code := s.exit(t); code != 0 {
		t.Fatalf("exit code %d; stderr %q", code, s.stderr.String())
	}
	if took := time.Since(ended); took > 700*time.Millisecond {
		t.Errorf("a run without a daemon took %v to end after its child: it should not wait for the daemon", took)
	}
	if !strings.Contains(s.screen.String(), "hello") || s.stderr.String() != "" {
		t.Fatalf("screen %q, stderr %q", s.screen.String(), s.stderr.String())
	}
}

// SIGTERM to the supervisor goes to the child, whose status is the run's.
func TestRunPassesSignalsOn(t *testing.T) {
	s := startRunCmd(t, nil, "--", "sh", "-c", `trap 'echo got-TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done`)
	waitUntil(t, "the child to start", 5*time.Second, func() bool { return strings.Contains(s.screen.String(), "ready") })
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := s.exit(t); code != 7 {
		t.Fatalf("exit code %d, want the child's 7; screen %q", code, s.screen.String())
	}
	if !strings.Contains(s.screen.String(), "got-TERM") {
		t.Fatalf("the child did not get SIGTERM: %q", s.screen.String())
	}

	s = startRunCmd(t, nil, "--", "sh", "-c", `echo ready; while :; do sleep 0.05; done`)
	waitUntil(t, "the child to start", 5*time.Second, func() bool { return strings.Contains(s.screen.String(), "ready") })
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if code := s.exit(t); code != 128+int(syscall.SIGHUP) {
		t.Fatalf("exit code %d, want 129 (the child died of SIGHUP)", code)
	}
}

// The command line: a missing command and bad flags are refused in plain words.
func TestRunCommandLine(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		says string
	}{
		{nil, 2, "no command given"},
		{[]string{"--settle", "0s", "--", "true"}, 2, "--settle must be longer than 0"},
		{[]string{"--settle", "2s", "--stall", "1s", "--", "true"}, 2, "must not be shorter than --settle"},
		{[]string{"--", "/nonexistent/trailboss-no-such-program"}, 127, "was not found"},
	} {
		s := startRunCmd(t, nil, tt.args...)
		if code := s.exit(t); code != tt.code || !strings.Contains(s.stderr.String(), tt.says) {
			t.Errorf("run %q: exit %d, stderr %q; want %d saying %q", tt.args, code, s.stderr.String(), tt.code, tt.says)
		}
	}
}

// QA-016: the daemon restarts while the child waits at a prompt. The child runs on; the
// supervisor reconnects, says start and its prompt again, and an answer after the restart
// reaches the child.
func TestRunSurvivesADaemonRestart(t *testing.T) {
	d := startDaemon(t)
	s := startRunCmd(t, d, "--settle", "300ms", "--", "sh", "-c", `printf 'Continue? (y/n) '; read a; echo "got:$a"`)
	ctx := context.Background()
	pending := func() (*wire.Prompt, bool) {
		c, err := client.New(d.addr, d.stateDir, 2*time.Second)
		if err != nil {
			return nil, false
		}
		items, err := c.Queue(ctx)
		if err != nil || len(items) != 1 || items[0].Prompt == nil {
			return nil, false
		}
		return items[0].Prompt, true
	}
	waitUntil(t, "the prompt in the queue", 10*time.Second, func() bool { _, ok := pending(); return ok })

	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = d.cmd.Wait() // its cleanup's Wait then returns at once
	again := exec.Command("trailboss", "daemon", "--state-dir", d.stateDir)
	again.Env = d.cmd.Env
	again.Stdout, again.Stderr = d.log, d.log
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = again.Process.Signal(syscall.SIGINT)
		_ = again.Wait()
	})
	var p *wire.Prompt
	waitUntil(t, "the prompt in the restarted daemon's queue", 10*time.Second, func() bool {
		var ok bool
		p, ok = pending()
		return ok
	})
	c, err := client.New(d.addr, d.stateDir, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the answer to be delivered after the restart", 10*time.Second, func() bool {
		_, err := c.Answer(ctx, p.ID, wire.Answer{Choice: "y"})
		return err == nil
	})
	if code := s.exit(t); code != 0 || !strings.Contains(s.screen.String(), "got:y") {
		t.Fatalf("exit %d, screen %q", code, s.screen.String())
	}
}

// trailboss run in a real tmux pane (a private tmux server): the pane is the person's
// terminal, so the child gets its size and keys through raw mode; the session is queued
// with that pane, and an answer through the API reaches the child.
func TestRunInATmuxPane(t *testing.T) {
	tm := tmuxtest.New(t)
	d := startDaemon(t)
	script := `stty size; printf 'Ship it? (y/n) '; read a; echo "got:$a"; printf 'Really? [y/N] '; read b; echo "got2:$b"; sleep 30`
	pane := tm.NewPane(t, "work", "env", "TRAILBOSS_ADDR="+d.addr, "TRAILBOSS_STATE_DIR="+d.stateDir,
		"trailboss", "run", "--name", "ship", "--settle", "300ms", "--", "sh", "-c", script)
	capture := func() string { return tm.Tmux(t, "capture-pane", "-p", "-t", pane) }
	tm.WaitFor(t, "the child's question in the pane", 10*time.Second, func() bool {
		return strings.Contains(capture(), "Ship it? (y/n)")
	})
	if !strings.Contains(capture(), fmt.Sprintf("%d %d", tmuxtest.Height, tmuxtest.Width)) {
		t.Fatalf("the child's window is not the pane's size:\n%s", capture())
	}
	c, err := client.New(d.addr, d.stateDir, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var it client.Item
	tm.WaitFor(t, "the session queued with its pane and prompt", 10*time.Second, func() bool {
		items, err := c.Queue(ctx)
		if err != nil || len(items) != 1 || items[0].Prompt == nil {
			return false
		}
		it = items[0]
		return true
	})
	if it.Pane != pane || it.Prompt.Question != "Ship it? (y/n)" {
		t.Fatalf("item %+v (pane %s), prompt %+v", it, pane, *it.Prompt)
	}
	tm.WaitFor(t, "the answer to be delivered", 10*time.Second, func() bool {
		_, err := c.Answer(ctx, it.Prompt.ID, wire.Answer{Choice: "y"})
		return err == nil
	})
	tm.WaitFor(t, "the child to read the answer", 5*time.Second, func() bool { return strings.Contains(capture(), "got:y") })

	// The person answers the next question at the keyboard: the keys reach the child.
	tm.WaitFor(t, "the second question", 5*time.Second, func() bool { return strings.Contains(capture(), "Really? [y/N]") })
	tm.Tmux(t, "send-keys", "-t", pane, "n", "Enter")
	tm.WaitFor(t, "the child to read the typed answer", 5*time.Second, func() bool { return strings.Contains(capture(), "got2:n") })
}
