package main

// Stress and fault tests too slow or too intrusive for make test: make stress runs them
// (TRAILBOSS_STRESS=1). They use the real binary, the real daemon and real processes.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

func requireStress(t *testing.T) {
	t.Helper()
	if os.Getenv("TRAILBOSS_STRESS") != "1" {
		t.Skip("stress test: run with make stress (TRAILBOSS_STRESS=1)")
	}
}

// emitProcess runs one real `trailboss emit` with payload on stdin against d.
func emitProcess(d *liveDaemon, payload []byte) error {
	cmd := exec.Command("trailboss", "emit")
	cmd.Env = append(os.Environ(), "TRAILBOSS_ADDR="+d.addr, "TRAILBOSS_STATE_DIR="+d.stateDir, "TMUX=", "TMUX_PANE=")
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		return fmt.Errorf("emit: err=%v output=%q", err, out)
	}
	return nil
}

// TestStressLoad: 200 sessions, then a burst of 20,000 events from 100 concurrent
// `trailboss emit` processes. Zero lost (no emit logged a failure), zero duplicates, and
// the queue order is the emitted order of each session's first stuck event.
func TestStressLoad(t *testing.T) {
	requireStress(t)
	const sessions, burst, workers = 200, 20_000, 100
	d := startDaemon(t)

	start := time.Now()
	for i := 0; i < sessions; i++ { // one at a time: their emitted order is known
		if err := emitProcess(d, stopPayload(fmt.Sprintf("load-%03d", i), nil)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d first stops, one process at a time: %v", sessions, time.Since(start).Round(time.Millisecond))

	events := []func(id string) []byte{
		func(id string) []byte { return stopPayload(id, map[string]any{"last_assistant_message": "again"}) },
		func(id string) []byte {
			b, _ := json.Marshal(map[string]any{"session_id": id, "hook_event_name": "Notification",
				"notification_type": "idle_prompt", "message": "waiting", "cwd": "/src", "transcript_path": ""})
			return b
		},
		func(id string) []byte {
			b, _ := json.Marshal(map[string]any{"session_id": id, "hook_event_name": "PreToolUse",
				"tool_name": "AskUserQuestion", "tool_input": map[string]any{}, "cwd": "/src", "transcript_path": ""})
			return b
		},
	}
	jobs := make(chan []byte)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []error
	start = time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				if err := emitProcess(d, p); err != nil {
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < burst; i++ {
		id := fmt.Sprintf("load-%03d", rand.IntN(sessions))
		jobs <- events[rand.IntN(len(events))](id)
	}
	close(jobs)
	wg.Wait()
	took := time.Since(start)
	t.Logf("%d events from %d concurrent emit processes in %v (%.0f events/s)", burst, workers, took.Round(time.Millisecond),
		float64(burst)/took.Seconds())
	if len(failures) > 0 {
		t.Fatalf("%d emit processes failed, first: %v", len(failures), failures[0])
	}
	// An emit that was not acknowledged within its 300 ms (CPU starvation: 100 processes on
	// this machine's cores) spools its event; only "event lost" is a loss.
	older, _ := os.ReadFile(filepath.Join(d.stateDir, "emit.log.1")) // rotated at 64 KiB
	newer, _ := os.ReadFile(filepath.Join(d.stateDir, "emit.log"))
	logText := append(older, newer...)
	spooled := strings.Count(string(logText), "kept in the spool")
	if lost := strings.Count(string(logText), "event lost") + strings.Count(string(logText), "refused"); lost > 0 {
		t.Fatalf("%d events lost:\n%.2000s", lost, logText)
	}
	t.Logf("%d of %d emits were not answered within their budget and spooled their event", spooled, burst)
	waitUntil(t, "the spool to drain", 30*time.Second, func() bool {
		entries, _ := os.ReadDir(filepath.Join(d.stateDir, "spool"))
		return len(entries) == 0
	})
	c, err := client.New(d.addr, d.stateDir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	items, err := c.Queue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != sessions {
		t.Fatalf("%d items queued, want %d", len(items), sessions)
	}
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A spooled event whose POST did arrive late is applied twice (harmlessly): at least.
	if st.Events < sessions+burst {
		t.Fatalf("the daemon applied %d events, want at least %d", st.Events, sessions+burst)
	}
	t.Logf("the daemon applied %d events", st.Events)
	for i, it := range items {
		if want := fmt.Sprintf("load-%03d", i); it.SessionID != want {
			t.Fatalf("position %d is %s, want %s: the burst reordered the queue", i+1, it.SessionID, want)
		}
	}
	t.Logf("daemon RSS after the burst: %d KB", rssKB(t, d.cmd.Process.Pid))
}

// TestStressInotifyExhausted: with every inotify instance of the user taken, the daemon
// cannot watch transcript folders; the sweep alone still recovers every change.
func TestStressInotifyExhausted(t *testing.T) {
	requireStress(t)
	var fds []int
	for {
		fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
		if err != nil {
			break // EMFILE: the per-user instance limit is reached
		}
		fds = append(fds, fd)
	}
	t.Logf("holding %d inotify instances", len(fds))
	released := false
	release := func() {
		if !released {
			for _, fd := range fds {
				syscall.Close(fd)
			}
			released = true
		}
	}
	defer release()

	d := startDaemon(t, "--sweep", "500ms", "--settle", "100ms")
	// The daemon started without a watcher: it says so.
	waitUntil(t, "the daemon to report that it cannot watch", 5*time.Second, func() bool {
		return strings.Contains(d.log.String(), "file watching unavailable")
	})
	release() // the rest of the machine gets its instances back; the daemon stays without

	dir := t.TempDir()
	const n = 20
	for i := 0; i < n; i++ {
		path := filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", i))
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if code, msg := d.post(t, stopPayload(fmt.Sprintf("ino-%02d", i), map[string]any{"transcript_path": path}), nil); code != 200 {
			t.Fatalf("%d %s", code, msg)
		}
	}
	// Each session is answered in its transcript only (no hook): the sweep must see it.
	stamp := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	for i := 0; i < n; i++ {
		line := fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"go"},"timestamp":%q}`+"\n", stamp)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", i)), []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil(t, "the sweep to dequeue every session", 5*time.Second, func() bool {
		return !strings.Contains(d.queue(t), `"ino-`)
	})
}

// TestStressBrowserCannotDrive: a web page in a real headless Chromium that fires requests
// at the daemon (fetch with mode no-cors, a form POST) changes nothing: browsers send an
// Origin header, and the daemon refuses those before anything else.
func TestStressBrowserCannotDrive(t *testing.T) {
	requireStress(t)
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed (make stress installs it)")
	}
	d := startDaemon(t, "--addr", freeAddr(t)) // a page can reach TCP only
	if code, msg := d.post(t, stopPayload("victim", nil), nil); code != 200 {
		t.Fatalf("%d %s", code, msg)
	}
	before := d.queue(t)

	// The page knows the address and even the token: the Origin check alone must stop it.
	hits := make(chan string, 10)
	page := fmt.Sprintf(`<!doctype html><html><body>
<iframe name=sink></iframe>
<form id=f method=POST target=sink action="http://%[1]s/v1/skip" enctype="text/plain"><input name=x value=y></form>
<script>
const opts = {method: "POST", mode: "no-cors", headers: {"Authorization": "Bearer %[2]s"},
  body: JSON.stringify({session_id: "forged", hook_event_name: "Stop", cwd: "/", transcript_path: ""})};
Promise.allSettled([
  fetch("http://%[1]s/v1/hooks/claude", opts),
  fetch("http://%[1]s/v1/dismiss?session=victim", {method: "POST", mode: "no-cors"}),
  fetch("http://%[1]s/v1/skip", {method: "POST", mode: "no-cors"}),
]).then(() => fetch("/done")).then(() => { document.getElementById("f").submit(); document.body.append("finished"); });
</script></body></html>`, d.addr, d.token)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/done" {
			hits <- "done"
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=3000", "--dump-dom", srv.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	select {
	case <-hits:
	default:
		t.Fatalf("the page did not run its requests:\n%.3000s", out)
	}
	if after := d.queue(t); after != before {
		t.Fatalf("a browser page changed the queue:\nbefore %s\nafter  %s", before, after)
	}
}

// cpuTicks returns a process's user+system CPU time in clock ticks (/proc/<pid>/stat).
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return utime + stime
}

// TestStressScreenWatchCost: the screen adapter watching 100 idle panes costs the daemon
// under 2 % of one core (one list-panes per tick covers them all; quiet panes are read
// once, not again).
func TestStressScreenWatchCost(t *testing.T) {
	requireStress(t)
	env := tmuxtest.New(t)
	var panes []string
	for i := 0; i < 100; i++ {
		panes = append(panes, env.NewPane(t, fmt.Sprintf("w%d", i/10), "sh", "-c", "echo idle agent; exec sleep 3600"))
	}
	d := startDaemon(t, "--screen-tick", "500ms")
	c, err := client.New(d.addr, d.stateDir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		if err := c.Watch(context.Background(), env.Socket, p, "idle", false); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * time.Second) // the first reads of the 100 quiet screens happen here
	const window = 20 * time.Second
	before := cpuTicks(t, d.cmd.Process.Pid)
	time.Sleep(window)
	used := float64(cpuTicks(t, d.cmd.Process.Pid)-before) / 100 // clock ticks are 1/100 s
	pct := 100 * used / window.Seconds()
	t.Logf("daemon CPU watching 100 idle panes: %.2f %% of one core (%.2f s over %v)", pct, used, window)
	if pct >= 2 {
		t.Fatalf("%.2f %% of one core, want < 2 %%", pct)
	}
}
