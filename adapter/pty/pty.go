// Package pty is the PTY supervisor of `trailboss run -- CMD`: it runs a program on a
// pseudo-terminal of its own, passes the person's terminal through to it untouched (raw
// mode, window size, signals, exit status), and watches the program's output. When the
// output has gone quiet and its tail reads as a prompt (adapter/prompt), it tells the
// daemon through a Link that the session waits, and writes the answer the daemon sends
// back to the program, as if typed.
//
// The failure catalogue it is built against is AtlasBridge's QA scenarios
// (shared/seeds/atlasbridge-qa-scenarios.md): prompts without a newline (QA-001), spinner
// redraws (QA-002), a prompt erased before the program blocks (QA-003), a program that
// blocks with no prompt at all (QA-004), one question after another (QA-005), a daemon
// restart (QA-016), a child that dies (QA-017), an output flood (QA-018) and the echo of
// an injected answer (QA-019).
//
// Choices it makes where the catalogue leaves room:
//   - A child quiet for the stall time with no prompt on screen (QA-004) is reported as a
//     free_text prompt, QuestionNoPrompt, low confidence, with the last output seen as its
//     excerpt: such a child most often reads a line, and the person can see what it last
//     said before typing one (an empty line is refused by the daemon: Enter alone is for
//     the terminal). Quiet output alone is not waiting: it is reported only while a process
//     of the terminal's foreground group is blocked reading the terminal (in read, or in
//     select, poll or epoll watching it, as /proc/PID/task/TID/syscall shows), none of the
//     group runs and their CPU time does not grow. A child that sleeps, waits on its own
//     children or computes is not waiting. Where /proc cannot tell (not Linux), a quiet
//     child is taken to wait.
//   - A prompt erased before the child went quiet (QA-003) is reported as what it read
//     before it was erased, low confidence, with that text in the excerpt.
//   - A prompt seen while the child's terminal reads a line without showing it (echo off
//     in canonical mode: `read -s`, getpass, sudo) is Secret whatever its words, and no
//     answer is written into such a terminal: it is typed at the keyboard only. Raw and
//     cbreak mode (a full-screen TUI) turn echo off too but draw their own: not a secret.
//   - A spinner ending the screen (prompt.Busy) is work, not a prompt, whatever is above.
//   - After an answer is written, nothing is read for EchoSuppress, the terminal's echo of
//     the answer (as the child's terminal settings show it: an Enter read key by key is
//     ^M) is dropped from the buffer (its line end kept), and a child that then says
//     nothing is not reported again until it writes (QA-019). A child that has ended is
//     not read for prompts at all: no one is left to answer.
//
// This package imports nothing of ours but adapter (its words) and adapter/prompt; the
// daemon is behind Link.
package pty

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	cpty "github.com/creack/pty"
)

// Defaults of Config.
const (
	// DefaultSettle is how long output must be quiet before its tail is read as a prompt.
	DefaultSettle = 2 * time.Second
	// DefaultStallExtra is what the stall time adds to the settle time by default.
	DefaultStallExtra = 500 * time.Millisecond
	// DefaultBufferSize bounds the rolling buffer: a screenful of a full-screen program
	// with its colour escapes fits, and memory does not grow with output (QA-018).
	DefaultBufferSize = 64 << 10
	// EchoSuppress is how long after writing an answer no prompt is read (QA-019).
	EchoSuppress = 500 * time.Millisecond
)

// Grace periods at the end of a run.
const (
	// drainQuiet: once the child exited, output is read until the terminal closes or it
	// has been quiet this long (a grandchild may keep the terminal open).
	drainQuiet = 100 * time.Millisecond
	// exitReportWait bounds the wait for the daemon to take the exit report.
	exitReportWait = time.Second
	// killGrace: after ctx ends, the child has this long to exit after SIGHUP.
	killGrace = 3 * time.Second
	// writtenRetry bounds the retries of telling the daemon an answer was written.
	writtenRetry = 10 * time.Second
)

// Config says what to run and how.
type Config struct {
	// Args is the command and its arguments.
	Args []string
	// Name names the session for the person (default: the command's base name).
	Name string
	// Dir is the child's working directory (default: ours) and Env its environment
	// (default: ours).
	Dir string
	Env []string
	// SessionID is the session's id (default: NewSessionID()).
	SessionID string
	// Settle (default DefaultSettle) and Stall (default Settle + DefaultStallExtra): see
	// the package doc and Run.
	Settle, Stall time.Duration
	// Stdin is what the person types. When it is a terminal it is put in raw mode for
	// the run and the child's window follows its size; otherwise it is copied as it is.
	// Its end is not passed on: the child keeps its terminal.
	Stdin io.Reader
	// Stdout shows the child's output.
	Stdout io.Writer
	// Link is the daemon; nil runs without one (the child is still supervised).
	Link Link
	// Log gets the supervisor's own messages (default: none). It must not write to the
	// terminal the child owns.
	Log *slog.Logger
	// Signals forwards SIGTERM, SIGHUP, SIGINT and SIGQUIT to the child and follows
	// SIGWINCH. Only a command line should set it: it takes those signals from the whole
	// process.
	Signals bool
	// BufferSize bounds the rolling buffer (default DefaultBufferSize).
	BufferSize int
}

// Stats are the supervisor's counters.
type Stats struct {
	Output     uint64 // bytes of output the buffer was given
	Evicted    uint64 // bytes the buffer dropped to stay within BufferSize (QA-018)
	BufferSize int
}

// Supervisor runs one child on a PTY. Make it with New, run it once with Run.
type Supervisor struct {
	cfg      Config
	log      *slog.Logger
	master   *os.File
	cmd      *exec.Cmd
	activity chan struct{} // output came (capacity 1)
	idKnown  chan struct{} // the daemon's id of a reported prompt came (capacity 1)
	// answering is held while an answer is written and the daemon told of it.
	answering chan struct{}
	rep       *reporter

	mu   sync.Mutex
	ring *ring
	echo *echoFilter // the echo of the last answer, while it is awaited
	// echoUntil ends the echo filter even if the echo never comes.
	echoUntil time.Time
	w         *watcher

	// tty is the device number of the child's terminal, 0 when it is not known.
	tty uint64
	// The foreground group's CPU time at the watchdog's last look (foregroundWaiting).
	cpuPgrp  int
	cpuTicks uint64
}

// NewSessionID returns a new session id: "pty-" and 16 random hex digits.
func NewSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "pty-" + hex.EncodeToString(b[:])
}

// New checks cfg and fills in its defaults.
func New(cfg Config) (*Supervisor, error) {
	if len(cfg.Args) == 0 {
		return nil, errors.New("no command to run")
	}
	if cfg.Name == "" {
		cfg.Name = filepath.Base(cfg.Args[0])
	}
	if cfg.SessionID == "" {
		cfg.SessionID = NewSessionID()
	}
	if cfg.Settle <= 0 {
		cfg.Settle = DefaultSettle
	}
	if cfg.Stall <= 0 {
		cfg.Stall = cfg.Settle + DefaultStallExtra
	}
	if cfg.Stall < cfg.Settle {
		return nil, errors.New("the stall time must not be shorter than the settle time")
	}
	if cfg.BufferSize <= 0 {
		cfg.BufferSize = DefaultBufferSize
	}
	if cfg.Stdin == nil {
		cfg.Stdin = eofReader{}
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Supervisor{cfg: cfg, log: log.With("session", cfg.SessionID), activity: make(chan struct{}, 1),
		idKnown: make(chan struct{}, 1), answering: make(chan struct{}, 1), ring: newRing(cfg.BufferSize)}, nil
}

// SessionID returns the session's id.
func (s *Supervisor) SessionID() string { return s.cfg.SessionID }

// Stats returns the counters so far.
func (s *Supervisor) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Output: s.ring.written, Evicted: s.ring.evicted, BufferSize: len(s.ring.buf)}
}

// eofReader is an empty stdin.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// Run runs the child until it exits and returns its exit status: its code, or 128 + the
// signal that killed it. An error means the child could not be started (it is an
// *exec.Error or *fs.PathError for a command that is missing or cannot be run).
//
// While the child runs, its output goes to Stdout at once and into a bounded buffer; the
// daemon is never waited on. When output has been quiet for Settle and the buffer's tail
// reads as a prompt, Run reports it; when it has been quiet for Stall with no prompt on
// screen, it reports QuestionNoPrompt. Answers to the prompt reported last are written to
// the child while it still shows that prompt. When ctx ends the child gets SIGHUP (then
// SIGKILL after a grace) and Run returns once it exited.
func (s *Supervisor) Run(ctx context.Context) (int, error) {
	t := openTerminal(s.cfg.Stdin, s.cfg.Stdout)
	defer t.restore()

	var sigs chan os.Signal
	if s.cfg.Signals {
		sigs = catchSignals()
		defer signal.Stop(sigs)
	}
	s.cmd = exec.Command(s.cfg.Args[0], s.cfg.Args[1:]...)
	s.cmd.Dir, s.cmd.Env = s.cfg.Dir, s.cfg.Env
	master, err := cpty.StartWithSize(s.cmd, t.size())
	if err != nil {
		return -1, err
	}
	if s.master, err = pollable(master); err != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		return -1, err
	}
	defer s.master.Close()
	if s.tty, err = ptyDevice(s.master); err != nil {
		s.log.Info("the child's terminal cannot be looked up: a quiet child counts as waiting", "err", err)
	}
	if err := t.raw(); err != nil {
		s.log.Warn("the terminal could not be put in raw mode", "err", err)
	}

	now := time.Now()
	s.w = newWatcher(s.cfg.Settle, s.cfg.Stall, EchoSuppress, now)
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop()

	outputDone := make(chan struct{})
	go func() {
		defer close(outputDone)
		s.readOutput()
	}()
	go s.copyInput()
	if s.cfg.Signals {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.forwardSignals(lctx, t, sigs)
		}()
	}
	if s.cfg.Link != nil {
		cwd := s.cfg.Dir
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		base := Report{SessionID: s.cfg.SessionID, Name: s.cfg.Name, Cwd: cwd, PID: s.cmd.Process.Pid}
		s.rep = newReporter(s.cfg.Link, base, s.log, s.setPromptID)
		wg.Add(2)
		go func() {
			defer wg.Done()
			s.rep.run(lctx)
		}()
		go func() {
			defer wg.Done()
			s.answerLoop(lctx)
		}()
	}
	wctx, stopWatch := context.WithCancel(lctx)
	defer stopWatch()
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		s.watch(wctx)
	}()

	exited := make(chan struct{})
	go func() {
		defer close(exited)
		_ = s.cmd.Wait() // the status is in ProcessState
	}()
	select {
	case <-exited:
	case <-ctx.Done():
		s.hangUp(exited)
	}
	s.drain(outputDone)
	stopWatch()
	<-watchDone
	// A child that ends as soon as it read its answer: the daemon is still to be told the
	// answer was written, while the answer stream is open, or it would tell the person
	// that nothing was typed.
	s.waitAnswer(exitReportWait)
	code := exitCode(s.cmd.ProcessState)
	s.log.Info("the child exited", "code", code)
	s.mu.Lock()
	gen := s.w.exited()
	s.mu.Unlock()
	if s.rep != nil {
		s.rep.set(gen, Report{SessionID: s.cfg.SessionID, Name: s.cfg.Name, Cwd: s.rep.base.Cwd,
			PID: s.rep.base.PID, At: time.Now(), State: StateExit, ExitCode: code})
	}
	// The exit is worth a wait while the daemon is there; a run without it ends at once.
	if s.rep != nil && s.rep.reachable() {
		select {
		case <-s.rep.exited:
		case <-time.After(exitReportWait):
			s.log.Warn("the daemon did not take the exit report in time")
		}
	}
	return code, nil
}

// hangUp ends the child as a closed terminal would: SIGHUP, then SIGKILL after a grace.
func (s *Supervisor) hangUp(exited <-chan struct{}) {
	_ = s.cmd.Process.Signal(syscall.SIGHUP)
	select {
	case <-exited:
	case <-time.After(killGrace):
		_ = s.cmd.Process.Kill()
		<-exited
	}
}

// drain waits for the child's last output to be read: until the terminal closes, or
// output has been quiet for drainQuiet (a grandchild still holds the terminal).
func (s *Supervisor) drain(outputDone <-chan struct{}) {
	for {
		select {
		case <-outputDone:
			return
		case <-time.After(drainQuiet):
			s.mu.Lock()
			quiet := time.Since(s.w.lastOut) >= drainQuiet
			s.mu.Unlock()
			if quiet {
				_ = s.master.Close() // ends readOutput
				<-outputDone
				return
			}
		}
	}
}

// exitCode returns the child's exit status: its code, or 128 + the signal that killed it.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// readOutput copies the child's output to Stdout and into the buffer until the terminal
// closes.
func (s *Supervisor) readOutput() {
	buf := make([]byte, 32<<10)
	for {
		n, err := s.master.Read(buf)
		if n > 0 {
			// The person sees it first; a failing Stdout must not stop the child.
			_, _ = s.cfg.Stdout.Write(buf[:n])
			s.absorb(buf[:n], time.Now())
		}
		if err != nil {
			if !errors.Is(err, syscall.EIO) && !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				// EIO is the child's end of the terminal closing; anything else leaves the
				// supervisor blind to a live child, which must be told.
				s.log.Warn("the child's output can no longer be read: its prompts will not be seen", "err", err)
			}
			return
		}
	}
}

// absorb puts output p that came at now into the buffer, without the echo of an answer.
func (s *Supervisor) absorb(p []byte, now time.Time) {
	s.mu.Lock()
	echo := false
	if s.echo != nil && now.After(s.echoUntil) {
		s.echo = nil
	}
	if s.echo != nil {
		keep, synthetic, done := s.echo.filter(p)
		if done {
			s.echo = nil
		}
		echo = len(keep) == 0 || (synthetic && len(keep) == 1)
		p = keep
	}
	s.ring.write(p)
	s.w.output(now, echo)
	s.mu.Unlock()
	select {
	case s.activity <- struct{}{}:
	default:
	}
}

// copyInput copies what the person types to the child until Stdin ends or the terminal
// closes. Each read is written at once: a keystroke is not held back.
func (s *Supervisor) copyInput() {
	buf := make([]byte, 4096)
	for {
		n, err := s.cfg.Stdin.Read(buf)
		if n > 0 {
			if _, werr := s.master.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// watch is the stall watchdog: it asks the watcher what the output shows whenever output
// has been quiet for the settle time, or the watcher asked to be asked again.
func (s *Supervisor) watch(ctx context.Context) {
	timer := time.NewTimer(s.cfg.Settle) // a child that never writes still stalls (QA-004)
	defer timer.Stop()
	armed, due := true, time.Now().Add(s.cfg.Settle)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.activity:
			// New output is looked at once it has been quiet for the settle time, even when
			// the timer was set for later (a quiet child is looked at again only at its
			// stall time): a prompt that comes then must not wait for that.
			if !armed || time.Until(due) > s.cfg.Settle {
				timer.Reset(s.cfg.Settle)
				armed, due = true, time.Now().Add(s.cfg.Settle)
			}
		case <-timer.C:
			armed = false
			if exited(s.cmd.Process.Pid) {
				// Its last screen is no prompt, whatever it shows (a question and the
				// echo of its answer): no one is left to answer. Its exit is reported
				// once it has been waited for.
				continue
			}
			now := time.Now()
			s.mu.Lock()
			quiet := now.Sub(s.w.lastOut) >= s.cfg.Settle
			s.mu.Unlock()
			waiting := quiet && s.foregroundWaiting() // sampled at every quiet look, so growth shows
			// Read at the look, while the child waits in its read: a prompt asked with the
			// terminal's echo off is a secret (echoMode.hidesLine).
			hidden := childEcho(s.master).hidesLine()
			s.mu.Lock()
			changes, next := s.w.step(now, s.ring.bytes, waiting, hidden)
			s.mu.Unlock()
			for _, c := range changes {
				s.publish(c)
			}
			if next > 0 {
				timer.Reset(next)
				armed, due = true, time.Now().Add(next)
			}
		}
	}
}

// publish hands a state change to the reporter.
func (s *Supervisor) publish(c change) {
	s.log.Info("state", "state", c.state, "prompt", c.prompt)
	if s.rep == nil {
		return
	}
	s.rep.set(c.gen, Report{SessionID: s.cfg.SessionID, Name: s.cfg.Name, Cwd: s.rep.base.Cwd,
		PID: s.rep.base.PID, At: c.at, State: c.state, Prompt: c.prompt})
}

func (s *Supervisor) setPromptID(gen uint64, id string) {
	s.mu.Lock()
	s.w.setPromptID(gen, id)
	s.mu.Unlock()
	select {
	case s.idKnown <- struct{}{}:
	default:
	}
}

// foregroundWaiting reports whether the foreground process group of the child's terminal
// (the process the person would be typing to, and its children) waits for the person: one
// of them is blocked reading the terminal, none is running now, and their CPU time did not
// grow since the last call. Where /proc cannot tell what they wait on, a quiet group is
// taken to wait. Only the watchdog calls it, outside s.mu: it reads /proc.
func (s *Supervisor) foregroundWaiting() bool {
	pgrp, err := foregroundGroup(s.master)
	if err != nil {
		return true
	}
	g, ok := lookGroup(pgrp, s.tty)
	if !ok {
		return true
	}
	grew := s.cpuPgrp == pgrp && g.ticks > s.cpuTicks
	s.cpuPgrp, s.cpuTicks = pgrp, g.ticks
	if g.running || grew {
		return false
	}
	return g.reading || !g.readKnown
}

// answerLoop holds the daemon's answer stream open, from the first start the daemon took
// until ctx ends, reconnecting with backoff. A broken stream may be a restarted daemon
// that lost the session: the reporter says start and the state again (QA-016).
func (s *Supervisor) answerLoop(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-s.rep.started:
	}
	var b backoff
	for {
		began := time.Now()
		err := s.cfg.Link.Answers(ctx, s.cfg.SessionID, func(a Answer) { s.answer(ctx, a) })
		if ctx.Err() != nil {
			return
		}
		s.log.Info("the answer stream ended; reconnecting", "err", err)
		s.rep.resync()
		if time.Since(began) > backoffMax {
			b.reset()
		}
		if !sleep(ctx, b.next()) {
			return
		}
	}
}

// waitAnswer waits up to d for an answer being written to be reported to the daemon.
func (s *Supervisor) waitAnswer(d time.Duration) {
	select {
	case s.answering <- struct{}{}:
		<-s.answering
	case <-time.After(d):
		s.log.Warn("the daemon was not told in time what became of the last answer")
	}
}

// answer writes a to the child when its prompt is the one on screen, and tells the daemon
// what it did.
func (s *Supervisor) answer(ctx context.Context, a Answer) {
	s.answering <- struct{}{}
	defer func() { <-s.answering }()
	now := time.Now()
	s.mu.Lock()
	// The daemon has the prompt's record before its answer to the report, which names the
	// record, is back here; an answer sent at once may overtake it. Wait for the name
	// (bounded like the report) rather than refuse the prompt that is on screen.
	for deadline := now.Add(reportTimeout); s.w.awaitingID() && time.Now().Before(deadline); {
		s.mu.Unlock()
		select {
		case <-s.idKnown:
		case <-time.After(time.Until(deadline)):
		case <-ctx.Done():
		}
		s.mu.Lock()
		if ctx.Err() != nil {
			break
		}
		now = time.Now()
	}
	ok, reason := s.w.mayWrite(a.PromptID, s.ring.bytes), ReasonChanged
	mode := childEcho(s.master)
	if ok && (s.w.prompt.Secret || mode.hidesLine()) {
		// The daemon takes no answer to a secret; should one come anyway (another
		// version of it, or a terminal that hid its input only after the report), it is
		// not typed: a secret is typed at the keyboard only.
		ok, reason = false, ReasonSecret
	}
	var gen uint64
	if ok {
		gen = s.w.wrote(now)
		s.echo, s.echoUntil = newEchoFilter(a.Data, mode), now.Add(EchoSuppress)
	}
	s.mu.Unlock()
	w := Written{SessionID: s.cfg.SessionID, AnswerID: a.AnswerID, OK: ok}
	if ok {
		s.rep.set(gen, Report{}) // nothing pending: a resync must not report it again
		if _, err := s.master.Write([]byte(a.Data)); err != nil {
			w.OK, w.Reason = false, "write_failed"
			s.log.Warn("an answer could not be written to the child", "err", err)
		}
	} else {
		w.Reason = reason
	}
	s.log.Info("answer", "prompt", a.PromptID, "written", w.OK, "reason", w.Reason)
	var b backoff
	for deadline := time.Now().Add(writtenRetry); ; {
		wctx, cancel := context.WithTimeout(ctx, reportTimeout)
		err := s.cfg.Link.Written(wctx, w)
		cancel()
		if err == nil || errors.Is(err, ErrRefused) || ctx.Err() != nil || time.Now().After(deadline) {
			if err != nil {
				s.log.Warn("the daemon was not told what became of an answer", "err", err)
			}
			return
		}
		if !sleep(ctx, b.next()) {
			return
		}
	}
}
