package emit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

const payload = `{"session_id":"S","hook_event_name":"Stop","transcript_path":"","cwd":"/src"}` + "\n"

// stateDir returns a state directory with a token, and the token.
func stateDir(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	tok, err := statedir.EnsureToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, tok
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func emitter(t *testing.T, addr string, stdin io.Reader, timeout time.Duration) *Emitter {
	t.Helper()
	dir, _ := stateDir(t)
	return &Emitter{Addr: addr, StateDir: dir, Getenv: envOf(nil), Stdin: stdin, Timeout: timeout, Now: time.Now}
}

// emitWithin runs e.Emit and returns how long it took and its error, failing the test
// (rather than hanging it) when Emit has not returned after limit.
func emitWithin(t *testing.T, e *Emitter, limit time.Duration) (time.Duration, error) {
	t.Helper()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- e.Emit(context.Background()) }()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(limit):
		t.Fatalf("Emit has not returned after %v", limit)
		return 0, nil
	}
}

// freeAddr returns a loopback address on which nothing listens.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// recorder is a fake daemon that keeps what it was sent.
type recorder struct {
	mu       sync.Mutex
	requests []*http.Request
	bodies   [][]byte
	code     int
	reply    string
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.requests = append(rc.requests, r.Clone(context.Background()))
	rc.bodies = append(rc.bodies, body)
	code, reply := rc.code, rc.reply
	rc.mu.Unlock()
	if code == 0 {
		code, reply = http.StatusOK, `{"ok":true,"changed":true}`
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write([]byte(reply))
}

func (rc *recorder) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.requests)
}

func TestEmitGivesUpQuicklyWhenTheDaemonIsDown(t *testing.T) {
	addr := freeAddr(t)
	e := emitter(t, addr, strings.NewReader(payload), EmitTimeout)
	elapsed, err := emitWithin(t, e, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Emit to a daemon that is down: %v, want an error naming %s", err, addr)
	}
	if elapsed >= 400*time.Millisecond {
		t.Fatalf("Emit took %v with the daemon down, want < 400ms", elapsed)
	}
}

func TestEmitGivesUpOnADaemonThatNeverAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	accepted := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})

	const timeout = 200 * time.Millisecond
	e := emitter(t, ln.Addr().String(), strings.NewReader(payload), timeout)
	elapsed, err := emitWithin(t, e, 2*time.Second)
	select {
	case <-accepted:
	default:
		t.Fatal("test setup: the emitter never connected to the silent daemon")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Emit to a silent daemon: %v, want a deadline error", err)
	}
	// Near its timeout, with room for a loaded machine (302 ms was seen at load 13), and
	// far from the 2 s a missing deadline would take.
	if limit := timeout + 300*time.Millisecond; elapsed > limit {
		t.Fatalf("Emit gave up after %v, want within %v", elapsed, limit)
	}
	if n := len(spooled(t, e.StateDir)); n != 1 {
		t.Fatalf("%d events spooled after the daemon did not answer, want 1", n)
	}
}

func TestEmitGivesUpOnAStdinThatNeverCloses(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	pr, pw := io.Pipe()
	defer pw.Close()                          // frees the reader left blocked in the background
	go pw.Write([]byte(`{"session_id":"S",`)) // a start, and then nothing more

	const timeout = 150 * time.Millisecond
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), pr, timeout)
	elapsed, err := emitWithin(t, e, 3*PayloadReadTimeout)
	if err == nil || !strings.Contains(err.Error(), "read hook payload") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Emit with an open stdin: %v, want a deadline error reading the payload", err)
	}
	// Reading has its own budget, apart from the daemon's (timeout).
	if elapsed > PayloadReadTimeout+500*time.Millisecond {
		t.Fatalf("Emit gave up after %v, want within about %v", elapsed, PayloadReadTimeout)
	}
	if n := rc.count(); n != 0 {
		t.Fatalf("a half-read payload was posted (%d requests)", n)
	}
}

func TestEmitSendsThePayloadWithTheHooksLocation(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	dir, tok := stateDir(t)
	emitted := time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
	e := &Emitter{
		Addr:     strings.TrimPrefix(srv.URL, "http://"),
		StateDir: dir,
		Getenv:   envOf(map[string]string{"TMUX_PANE": "%7", "TMUX": "/tmp/tbx-emit/default,4242,0"}),
		Stdin:    strings.NewReader(payload),
		Timeout:  2 * time.Second,
		Now:      func() time.Time { return emitted },
	}
	if err := e.Emit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rc.count() != 1 {
		t.Fatalf("%d requests, want 1", rc.count())
	}
	r, body := rc.requests[0], rc.bodies[0]
	if r.Method != http.MethodPost || r.URL.Path != "/v1/hooks/claude" {
		t.Errorf("request %s %s, want POST /v1/hooks/claude", r.Method, r.URL.Path)
	}
	if !bytes.Equal(body, []byte(payload)) {
		t.Errorf("body %q, want the hook's stdin unchanged %q", body, payload)
	}
	want := map[string]string{
		"Authorization":          "Bearer " + tok,
		"Content-Type":           "application/json",
		"X-Tmux-Pane":            "%7",
		"X-Tmux":                 "/tmp/tbx-emit/default,4242,0",
		"X-Trailboss-Emitted-At": "2026-11-21T09:00:00.123456789Z",
	}
	for k, v := range want {
		if got := r.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if got, err := time.Parse(time.RFC3339Nano, r.Header.Get("X-Trailboss-Emitted-At")); err != nil || !got.Equal(emitted) {
		t.Errorf("emitted-at reads back as %v (%v), want %v", got, err, emitted)
	}
	if r.Header.Get("Origin") != "" {
		t.Error("the emitter sent an Origin header, which the daemon refuses")
	}
}

func TestEmitOutsideTmuxSendsEmptyLocation(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), strings.NewReader(payload), 2*time.Second)
	if err := e.Emit(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := rc.requests[0]
	if r.Header.Get("X-Tmux-Pane") != "" || r.Header.Get("X-Tmux") != "" {
		t.Fatalf("outside tmux: pane %q tmux %q, want both empty", r.Header.Get("X-Tmux-Pane"), r.Header.Get("X-Tmux"))
	}
}

// TestEmitWithoutTmuxPaneFindsItsPane covers the Claude Code release that stripped
// TMUX_PANE: the emitter, run by a shell in a real pane of an isolated tmux server, with
// TMUX set and TMUX_PANE empty, must still send that pane's id, found by its ancestry.
func TestEmitWithoutTmuxPaneFindsItsPane(t *testing.T) {
	env := tmuxtest.New(t)
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	dir, _ := stateDir(t)

	// The test binary itself is the emitting process (see TestHelperEmitInPane); sh, the
	// pane's process, is its parent.
	cmd := "TRAILBOSS_EMIT_HELPER=1 TRAILBOSS_EMIT_ADDR=" + shQuote(strings.TrimPrefix(srv.URL, "http://")) +
		" TRAILBOSS_EMIT_STATE=" + shQuote(dir) + " " + shQuote(os.Args[0]) +
		" -test.run='^TestHelperEmitInPane$'; sleep 5"
	pane := env.NewPane(t, "work", cmd)
	env.WaitFor(t, "the emitter in the pane to post", 5*time.Second, func() bool { return rc.count() > 0 })

	r := rc.requests[0]
	if got := r.Header.Get("X-Tmux-Pane"); got != pane {
		t.Fatalf("X-Tmux-Pane %q, want %q, the pane the emitter runs in", got, pane)
	}
	if tmux := r.Header.Get("X-Tmux"); !strings.HasPrefix(tmux, env.Socket+",") {
		t.Fatalf("X-Tmux %q, want the pane's TMUX (socket %s)", tmux, env.Socket)
	}
}

// TestHelperEmitInPane is not a test: TestEmitWithoutTmuxPaneFindsItsPane runs the test
// binary with it inside a tmux pane.
func TestHelperEmitInPane(t *testing.T) {
	if os.Getenv("TRAILBOSS_EMIT_HELPER") != "1" {
		t.Skip("helper process for TestEmitWithoutTmuxPaneFindsItsPane")
	}
	e := &Emitter{
		Addr:     os.Getenv("TRAILBOSS_EMIT_ADDR"),
		StateDir: os.Getenv("TRAILBOSS_EMIT_STATE"),
		Getenv: func(k string) string {
			if k == "TMUX_PANE" {
				return "" // as the release that stripped it
			}
			return os.Getenv(k)
		},
		Stdin:   strings.NewReader(payload),
		Timeout: 3 * time.Second,
		Now:     time.Now,
	}
	if err := e.Emit(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestEmitReportsTheDaemonsRefusal(t *testing.T) {
	rc := &recorder{code: http.StatusBadRequest, reply: `{"error":"invalid event: missing session_id"}`}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), strings.NewReader(`{}`), 2*time.Second)
	err := e.Emit(context.Background())
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "missing session_id") {
		t.Fatalf("Emit refused by the daemon: %v, want the status and the daemon's message", err)
	}
}

func TestEmitWithoutATokenPostsNothing(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil { // private, as the daemon makes it: clients refuse an open one
		t.Fatal(err)
	}
	e := &Emitter{Addr: strings.TrimPrefix(srv.URL, "http://"), StateDir: dir, Getenv: envOf(nil),
		Stdin: strings.NewReader(payload), Timeout: time.Second, Now: time.Now}
	if err := e.Emit(context.Background()); !errors.Is(err, statedir.ErrNoToken) {
		t.Fatalf("Emit without a token: %v, want ErrNoToken", err)
	}
	if rc.count() != 0 {
		t.Fatal("posted without a token")
	}
	// The daemon has never started: it drains the spool when it does.
	if n := len(spooled(t, e.StateDir)); n != 1 {
		t.Fatalf("%d events spooled without a token, want 1", n)
	}
}

func TestLogFailureAppendsOneLinePerFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	LogFailure(dir, now, nil)
	if _, err := os.Stat(filepath.Join(dir, statedir.EmitLog)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a nil error was logged: %v", err)
	}
	LogFailure(dir, now, errors.New("post to daemon: connection refused\n\x1b[31mred"))
	LogFailure(dir, now.Add(time.Second), context.DeadlineExceeded)
	b, err := os.ReadFile(filepath.Join(dir, statedir.EmitLog))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("emit.log has %d lines, want 2: %q", len(lines), b)
	}
	if !strings.HasPrefix(lines[0], "2026-11-21T09:00:00Z post to daemon: connection refused") || strings.Contains(lines[0], "\x1b") {
		t.Errorf("first line %q: want the time and the cleaned message", lines[0])
	}
	if !strings.HasPrefix(lines[1], "2026-11-21T09:00:01Z ") || !strings.Contains(lines[1], "gave up") {
		t.Errorf("second line %q: want a note that the emitter gave up", lines[1])
	}
	fi, err := os.Stat(filepath.Join(dir, statedir.EmitLog))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("emit.log mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}

func TestLogFailureRotatesPast64KiB(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, statedir.EmitLog)
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

	atLimit := bytes.Repeat([]byte("x"), 64<<10)
	if err := os.WriteFile(path, atLimit, 0o600); err != nil {
		t.Fatal(err)
	}
	LogFailure(dir, now, errors.New("one"))
	if _, err := os.Stat(path + ".1"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("rotated at exactly 64 KiB: %v", err)
	}

	LogFailure(dir, now, errors.New("two")) // now past the limit
	old, err := os.ReadFile(path + ".1")
	if err != nil {
		t.Fatalf("no emit.log.1 after passing 64 KiB: %v", err)
	}
	if !bytes.HasPrefix(old, atLimit) || !bytes.HasSuffix(old, []byte(" one\n")) {
		t.Fatalf("emit.log.1 does not hold the old log (%d bytes)", len(old))
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(cur) != "2026-11-21T09:00:00Z two\n" {
		t.Fatalf("emit.log after rotation: %q, want only the new line", cur)
	}

	// A second rotation replaces emit.log.1: the logs stay bounded.
	if err := os.WriteFile(path, bytes.Repeat([]byte("y"), 64<<10+1), 0o600); err != nil {
		t.Fatal(err)
	}
	LogFailure(dir, now, errors.New("three"))
	old, _ = os.ReadFile(path + ".1")
	if len(old) != 64<<10+1 || old[0] != 'y' {
		t.Fatalf("emit.log.1 after a second rotation: %d bytes starting %q", len(old), old[:1])
	}
}

// TestEmitSlimsALargePayload: a PreToolUse now comes for every tool, a large Write's content
// with it; over 64 KB a payload that does not hold is sent as what the daemon reads (the
// call whole but its long strings cut), so that it is never refused as too large.
func TestEmitSlimsALargePayload(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	content := strings.Repeat("x", 512<<10)
	big := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"toolu_1",` +
		`"tool_input":{"file_path":"/w/big.txt","content":"` + content + `"}}`
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), strings.NewReader(big), 2*time.Second)
	if err := e.Emit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rc.count() != 1 {
		t.Fatalf("%d requests, want 1", rc.count())
	}
	var got struct {
		ToolUseID string `json:"tool_use_id"`
		ToolInput struct {
			FilePath string `json:"file_path"`
			Content  string `json:"content"`
		} `json:"tool_input"`
	}
	if err := json.Unmarshal(rc.bodies[0], &got); err != nil {
		t.Fatal(err)
	}
	if len(rc.bodies[0]) > 64<<10 || got.ToolUseID != "toolu_1" || got.ToolInput.FilePath != "/w/big.txt" || !strings.HasPrefix(content, got.ToolInput.Content) {
		t.Fatalf("sent %d bytes: %+v", len(rc.bodies[0]), got)
	}
	// A small one goes as it came.
	rc2 := &recorder{}
	srv2 := httptest.NewServer(rc2)
	defer srv2.Close()
	e = emitter(t, strings.TrimPrefix(srv2.URL, "http://"), strings.NewReader(payload), 2*time.Second)
	if err := e.Emit(context.Background()); err != nil || !bytes.Equal(rc2.bodies[0], []byte(payload)) {
		t.Fatalf("a small payload was changed (%v): %s", err, rc2.bodies[0])
	}
}

// An agent that exits as it starts a hook closes the hook's input unwritten: nothing is
// sent, spooled or logged, and no state directory is made for it (under stress -c 2, one
// such hook re-created a test's folder after its cleanup).
func TestEmitOfNoPayloadLeavesNoTrace(t *testing.T) {
	addr := freeAddr(t)
	dir := filepath.Join(t.TempDir(), "gone", "state")
	e := &Emitter{Addr: addr, StateDir: dir, Getenv: envOf(nil), Stdin: strings.NewReader(" \n"), Timeout: 200 * time.Millisecond, Now: time.Now}
	if _, err := emitWithin(t, e, 2*time.Second); err != nil {
		t.Fatalf("Emit of no payload: %v, want nothing to report", err)
	}
	if _, err := os.Stat(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Fatalf("Emit of no payload made %s (%v)", filepath.Dir(dir), err)
	}
}
