package lab

// The Prompt Lab's rig: for one scenario, a temp folder (home, XDG folders, state), the real
// daemon on a free loopback port, the real supervisor (`trailboss run`) with a synthetic
// child, and the instruments: a tap between the supervisor and the daemon that notes every
// report and the prompt record it made, the child's own record of what it wrote and read,
// the queue as the API shows it, the audit log, and /proc for the supervisor's CPU and
// memory. Every wait is a poll with a deadline.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
)

// defaultStall is the supervisor's --stall in the scenarios that do not test it: longer than
// any scenario, so that a quiet child is never taken for a silent prompt by accident.
const defaultStall = 20 * time.Second

// Scenario is one of the catalogue's failure scenarios.
type Scenario struct {
	id, name string
	about    string        // what it checks, for lab list
	child    string        // the synthetic child (children)
	stall    time.Duration // the supervisor's --stall; 0 means defaultStall
	run      func(r *rig) error
	// telegram: the daemon's Telegram relay is on, against the lab's fake Bot API
	// (lab_telegram.go), with prompt_ttl = promptTTL when it is set.
	telegram  bool
	promptTTL time.Duration
	// alone: it runs with no other scenario beside it, for it measures the supervisor's
	// CPU and memory, and a starved CPU would pause its child's output long enough to be
	// read as a prompt mid-flood.
	alone bool
}

// rig is one scenario's world while it runs.
type rig struct {
	ctx      context.Context
	sc       *Scenario
	self     string
	dir      string
	settle   time.Duration
	stall    time.Duration
	env      []string
	stateDir string
	addr     string // the daemon's
	tap      *protocolTap
	c        *client.Client
	bot      *faketelegram.Server // the fake Bot API, for the Telegram scenarios

	daemon     *exec.Cmd
	daemonDone chan struct{}

	sup        *exec.Cmd
	supIn      io.WriteCloser
	supDone    chan struct{}
	supMayExit bool // the scenario ends the supervisor itself

	record   string // the child's record file
	childPID int

	mu   sync.Mutex
	seen map[string]time.Time // prompt ids seen pending in the queue, when first seen

	consumed int             // bytes of the child's reads already checked
	want     strings.Builder // every byte the child should have read, in order

	figures  detail
	problems []string
}

// runScenario runs s in a rig of its own and returns its result. It never panics and
// leaves no process or folder behind.
func runScenario(ctx context.Context, s *Scenario, self string, settle time.Duration) Result {
	start := time.Now()
	r := &rig{ctx: ctx, sc: s, self: self, settle: settle, stall: s.stall, seen: map[string]time.Time{}}
	if r.stall == 0 {
		r.stall = defaultStall
	}
	err := r.setUp()
	if err == nil {
		err = r.startDaemon()
	}
	if err == nil {
		err = r.startSupervisor()
	}
	if err == nil {
		err = r.protect(s.run)
	}
	if err != nil {
		r.problems = append(r.problems, err.Error())
	}
	logs := r.logTails()
	r.tearDown()
	res := Result{ID: s.id, Name: s.name, Pass: len(r.problems) == 0}
	res.Detail = append(res.Detail,
		figure{key: "settle_ms", value: r.settle.Milliseconds()},
		figure{key: "stall_ms", value: r.stall.Milliseconds()})
	res.Detail = append(res.Detail, r.figures...)
	res.Detail = append(res.Detail, figure{key: "seconds", value: round2(time.Since(start).Seconds())})
	if !res.Pass {
		res.Detail = append(res.Detail, figure{key: "problems", value: r.problems}, figure{key: "logs", value: logs})
	}
	return res
}

// protect runs fn, turning a panic in the lab's own code into a failure of this scenario.
func (r *rig) protect(fn func(*rig) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the lab itself failed: %v", v)
		}
	}()
	return fn(r)
}

// note records a measured figure; words say it in plain words for the text report.
func (r *rig) note(key string, value any, words string, args ...any) {
	if len(args) > 0 {
		words = fmt.Sprintf(words, args...)
	}
	r.figures = append(r.figures, figure{key: key, value: value, words: words})
}

// check records a problem when ok is false.
func (r *rig) check(ok bool, format string, args ...any) bool {
	if !ok {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
	}
	return ok
}

func (r *rig) setUp() error {
	dir, err := os.MkdirTemp("", "trailboss-lab-"+r.sc.id+"-")
	if err != nil {
		return fmt.Errorf("make the scenario's temp folder: %w", err)
	}
	r.dir = dir
	for _, d := range []string{"home", "xdg/config", "xdg/state", "xdg/data", "xdg/cache", "state", "tmux"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return err
		}
	}
	r.stateDir = filepath.Join(dir, "state")
	r.record = filepath.Join(dir, "child.jsonl")
	if r.tap, err = startTap(); err != nil {
		return err
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "TMUX" || k == "TMUX_PANE" || k == "TERM" || k == "NO_COLOR" ||
			strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "TRAILBOSS_") {
			continue // never the user's home, state, daemon or tmux
		}
		r.env = append(r.env, kv)
	}
	r.env = append(r.env,
		"HOME="+filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "xdg/config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "xdg/state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "xdg/data"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "xdg/cache"),
		"TMUX_TMPDIR="+filepath.Join(dir, "tmux"),
		"TRAILBOSS_STATE_DIR="+r.stateDir,
		// dumb: a child that is this binary would otherwise ask its terminal for its
		// background colour as it starts (Bubble Tea's init does) and wait 5 s for an
		// answer that the supervisor's PTY never gives.
		"TERM=dumb",
		"NO_COLOR=1")
	if r.sc.telegram {
		return r.setUpTelegram() // a [telegram] table switches delivery on
	}
	// Every scenario delivers answers: delivery on, as an operator switches it on.
	conf := filepath.Join(dir, "xdg", "config", "trailboss", "config.toml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
		return err
	}
	return os.WriteFile(conf, []byte("[delivery]\nenabled = true\n"), 0o600)
}

// startDaemon starts `trailboss daemon` on the rig's state and waits until it answers. It
// takes the rig's address again if it can (a restart), else a free one, and points the tap
// at it: another program may take a port between the moment it was free and the daemon's
// listening on it, so a daemon that finds its port taken is started again on another.
func (r *rig) startDaemon() error {
	addr := r.addr
	for attempt := 1; ; attempt++ {
		if addr == "" {
			ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port, given up at once
			if err != nil {
				return fmt.Errorf("find a free loopback port: %w", err)
			}
			addr = ln.Addr().String()
			ln.Close()
		}
		err := r.startDaemonOn(addr)
		if err == nil {
			r.addr = addr
			r.tap.setTarget(addr)
			return nil
		}
		if !errors.Is(err, errPortTaken) || attempt == 5 {
			return err
		}
		addr = ""
	}
}

// errPortTaken: the daemon found its port taken.
var errPortTaken = errors.New("the daemon's port was taken")

func (r *rig) startDaemonOn(addr string) error {
	logPath := filepath.Join(r.dir, "daemon.log")
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	before, _ := f.Seek(0, io.SeekEnd)
	cmd := exec.Command(r.self, "daemon", "--addr", addr, "--state-dir", r.stateDir, "--no-watch", "--screen-tick", "0")
	cmd.Env = append(r.env, "TRAILBOSS_ADDR="+addr)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the daemon: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	r.daemon, r.daemonDone = cmd, done
	hc := &http.Client{Timeout: time.Second}
	err = r.poll("the daemon to answer", 15*time.Second, func() (bool, error) {
		select {
		case <-done:
			b, _ := os.ReadFile(logPath)
			if int64(len(b)) > before && strings.Contains(string(b[before:]), "is taken by another program") {
				return false, errPortTaken
			}
			return false, fmt.Errorf("the daemon exited at start (%s)", cmd.ProcessState)
		default:
		}
		if _, err := os.Stat(filepath.Join(r.stateDir, "token")); err != nil {
			return false, nil
		}
		resp, err := hc.Get("http://" + addr + "/healthz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return err
	}
	r.c, err = client.New(addr, r.stateDir, 5*time.Second)
	return err
}

// stopDaemon sends the daemon sig and waits for it to exit.
func (r *rig) stopDaemon(sig syscall.Signal, timeout time.Duration) error {
	if r.daemon == nil {
		return nil
	}
	_ = r.daemon.Process.Signal(sig)
	select {
	case <-r.daemonDone:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("the daemon did not exit within %v of %v", timeout, sig)
	}
}

// startSupervisor starts `trailboss run` with the scenario's child, its standard input a
// pipe, its output to screen.out, talking to the daemon through the tap; it waits until
// the child has started.
func (r *rig) startSupervisor() error {
	screen, err := os.Create(filepath.Join(r.dir, "screen.out"))
	if err != nil {
		return err
	}
	defer screen.Close()
	logf, err := os.Create(filepath.Join(r.dir, "supervisor.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(r.self, "run", "--name", "lab-"+r.sc.name,
		"--settle", r.settle.String(), "--stall", r.stall.String(),
		"--", r.self, "lab", "child", r.sc.child, "--record", r.record)
	supState, err := r.supervisorStateDir()
	if err != nil {
		return err
	}
	cmd.Env = append(r.env, "TRAILBOSS_ADDR="+r.tap.addr, "TRAILBOSS_STATE_DIR="+supState)
	cmd.Dir = r.dir
	cmd.Stdout, cmd.Stderr = screen, logf
	if r.supIn, err = cmd.StdinPipe(); err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the supervisor: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	r.sup, r.supDone = cmd, done
	return r.poll("the child to start under the supervisor", 10*time.Second, func() (bool, error) {
		for _, ev := range r.events() {
			if ev.Ev == "start" {
				r.childPID = ev.PID
				return true, nil
			}
		}
		return false, nil
	})
}

// supExited reports whether the supervisor has exited.
func (r *rig) supExited() bool {
	if r.supDone == nil {
		return false
	}
	select {
	case <-r.supDone:
		return true
	default:
		return false
	}
}

// waitSupervisorExit waits for the supervisor to exit and returns its process state.
func (r *rig) waitSupervisorExit(timeout time.Duration) (*os.ProcessState, error) {
	r.supMayExit = true
	select {
	case <-r.supDone:
		return r.sup.ProcessState, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("the supervisor was still running %v after its child ended", timeout)
	}
}

// tearDown stops what the scenario left running and removes its folder.
func (r *rig) tearDown() {
	r.stopSession()
	if r.daemon != nil {
		if r.stopDaemon(syscall.SIGINT, 5*time.Second) != nil {
			_ = r.daemon.Process.Kill()
			<-r.daemonDone
		}
	}
	if r.tap != nil {
		r.tap.close()
	}
	if r.bot != nil {
		r.bot.Close()
	}
	if r.dir != "" {
		_ = os.RemoveAll(r.dir)
	}
}

// stopSession stops the supervisor (SIGTERM, then after 3 s SIGKILL) and kills its child.
func (r *rig) stopSession() {
	if r.sup != nil && !r.supExited() {
		_ = r.sup.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.supDone:
		case <-time.After(3 * time.Second):
			_ = r.sup.Process.Kill()
			<-r.supDone
		}
	}
	if r.supIn != nil {
		r.supIn.Close()
	}
	if r.childPID > 0 && processAlive(r.childPID) {
		_ = syscall.Kill(r.childPID, syscall.SIGKILL)
	}
}

// poll calls cond every 10 ms until it holds, fails, the deadline passes or the supervisor
// exits when it should not have.
func (r *rig) poll(what string, timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("while waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if !r.supMayExit && r.supExited() {
			return fmt.Errorf("the supervisor exited (%s) while the lab waited for %s", r.sup.ProcessState, what)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up after %v waiting for %s", timeout, what)
		}
		select {
		case <-r.ctx.Done():
			return r.ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// ---- the queue and the prompt records ------------------------------------------------------

// item returns the queue item of the supervisor's session, or nil when it has none, noting
// every pending prompt record it shows.
func (r *rig) item() (*wire.Item, error) {
	items, err := r.c.Queue(r.ctx)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if it.Harness == "pty" || strings.HasPrefix(it.SessionID, "pty-") {
			if it.Prompt != nil {
				r.mu.Lock()
				if _, ok := r.seen[it.Prompt.ID]; !ok {
					r.seen[it.Prompt.ID] = time.Now()
				}
				r.mu.Unlock()
			}
			return &it, nil
		}
	}
	return nil, nil
}

// waitPrompt waits up to timeout for the session's pending prompt record to be one that ok
// accepts, and returns it.
func (r *rig) waitPrompt(what string, timeout time.Duration, ok func(*wire.Prompt) bool) (*wire.Prompt, error) {
	var got *wire.Prompt
	err := r.poll(what, timeout, func() (bool, error) {
		it, err := r.item()
		if err != nil || it == nil || it.Prompt == nil || !ok(it.Prompt) {
			return false, err
		}
		got = it.Prompt
		return true, nil
	})
	return got, err
}

// newPrompt accepts a prompt record other than the ones given.
func newPrompt(old ...*wire.Prompt) func(*wire.Prompt) bool {
	return func(p *wire.Prompt) bool {
		for _, o := range old {
			if o != nil && o.ID == p.ID {
				return false
			}
		}
		return true
	}
}

// recordedAt returns when prompt record id was made: when the daemon answered the
// supervisor's report with it, else when the lab first saw it in the queue.
func (r *rig) recordedAt(id string) time.Time {
	if t, ok := r.tap.firstAck(id); ok {
		return t
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[id]
}

// promptIDs returns every prompt record the session had: made for a report, or seen in the
// queue.
func (r *rig) promptIDs() []string {
	ids := r.tap.promptIDs()
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range r.seen {
		if !contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// timely checks that prompt p was recorded within limit of the child's writing text, notes
// the figure under key and returns the delay. what says what the child did by writing
// text ("wrote the prompt").
func (r *rig) timely(key string, p *wire.Prompt, text, what string, limit time.Duration) time.Duration {
	wrote, ok := r.saidAt(text)
	if !r.check(ok, "the child's record has no write of %q", text) {
		return 0
	}
	d := r.recordedAt(p.ID).Sub(wrote)
	r.note(key, round2(d.Seconds()), "prompt record %s made %.2f s after the child %s (limit %.2f s)",
		p.ID, d.Seconds(), what, limit.Seconds())
	r.check(d <= limit, "prompt record %s came %.2f s after the child %s, more than the limit of %.2f s", p.ID, d.Seconds(), what, limit.Seconds())
	return d
}

// promptNote is a prompt record as a scenario's detail shows it.
type promptNote struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Question string   `json:"question"`
	Choices  []string `json:"choices"`
}

// notePrompt notes prompt record p under key; what names it in words ("the menu").
func (r *rig) notePrompt(key string, p *wire.Prompt, what string) {
	keys := choiceKeys(p)
	if keys == nil {
		keys = []string{}
	}
	r.note(key, promptNote{ID: p.ID, Kind: p.Kind, Question: p.Question, Choices: keys},
		"%s recorded as %s %q, choices %s", what, p.Kind, p.Question, describeChoices(p))
}

// checkPrompt checks p's kind and that its question contains question.
func (r *rig) checkPrompt(p *wire.Prompt, kind, question string) {
	r.check(p.Kind == kind, "prompt %s is of kind %q, want %q (question %q)", p.ID, p.Kind, kind, p.Question)
	r.check(strings.Contains(p.Question, question), "prompt %s asks %q, want it to contain %q", p.ID, p.Question, question)
	r.check(!strings.ContainsAny(p.Question, "\x1b\r\n"), "prompt %s's question %q still has escapes or line ends", p.ID, p.Question)
}

// choiceKeys returns the keys of p's choices.
func choiceKeys(p *wire.Prompt) []string {
	var keys []string
	for _, c := range p.Choices {
		keys = append(keys, c.Key)
	}
	return keys
}

// ---- answers and what the child read ---------------------------------------------------------

// deliver answers prompt p with a through the API, expects it delivered through the PTY,
// then expects the child to read exactly want next; it returns how long from the answer to
// the child's read.
func (r *rig) deliver(p *wire.Prompt, a wire.Answer, want string) (time.Duration, error) {
	sent := time.Now()
	d, err := r.c.Answer(r.ctx, p.ID, a)
	if err != nil {
		return 0, fmt.Errorf("answering prompt %s (%s) with %s: %w", p.ID, p.Question, describeAnswer(a), err)
	}
	r.check(d.Delivered && d.Via == wire.ViaPTY, "answering prompt %s gave delivered=%v via %q, want delivered through the pty", p.ID, d.Delivered, d.Via)
	at, err := r.expectRead(want)
	if err != nil {
		return 0, err
	}
	return at.Sub(sent), nil
}

func describeAnswer(a wire.Answer) string {
	if a.Choice != "" {
		return "the choice " + strconv.Quote(a.Choice)
	}
	return "the text " + strconv.Quote(clip(a.Text, 40))
}

// refused answers prompt id with a and expects the daemon to refuse it with HTTP status
// code (400, 404 or 409); it returns the daemon's message and, for a 409, its reason.
func (r *rig) refused(id string, a wire.Answer, code int) (msg, reason string, err error) {
	_, err = r.c.Answer(r.ctx, id, a)
	var refused *client.AnswerRefusedError
	var bad *client.RefusedError
	switch {
	case err == nil:
		return "", "", fmt.Errorf("answering prompt %s with %s was accepted; want HTTP %d", id, describeAnswer(a), code)
	case code == http.StatusConflict && errors.As(err, &refused):
		return refused.Message, refused.Reason, nil
	case code == http.StatusNotFound && errors.Is(err, client.ErrUnknownPrompt):
		return err.Error(), "", nil
	case code == http.StatusBadRequest && errors.As(err, &bad) && strings.HasPrefix(bad.Status, "400"):
		return bad.Message, "", nil
	}
	return "", "", fmt.Errorf("answering prompt %s with %s: want HTTP %d, got: %w", id, describeAnswer(a), code, err)
}

// expectRead waits for the child to read len(want) more bytes and checks they are want;
// it returns when the last of them was read.
func (r *rig) expectRead(want string) (time.Time, error) {
	r.want.WriteString(want)
	var got string
	var at time.Time
	err := r.poll(fmt.Sprintf("the child to read %q", want), 5*time.Second, func() (bool, error) {
		got, at = r.readSoFar()
		return len(got) >= r.consumed+len(want), nil
	})
	if err != nil {
		got, _ = r.readSoFar()
		return at, fmt.Errorf("%w; it read %q in all, want %q", err, got, r.want.String())
	}
	part := got[r.consumed : r.consumed+len(want)]
	r.consumed += len(want)
	if part != want {
		return at, fmt.Errorf("the child read %q, want exactly %q", part, want)
	}
	return at, nil
}

// events returns the child's record so far (an unfinished last line is left for later).
func (r *rig) events() []childEvent {
	b, err := os.ReadFile(r.record)
	if err != nil {
		return nil
	}
	var evs []childEvent
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) == 0 || l[len(l)-1] != '\n' {
			break
		}
		var ev childEvent
		if json.Unmarshal(l, &ev) == nil {
			evs = append(evs, ev)
		}
	}
	return evs
}

// readSoFar returns every byte the child has read, and when it read the last of them.
func (r *rig) readSoFar() (string, time.Time) {
	var b strings.Builder
	var at time.Time
	for _, ev := range r.events() {
		if ev.Ev == "read" {
			b.WriteString(ev.Data)
			at = time.Unix(0, ev.T)
		}
	}
	return b.String(), at
}

// saidAt returns when the child last finished writing text.
func (r *rig) saidAt(text string) (time.Time, bool) {
	var at time.Time
	found := false
	for _, ev := range r.events() {
		if ev.Ev == "said" && ev.Text == text {
			at, found = time.Unix(0, ev.T), true
		}
	}
	return at, found
}

// eventAt returns when the child last recorded event name.
func (r *rig) eventAt(name string) (time.Time, bool) {
	var at time.Time
	found := false
	for _, ev := range r.events() {
		if ev.Ev == name {
			at, found = time.Unix(0, ev.T), true
		}
	}
	return at, found
}

// waitEvent waits for the child to record event name.
func (r *rig) waitEvent(name string, timeout time.Duration) (time.Time, error) {
	var at time.Time
	err := r.poll("the child to record "+name, timeout, func() (bool, error) {
		var ok bool
		at, ok = r.eventAt(name)
		return ok, nil
	})
	return at, err
}

// deliveries returns the audit log's entries for prompt id, oldest first.
func (r *rig) deliveries(id string) ([]wire.Delivery, error) {
	all, err := r.c.Deliveries(r.ctx, 1000)
	if err != nil {
		return nil, fmt.Errorf("read the audit log: %w", err)
	}
	var out []wire.Delivery
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].PromptID == id {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// auditResultIs reports whether an audit entry's result is what a check wants: "delivered"
// also accepts "confirmed" (delivered and seen to take).
func auditResultIs(got, want string) bool {
	return got == want || (want == "delivered" && got == "confirmed")
}

// finish lets the child end after its last answer and checks the end of the session: the
// child exits, the supervisor exits 0, the session leaves the queue, the child read
// exactly what was answered, and the session had exactly records prompt records.
func (r *rig) finish(records int) error {
	if _, err := r.waitEvent("exit", 5*time.Second); err != nil {
		return err
	}
	st, err := r.waitSupervisorExit(5 * time.Second)
	if err != nil {
		return err
	}
	r.note("supervisor_exit", st.ExitCode(), "the supervisor exited with status %d when its child finished", st.ExitCode())
	r.check(st.ExitCode() == 0, "the supervisor exited with status %d, want the child's 0", st.ExitCode())
	if err := r.waitSessionGone(); err != nil {
		return err
	}
	got, _ := r.readSoFar()
	r.check(got == r.want.String(), "the child read %q in all, want exactly %q", got, r.want.String())
	ids := r.promptIDs()
	r.note("prompt_records", len(ids), "%d prompt record(s) in all", len(ids))
	r.check(len(ids) == records, "the session had %d prompt records (%s), want %d", len(ids), strings.Join(ids, ", "), records)
	return nil
}

// waitSessionGone waits for the supervisor's session to leave the queue.
func (r *rig) waitSessionGone() error {
	return r.poll("the session to leave the queue", 5*time.Second, func() (bool, error) {
		it, err := r.item()
		return it == nil, err
	})
}

// ---- /proc -----------------------------------------------------------------------------

// processCPU returns the CPU time (user and system) process pid has used.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no ')' after the command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	// Fields after the name: state(0) … utime(11) stime(12), in clock ticks of 1/100 s
	// (USER_HZ, 100 on Linux whatever the kernel's own HZ).
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %q is not a number of ticks", pid, s)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// memory is a process's resident memory, in bytes: all of it, its anonymous part (heap,
// stacks) and its file-backed part (the program's code and data as it is paged in).
type memory struct{ rss, anon, file, peak int64 }

// processMemory returns the resident memory of process pid.
func processMemory(pid int) (memory, error) {
	var m memory
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return m, err
	}
	fields := map[string]*int64{"VmRSS": &m.rss, "RssAnon": &m.anon, "RssFile": &m.file, "VmHWM": &m.peak}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if p := fields[k]; ok && p != nil {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return m, fmt.Errorf("/proc/%d/status: %s %q", pid, k, v)
			}
			*p = kb << 10
		}
	}
	if m.rss == 0 {
		return m, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
	}
	return m, nil
}

// processAlive reports whether pid is a live process (not a zombie).
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// ---- logs for a failed scenario -----------------------------------------------------------

// supervisorStateDir makes the supervisor's state directory: private, holding a copy of the
// daemon's token and nothing else. A client takes the daemon's socket whenever its state
// directory has one, and the supervisor must talk to the daemon through the tap, over TCP.
// trailboss run keeps its log (run.log) there.
func (r *rig) supervisorStateDir() (string, error) {
	dir := filepath.Join(r.dir, "supervisor-state")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tok, err := os.ReadFile(filepath.Join(r.stateDir, "token"))
	if err != nil {
		return "", fmt.Errorf("the supervisor's copy of the daemon's token: %w", err)
	}
	return dir, os.WriteFile(filepath.Join(dir, "token"), tok, 0o600)
}

// logTails returns the last lines of the supervisor's and the daemon's logs and of the
// child's screen, for the report of a failed scenario.
func (r *rig) logTails() map[string]string {
	if r.dir == "" {
		return nil
	}
	sup := tailLines(filepath.Join(r.dir, "supervisor-state", "run.log"), 12) // trailboss run logs there
	if s := tailLines(filepath.Join(r.dir, "supervisor.log"), 6); s != "" {
		sup += "\n" + s
	}
	var reps []string
	if r.tap != nil {
		for _, rep := range r.tap.reports() {
			what := strings.TrimPrefix(rep.path, "/v1/pty/")
			if rep.state != "" {
				what += " " + rep.state
			}
			if rep.prompt != nil {
				what += fmt.Sprintf(" %s %q", rep.prompt.Kind, rep.prompt.Question)
			}
			id := ""
			if rep.state == wire.PTYPrompt {
				id = " prompt_id=" + strconv.Quote(rep.promptID)
			}
			reps = append(reps, fmt.Sprintf("%s %s → %d%s", rep.at.Format("15:04:05.000"), what, rep.status, id))
		}
		if len(reps) > 12 {
			reps = reps[len(reps)-12:]
		}
	}
	return map[string]string{
		"protocol":   strings.Join(reps, "\n"),
		"supervisor": strings.TrimPrefix(sup, "\n"),
		"daemon":     tailLines(filepath.Join(r.dir, "daemon.log"), 12),
		"screen":     tailLines(filepath.Join(r.dir, "screen.out"), 8),
		"child":      tailLines(r.record, 8),
	}
}

// tailLines returns the last n lines of the file at path, without escapes or control
// characters.
func tailLines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const max = 8 << 10
	if st, err := f.Stat(); err == nil && st.Size() > max {
		_, _ = f.Seek(st.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	s := prompt.StripANSI(string(b))
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
	s = strings.Map(func(c rune) rune {
		if c < ' ' && c != '\n' && c != '\t' {
			return -1
		}
		return c
	}, s)
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ---- the tap ---------------------------------------------------------------------------

// protocolTap is a reverse proxy between the supervisor and the daemon. It passes everything
// through unchanged (streams flushed at once) and notes each POST /v1/pty/report with the
// prompt record the daemon made for it. When the daemon cannot be reached it drops the
// connection, as a dead daemon would.
type protocolTap struct {
	addr   string
	srv    *http.Server
	mu     sync.Mutex
	target string // the daemon's address
	reps   []tapReport
}

// setTarget points the tap at the daemon at addr.
func (t *protocolTap) setTarget(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.target = addr
}

// tapReport is one request of the supervisor and the daemon's answer to it: a report
// (with its state and prompt record), or the opening of the answer stream.
type tapReport struct {
	at       time.Time
	path     string
	state    string
	prompt   *wire.PTYPromptReport
	promptID string
	status   int
}

func startTap() (*protocolTap, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the lab's tap: %w", err)
	}
	t := &protocolTap{addr: ln.Addr().String()}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			t.mu.Lock()
			pr.SetURL(&url.URL{Scheme: "http", Host: t.target})
			t.mu.Unlock()
			pr.Out.Host = pr.In.Host
		},
		FlushInterval: -1,
		Transport:     tapTransport{tap: t, base: &http.Transport{DisableKeepAlives: true}},
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					return
				}
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	t.srv = &http.Server{Handler: rp, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = t.srv.Serve(ln) }()
	return t, nil
}

func (t *protocolTap) close() { _ = t.srv.Close() }

// reports returns the reports so far.
func (t *protocolTap) reports() []tapReport {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]tapReport(nil), t.reps...)
}

// promptIDs returns the distinct prompt records the daemon made for reports, in order.
func (t *protocolTap) promptIDs() []string {
	var ids []string
	for _, rep := range t.reports() {
		if rep.promptID != "" && !contains(ids, rep.promptID) {
			ids = append(ids, rep.promptID)
		}
	}
	return ids
}

// firstAck returns when the daemon first answered a report with prompt record id.
func (t *protocolTap) firstAck(id string) (time.Time, bool) {
	for _, rep := range t.reports() {
		if rep.promptID == id {
			return rep.at, true
		}
	}
	return time.Time{}, false
}

// backSince reports whether, since t, the daemon took a report of the supervisor and
// opened its answer stream: the supervisor is connected again.
func (t *protocolTap) backSince(since time.Time) bool {
	reported, listening := false, false
	for _, rep := range t.reports() {
		if rep.at.Before(since) || rep.status != http.StatusOK {
			continue
		}
		reported = reported || rep.path == wire.RoutePTYReport
		listening = listening || rep.path == wire.RoutePTYAnswers
	}
	return reported && listening
}

// count returns how many reports of state the daemon took.
func (t *protocolTap) count(state string) int {
	n := 0
	for _, rep := range t.reports() {
		if rep.path == wire.RoutePTYReport && rep.state == state && rep.status == http.StatusOK {
			n++
		}
	}
	return n
}

type tapTransport struct {
	tap  *protocolTap
	base http.RoundTripper
}

func (tt tapTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path == wire.RoutePTYAnswers {
		resp, err := tt.base.RoundTrip(req)
		if err == nil {
			tt.tap.mu.Lock()
			tt.tap.reps = append(tt.tap.reps, tapReport{at: time.Now(), path: req.URL.Path, status: resp.StatusCode})
			tt.tap.mu.Unlock()
		}
		return resp, err
	}
	if req.Method != http.MethodPost || req.URL.Path != wire.RoutePTYReport {
		return tt.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	resp, err := tt.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	reply, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(reply))
	var rep wire.PTYReport
	_ = json.Unmarshal(body, &rep)
	var ack wire.PTYReportAck
	_ = json.Unmarshal(reply, &ack)
	tt.tap.mu.Lock()
	tt.tap.reps = append(tt.tap.reps, tapReport{at: time.Now(), path: req.URL.Path, state: rep.State, prompt: rep.Prompt, promptID: ack.PromptID, status: resp.StatusCode})
	tt.tap.mu.Unlock()
	return resp, nil
}
