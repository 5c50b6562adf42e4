package main

// The bad-input suite against the running daemon: the real binary as its own process, a
// real SQLite file, real files on disk. Each case asserts the status code, a clear
// message, an unchanged queue, and a live daemon afterwards.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/statedir"
)

// liveDaemon is a real `trailboss daemon` process for a test.
type liveDaemon struct {
	addr            string // its TCP address when it was given --addr, else ""
	stateDir, token string
	cmd             *exec.Cmd
	log             *bytes.Buffer
	sockHTTP        *http.Client // to its unix socket
}

// startDaemon runs the real binary (testscript put it on PATH) with a temp state dir.
func startDaemon(t *testing.T, extra ...string) *liveDaemon {
	t.Helper()
	return startDaemonIn(t, t.TempDir(), extra...)
}

// startDaemonIn runs the real daemon with the given state directory, in an environment with
// nothing of the user's: no home, no tmux server (the screen adapter would look for one at
// $TMUX and under $TMUX_TMPDIR), and a config that only switches delivery on, as the tests
// of answers need (delivery_off_by_default.txtar tests it off).
func startDaemonIn(t *testing.T, stateDir string, extra ...string) *liveDaemon {
	t.Helper()
	config := t.TempDir()
	deliveryOn(t, config)
	env := append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+config, "TRAILBOSS_ADDR=",
		"TMUX=", "TMUX_PANE=", "TMUX_TMPDIR="+t.TempDir())
	return launchDaemon(t, "trailboss", stateDir, env, extra...)
}

// deliveryOn writes a config.toml under configHome that switches delivery on.
func deliveryOn(t testing.TB, configHome string) {
	t.Helper()
	conf := filepath.Join(configHome, "trailboss", "config.toml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte("[delivery]\nenabled = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// launchDaemon runs `bin daemon` with env, on its unix socket (and on TCP too when extra
// holds --addr ADDR), waits until it answers, and stops it with SIGINT when the test or
// benchmark ends.
func launchDaemon(tb testing.TB, bin, stateDir string, env []string, extra ...string) *liveDaemon {
	tb.Helper()
	d := spawnDaemon(tb, bin, stateDir, env, extra...)
	d.waitReady(tb)
	return d
}

// spawnDaemon is launchDaemon without the wait: many daemons start at once, then each is
// waited for (waitReady).
func spawnDaemon(tb testing.TB, bin, stateDir string, env []string, extra ...string) *liveDaemon {
	tb.Helper()
	d := &liveDaemon{stateDir: stateDir, log: &bytes.Buffer{}}
	if i := slices.Index(extra, "--addr"); i >= 0 && i+1 < len(extra) {
		d.addr = extra[i+1]
	}
	sock, err := statedir.SocketPath(stateDir)
	if err != nil {
		tb.Fatal(err)
	}
	d.sockHTTP = socketHTTP(sock)
	args := append([]string{"daemon", "--state-dir", d.stateDir}, extra...)
	d.cmd = exec.Command(bin, args...)
	d.cmd.Env = env
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	if err := d.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = d.cmd.Process.Signal(syscall.SIGINT)
		_ = d.cmd.Wait()
	})
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("the daemon's output:\n%s", d.log.String())
		}
	})
	return d
}

// waitReady waits until d answers, and reads its token. The deadline allows for fifty
// daemons starting at once on two busy cores (BenchmarkHub50Hosts).
func (d *liveDaemon) waitReady(tb testing.TB) {
	tb.Helper()
	waitUntil(tb, "the daemon to answer", 30*time.Second, func() bool {
		b, err := os.ReadFile(filepath.Join(d.stateDir, "token"))
		if err != nil {
			return false
		}
		d.token = strings.TrimSpace(string(b))
		hc, base := d.raw()
		resp, err := hc.Get(base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

// freeAddr returns a loopback address nothing listens on now.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// raw returns a plain HTTP client to d (a copy the caller may change) and the URL its paths
// go after: TCP when d listens there, else its unix socket (as curl --unix-socket).
func (d *liveDaemon) raw() (*http.Client, string) {
	if d.addr != "" {
		return &http.Client{Timeout: 10 * time.Second}, "http://" + d.addr
	}
	c := *d.sockHTTP // its transport, shared
	c.Timeout = 10 * time.Second
	return &c, "http://trailboss"
}

// socketHTTP returns a plain HTTP client whose every request goes to the unix socket sock.
func socketHTTP(sock string) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "unix", sock)
	}}}
}

// waitUntil polls cond every 10 ms until it holds, failing after timeout.
func waitUntil(tb testing.TB, what string, timeout time.Duration, cond func() bool) {
	tb.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
	}
}

// post sends a hook payload with headers and returns the status and the error message.
func (d *liveDaemon) post(t *testing.T, body []byte, headers map[string]string) (int, string) {
	t.Helper()
	hc, base := d.raw()
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/hooks/claude", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+d.token)
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("post: %v (daemon log:\n%s)", err, d.log)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(b, &e)
	return resp.StatusCode, e.Error
}

// queue returns the queue as JSON text, for before/after comparison.
func (d *liveDaemon) queue(t *testing.T) string {
	t.Helper()
	c, err := client.New(d.addr, d.stateDir, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	items, err := c.Queue(context.Background())
	if err != nil {
		t.Fatalf("queue: %v (daemon log:\n%s)", err, d.log)
	}
	b, _ := json.Marshal(items)
	return string(b)
}

func (d *liveDaemon) alive(t *testing.T) {
	t.Helper()
	hc, base := d.raw()
	resp, err := hc.Get(base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("daemon not alive: %v (log:\n%s)", err, d.log)
	}
	resp.Body.Close()
}

func stopPayload(session string, extra map[string]any) []byte {
	p := map[string]any{"session_id": session, "hook_event_name": "Stop", "cwd": "/src", "transcript_path": ""}
	for k, v := range extra {
		p[k] = v
	}
	b, _ := json.Marshal(p)
	return b
}

// TestBadInputAgainstRunningDaemon posts over TCP (--addr), where a browser's Origin and a
// rebinding Host can come from.
func TestBadInputAgainstRunningDaemon(t *testing.T) {
	d := startDaemon(t, "--sweep", "200ms", "--addr", freeAddr(t))
	if code, msg := d.post(t, stopPayload("base", nil), nil); code != 200 {
		t.Fatalf("baseline: %d %s", code, msg)
	}
	missingSock := filepath.Join(t.TempDir(), "no-such-socket")
	long := strings.Repeat("x", 100_000)
	cases := []struct {
		name    string
		body    []byte
		headers map[string]string
		code    int
		msg     string
	}{
		{"malformed JSON", []byte(`{"session_id": nope}`), nil, 400, "malformed JSON"},
		{"truncated JSON", []byte(`{"session_id":"x","hook_event_name":"Stop"`), nil, 400, "truncated"},
		{"empty body", nil, nil, 400, "empty or truncated"},
		{"wrong type", []byte(`{"session_id":7,"hook_event_name":"Stop"}`), nil, 400, `"session_id" must be a string`},
		{"array", []byte(`[{"session_id":"x"}]`), nil, 400, "must be one JSON object"},
		{"missing session_id", []byte(`{"hook_event_name":"Stop"}`), nil, 400, "missing session_id"},
		{"missing hook_event_name", []byte(`{"session_id":"x"}`), nil, 400, "missing hook_event_name"},
		{"2 MiB body", bytes.Repeat([]byte("x"), 2<<20), nil, 413, "limit"},
		{"invalid UTF-8", []byte("{\"session_id\":\"x\xff\xfe\",\"hook_event_name\":\"Stop\"}"), nil, 400, "not valid UTF-8"},
		{"control characters in session_id", stopPayload("x\u001b[2Jboom", nil), nil, 400, "control characters"},
		{"100 KB session_id", stopPayload(long, nil), nil, 400, "session_id longer than"},
		{"100 KB cwd", stopPayload("x", map[string]any{"cwd": long}), nil, 400, "cwd longer than"},
		{"100 KB transcript_path", stopPayload("x", map[string]any{"transcript_path": "/" + long}), nil, 400, "transcript_path longer than"},
		{"pane with a command", stopPayload("x", nil), map[string]string{"X-Tmux-Pane": "%1;kill-server"}, 400, "not a tmux pane id"},
		{"pane that is a flag", stopPayload("x", nil), map[string]string{"X-Tmux-Pane": "-t"}, 400, "not a tmux pane id"},
		{"bare %", stopPayload("x", nil), map[string]string{"X-Tmux-Pane": "%"}, 400, "not a tmux pane id"},
		{"pane overflow", stopPayload("x", nil), map[string]string{"X-Tmux-Pane": "%99999999999999999999"}, 400, "not a tmux pane id"},
		{"TMUX at a missing socket", stopPayload("x", nil), map[string]string{"X-Tmux-Pane": "%1", "X-Tmux": missingSock + ",1,0"}, 400, "does not exist"},
		{"TMUX garbage", stopPayload("x", nil), map[string]string{"X-Tmux-Pane": "%1", "X-Tmux": "garbage"}, 400, "TMUX value"},
		{"emitted-at garbage", stopPayload("x", nil), map[string]string{"X-Trailboss-Emitted-At": "yesterday"}, 400, "RFC 3339"},
		{"no token", stopPayload("x", nil), map[string]string{"Authorization": ""}, 401, "token"},
		{"wrong token", stopPayload("x", nil), map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, 401, "token"},
		{"browser origin", stopPayload("x", nil), map[string]string{"Origin": "http://localhost:8080"}, 403, "browsers"},
		{"DNS rebinding host", stopPayload("x", nil), map[string]string{"Host": "attacker.example:4000"}, 403, "not a loopback"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := d.queue(t)
			code, msg := d.post(t, tc.body, tc.headers)
			if code != tc.code || !strings.Contains(msg, tc.msg) {
				t.Errorf("got %d %q, want %d with %q", code, msg, tc.code, tc.msg)
			}
			if after := d.queue(t); after != before {
				t.Errorf("queue changed:\nbefore %s\nafter  %s", before, after)
			}
			d.alive(t)
		})
	}
}

func TestSummaryControlCharactersAreCleaned(t *testing.T) {
	d := startDaemon(t)
	msg := "done\x1b]0;pwned\x07 \x1b[31mred\x1b[0m\r\nnext?" + strings.Repeat("y", 100_000)
	if code, e := d.post(t, stopPayload("clean", map[string]any{"last_assistant_message": msg}), nil); code != 200 {
		t.Fatalf("%d %s", code, e)
	}
	q := d.queue(t)
	if strings.Contains(q, `\u001b`) || strings.Contains(q, `\u0007`) || strings.Contains(q, `\r`) {
		t.Errorf("control characters reached the queue: %.200s", q)
	}
	if len(q) > 5000 {
		t.Errorf("a 100 KB summary was stored whole (%d bytes of queue)", len(q))
	}
}

// TestHostileTranscriptPaths registers sessions whose transcript_path is every kind of
// thing that is not a transcript. The daemon reads them as data or not at all: it neither
// hangs nor grows, and it goes on reconciling a real transcript.
func TestHostileTranscriptPaths(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse.jsonl")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(5 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	deleted := filepath.Join(dir, "deleted.jsonl")
	truncated := filepath.Join(dir, "truncated.jsonl")
	for _, p := range []string{deleted, truncated} {
		if err := os.WriteFile(p, []byte(strings.Repeat(`{"type":"user","message":{"role":"user","content":"hi"}}`+"\n", 100)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	paths := map[string]string{
		"dir": dir, "fifo": fifo, "devzero": "/dev/zero", "loop": loop, "sparse": sparse,
		"deleted": deleted, "truncated": truncated, "outside": "/etc/passwd", "missing": filepath.Join(dir, "nope.jsonl"),
	}

	d := startDaemon(t, "--sweep", "100ms", "--settle", "50ms")
	for name, p := range paths {
		if code, msg := d.post(t, stopPayload("hostile-"+name, map[string]any{"transcript_path": p}), nil); code != 200 {
			t.Fatalf("%s: %d %s", name, code, msg)
		}
	}
	if err := os.Remove(deleted); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(truncated, 10); err != nil {
		t.Fatal(err)
	}

	// A real transcript still reconciles: its appended prompt dequeues it. The loop takes a
	// first look at every session still unread on each change, so by then it has been
	// through each hostile path (and a 100 ms sweep has run over them besides).
	real := filepath.Join(dir, "real.jsonl")
	if err := os.WriteFile(real, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, msg := d.post(t, stopPayload("real", map[string]any{"transcript_path": real}), nil); code != 200 {
		t.Fatalf("real: %d %s", code, msg)
	}
	line := fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"go on"},"timestamp":%q}`+"\n",
		time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano))
	if err := os.WriteFile(real, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the real transcript to dequeue its session", 5*time.Second, func() bool {
		return !strings.Contains(d.queue(t), `"session_id":"real"`)
	})
	if got := strings.Count(d.queue(t), `"session_id":"hostile-`); got != len(paths) {
		t.Errorf("%d hostile sessions queued, want %d (a Stop is a Stop whatever its transcript)", got, len(paths))
	}
	if rss := rssKB(t, d.cmd.Process.Pid); rss > 100_000 {
		t.Errorf("daemon RSS %d KB after the hostile paths", rss)
	}
}

func rssKB(t *testing.T, pid int) int { return statusKB(t, pid, "VmRSS:") }

// statusKB returns the figure in kB of field (such as "VmHWM:", the peak RSS) in
// /proc/PID/status.
func statusKB(t *testing.T, pid int, field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

// TestTokenOfAnotherStateDirIsRefused: a token is only good for its own daemon.
func TestTokenOfAnotherStateDirIsRefused(t *testing.T) {
	a, b := startDaemon(t), startDaemon(t)
	code, msg := a.post(t, stopPayload("x", nil), map[string]string{"Authorization": "Bearer " + b.token})
	if code != 401 || !strings.Contains(msg, "token") {
		t.Fatalf("another daemon's token: %d %q, want 401", code, msg)
	}
	if q := a.queue(t); q != "[]" && q != "null" {
		t.Fatalf("queue changed: %s", q)
	}
}

// TestOnlyDeliveryTypesIntoAPane: the only tmux commands that type (send-keys,
// paste-buffer) are in tmuxctl/deliver.go, and the only caller of its typing methods is the
// daemon's delivery code (daemon/deliver/deliver.go), behind its checks. Trail Boss routes the
// operator's attention; it types nothing but a person's own answer.
func TestOnlyDeliveryTypesIntoAPane(t *testing.T) {
	root := filepath.Join("..", "..")
	typists := map[string][]string{
		filepath.Join("tmuxctl", "deliver.go"):           {`"send-keys"`, `"paste-buffer"`},
		filepath.Join("daemon", "deliver", "deliver.go"): {".TypeLiteral(", ".PasteText(", ".PressEnter(", ".PressArrow("},
	}
	forbidden := []string{`"send-keys"`, `"send-key"`, `"paste-buffer"`, `"send-prefix"`, `"pasteb"`,
		".TypeLiteral(", ".PasteText(", ".PressEnter(", ".PressArrow("}
	found := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() && (de.Name() == ".git" || de.Name() == "testdata" || de.Name() == "bin") {
			return filepath.SkipDir
		}
		if de.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.Contains(path, "tmuxtest") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		allowed := typists[rel]
		for _, bad := range forbidden {
			if !bytes.Contains(b, []byte(bad)) {
				continue
			}
			if slices.Contains(allowed, bad) {
				found[rel+" "+bad] = true
				continue
			}
			t.Errorf("%s uses %s: only the delivery code (daemon/deliver/deliver.go through tmuxctl/deliver.go) may type into a pane", rel, bad)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The check must be looking at the right files: the delivery code is where it says.
	for file, calls := range typists {
		for _, c := range calls {
			if !found[file+" "+c] {
				t.Errorf("%s no longer uses %s: update this test's list of the code that types", file, c)
			}
		}
	}
}
