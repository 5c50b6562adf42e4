package pty

// The test harness: a fake of the daemon's side of the link that records what the
// supervisor reports and hands it answers, and a supervised run of a real child on a real
// PTY.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain makes the test binary a child of its own when TRAILBOSS_PTY_HELPER names one.
func TestMain(m *testing.M) {
	switch os.Getenv("TRAILBOSS_PTY_HELPER") {
	case "spin":
		// Compute for 1.5 s writing nothing, then ask and read a line.
		for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); {
		}
		fmt.Print("Proceed? (y/n) ")
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Printf("got:%s\n", strings.TrimSpace(line))
		os.Exit(0)
	case "flood":
		// QA-018: $TRAILBOSS_PTY_FLOOD lines as fast as they go, then a question.
		n, _ := strconv.Atoi(os.Getenv("TRAILBOSS_PTY_FLOOD"))
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		for i := range n {
			fmt.Fprintf(w, "compiling module %06d of %d ... ok\n", i, n)
		}
		w.Flush()
		fmt.Print("Continue? (y/n) ")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	case "read-thread", "select-tty", "poll-tty", "epoll-tty", "poll-pipe":
		waitForInput(os.Getenv("TRAILBOSS_PTY_HELPER"))
		os.Exit(0)
	case "ask":
		// The same question again and again, each answer said back.
		in := bufio.NewReader(os.Stdin)
		for {
			fmt.Print("Proceed? (y/n) ")
			line, err := in.ReadString('\n')
			if err != nil {
				os.Exit(0)
			}
			fmt.Printf("got:%s\n", strings.TrimSpace(line))
		}
	}
	os.Exit(m.Run())
}

// promptID returns the daemon's id of the prompt on screen, "" while there is none.
func (s *Supervisor) promptID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.promptID
}

// phase returns where the watchdog stands.
func (s *Supervisor) phase() phase {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.phase
}

// helper returns the command and environment that run the test binary as child name.
func helper(name string) ([]string, []string) {
	return []string{os.Args[0]}, append(os.Environ(), "TRAILBOSS_PTY_HELPER="+name)
}

var errDown = errors.New("connection refused (fake daemon down)")

// fakeLink is the daemon as the supervisor sees it. It starts up.
type fakeLink struct {
	mu      sync.Mutex
	up      bool
	next    int
	reports []Report
	stream  chan Answer   // the open answer stream, if any
	kill    chan struct{} // closes the open stream
	opened  chan struct{} // signalled when a stream opens

	repCh   chan Report
	written chan Written
}

func newFakeLink() *fakeLink {
	return &fakeLink{up: true, repCh: make(chan Report, 1000), written: make(chan Written, 100),
		opened: make(chan struct{}, 100)}
}

func (l *fakeLink) Report(ctx context.Context, r Report) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.up {
		return "", errDown
	}
	l.reports = append(l.reports, r)
	l.repCh <- r
	if r.State != StatePrompt {
		return "", nil
	}
	l.next++
	return fmt.Sprintf("p%d", l.next), nil
}

func (l *fakeLink) Answers(ctx context.Context, session string, fn func(Answer)) error {
	l.mu.Lock()
	if !l.up {
		l.mu.Unlock()
		return errDown
	}
	stream, kill := make(chan Answer), make(chan struct{})
	l.stream, l.kill = stream, kill
	l.mu.Unlock()
	l.opened <- struct{}{}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-kill:
			return errors.New("the stream broke")
		case a := <-stream:
			fn(a)
		}
	}
}

func (l *fakeLink) Written(ctx context.Context, w Written) error {
	l.mu.Lock()
	up := l.up
	l.mu.Unlock()
	if !up {
		return errDown
	}
	l.written <- w
	return nil
}

// setUp brings the fake daemon up or down; down also breaks the open stream.
func (l *fakeLink) setUp(up bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.up = up
	if !up && l.kill != nil {
		close(l.kill)
		l.kill, l.stream = nil, nil
	}
}

// restart breaks the answer stream as a restarting daemon does.
func (l *fakeLink) restart() {
	l.setUp(false)
	l.setUp(true)
}

// answer sends a on the open stream, waiting for one to open.
func (l *fakeLink) answer(t testing.TB, a Answer) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l.mu.Lock()
		stream := l.stream
		l.mu.Unlock()
		if stream != nil {
			select {
			case stream <- a:
				return
			case <-time.After(time.Second):
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no answer stream was open to send an answer on")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// report returns the next report, failing after timeout.
func (l *fakeLink) report(t *testing.T, timeout time.Duration) Report {
	t.Helper()
	select {
	case r := <-l.repCh:
		return r
	case <-time.After(timeout):
		t.Fatalf("no report within %v", timeout)
		return Report{}
	}
}

// reportOf returns the next report of state st, failing on any other report but start.
func (l *fakeLink) reportOf(t *testing.T, st State, timeout time.Duration) Report {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		r := l.report(t, time.Until(deadline))
		if r.State == st {
			return r
		}
		if r.State != StateStart {
			t.Fatalf("got report %s %+v, want %s", r.State, r.Prompt, st)
		}
	}
}

// noReport fails if a report other than start comes within d.
func (l *fakeLink) noReport(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case r := <-l.repCh:
			if r.State != StateStart {
				t.Fatalf("unexpected report %s %+v", r.State, r.Prompt)
			}
		case <-deadline:
			return
		}
	}
}

func (l *fakeLink) writtenOne(t *testing.T) Written {
	t.Helper()
	select {
	case w := <-l.written:
		return w
	case <-time.After(5 * time.Second):
		t.Fatal("the supervisor did not say what became of the answer")
		return Written{}
	}
}

// syncBuffer is the person's screen: what the supervisor passed through.
type syncBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	got chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{got: make(chan struct{}, 1)} }

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case b.got <- struct{}{}:
	default:
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor waits until the screen holds s.
func (b *syncBuffer) waitFor(t testing.TB, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !strings.Contains(b.String(), s) {
		select {
		case <-b.got:
		case <-deadline.C:
			t.Fatalf("the screen never showed %q; it shows:\n%q", s, b.String())
		}
	}
}

// run is one supervised child.
type run struct {
	sup   *Supervisor
	out   *syncBuffer
	stdin *io.PipeWriter
	done  chan struct{}
	code  int
	err   error
}

// startRun runs cfg's command under a supervisor with link, its screen to cfg.Stdout when
// set, else to r.out; the test ends it.
func startRun(t testing.TB, cfg Config) *run {
	t.Helper()
	pr, pw := io.Pipe()
	r := &run{out: newSyncBuffer(), stdin: pw, done: make(chan struct{})}
	cfg.Stdin = pr
	if cfg.Stdout == nil {
		cfg.Stdout = r.out
	}
	sup, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.sup = sup
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(r.done)
		r.code, r.err = sup.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		pw.Close()
		<-r.done
	})
	return r
}

// wait waits for the child to exit and returns its status.
func (r *run) wait(t testing.TB, timeout time.Duration) int {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(timeout):
		t.Fatalf("the run did not end within %v; screen:\n%q", timeout, r.out.String())
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.code
}

func sh(script string) []string { return []string{"sh", "-c", script} }
