package main

// Benchmarks of the commands the operator and the hooks run, each as a real process of the
// trailboss binary against a real daemon: a hook's emit, the status line, jump-next on a
// real tmux server with a real attached client, and the popup on a real pseudo-terminal.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/trailboss/trailboss/daemon/statusfile"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/tmuxstatus"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// pollEvery is how often a benchmark looks for the effect it times: often enough for a
// sub-millisecond resolution, seldom enough to leave the CPUs to the processes measured.
const pollEvery = 300 * time.Microsecond

// quiet is the pause between iterations, so that one iteration's after-effects (the
// daemon's status publisher running tmux, a client's redraw) do not land in the next.
const quiet = 30 * time.Millisecond

// startTimed starts cmd and returns when it started and a channel that receives its wall
// time once it has exited.
func startTimed(b *testing.B, cmd *exec.Cmd) (time.Time, <-chan time.Duration) {
	b.Helper()
	done := make(chan time.Duration, 1)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatalf("start %s: %v", cmd.Path, err)
	}
	go func() {
		_ = cmd.Wait()
		done <- time.Since(t0)
	}()
	return t0, done
}

// silentExit fails b unless cmd, which has exited, exited 0 and printed nothing into out.
func silentExit(b *testing.B, cmd *exec.Cmd, out *bytes.Buffer) {
	b.Helper()
	if code := cmd.ProcessState.ExitCode(); code != 0 || out.Len() > 0 {
		b.Fatalf("%s exited %d, printed %q", strings.Join(cmd.Args, " "), code, out.String())
	}
}

// BenchmarkHookToQueue times a hook firing until its item is in GET /v1/queue: the real
// `trailboss-hot emit` process (what setup wires the hooks to) run as a Stop hook in one of ten agent panes of a real tmux
// server (payload on stdin, TMUX and TMUX_PANE in its environment), with GET /v1/queue
// polled from the moment the process starts. Between iterations the session's human
// answers it (a UserPromptSubmit), so that each Stop queues it afresh. Also reported: the
// emit process's own wall time.
//
// Each iteration times both ways a hook reaches the daemon, in turn (which goes first
// alternates): its unix socket, as every client reaches it by default (p50-ms, …), and
// loopback TCP asked for with TRAILBOSS_ADDR (and a state directory without the socket,
// which emit would take instead), where emit first checks who listens there (tcp-p50-ms, …). One daemon, one run: the ratio of the two p50s (socket-over-tcp) is not
// a comparison of two moments of a busy machine. Each iteration also starts a bare Go
// binary (floor-p50-ms, …): the floor, at the same moments of the machine.
func BenchmarkHookToQueue(b *testing.B) {
	bare := bareGoBin(b)
	tm := tmuxtest.New(b)
	d := startBenchDaemon(b, tm.Environ, "--addr", freeAddr(b))
	tmuxEnv := tmuxEnvValue(b, tm)
	const agents = 10
	panes := newPanes(b, tm, "agents", agents, func(int) string { return "cat" })
	work := b.TempDir()
	id := func(k int) string { return fmt.Sprintf("agent-%02d", k) }
	for k, p := range panes {
		d.hook(b, hookPayload("SessionStart", id(k), work, "", map[string]any{"source": "startup"}), p, tmuxEnv)
	}
	api := d.api(b)
	socketEnv := d.clientEnv(tm.Environ)
	// A client takes the socket whenever the state directory has one, address or not: over
	// TCP, it is given a state directory that holds only the daemon's token.
	tcpState := filepath.Join(b.TempDir(), "state")
	if err := os.Mkdir(tcpState, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tcpState, statedir.TokenFile), []byte(d.token+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	tcpEnv := withEnv(socketEnv, "TRAILBOSS_ADDR="+d.addr, "TRAILBOSS_STATE_DIR="+tcpState)
	ctx := context.Background()

	// stop fires one Stop hook for agent k with env, and times it until queued and exited.
	stop := func(k int, env []string) (visible, exited time.Duration) {
		d.hook(b, hookPayload("UserPromptSubmit", id(k), work, "", map[string]any{"prompt": "go on"}), panes[k], tmuxEnv)
		time.Sleep(quiet)
		body, _ := json.Marshal(hookPayload("Stop", id(k), work, "", map[string]any{"last_assistant_message": "Done. Push it?"}))
		cmd := exec.Command(benchHotBin(), "emit")
		cmd.Env = withEnv(env, "TMUX="+tmuxEnv, "TMUX_PANE="+panes[k])
		cmd.Stdin = bytes.NewReader(body)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		t0, done := startTimed(b, cmd)
		for {
			items, err := api.Queue(ctx)
			if err == nil && queued(items, id(k)) {
				visible = time.Since(t0)
				break
			}
			if time.Since(t0) > 5*time.Second {
				b.Fatalf("%s not queued 5 s after its Stop hook (err %v); daemon log:\n%s", id(k), err, d.log)
			}
			time.Sleep(pollEvery)
		}
		exited = <-done
		silentExit(b, cmd, &out)
		return visible, exited
	}

	var socket, socketExit, tcp, tcpExit, floor []time.Duration
	for i := 0; b.Loop(); i++ {
		k := i % agents
		floor = append(floor, floorSample(b, bare, socketEnv))
		if i%2 == 0 {
			v, e := stop(k, socketEnv)
			socket, socketExit = append(socket, v), append(socketExit, e)
		}
		v, e := stop(k, tcpEnv)
		tcp, tcpExit = append(tcp, v), append(tcpExit, e)
		if i%2 == 1 {
			v, e := stop(k, socketEnv)
			socket, socketExit = append(socket, v), append(socketExit, e)
		}
	}
	reportLatency(b, "", socket)
	reportLatency(b, "emit-exit-", socketExit)
	reportLatency(b, "tcp-", tcp)
	reportLatency(b, "tcp-emit-exit-", tcpExit)
	reportLatency(b, "floor-", floor)
	b.ReportMetric(percentileMS(socket, 50)/percentileMS(tcp, 50), "socket-over-tcp")
}

// BenchmarkStatusProcess times the status line as a shell prompt or a bar gets it, with
// ten items queued: the daemon's status file read (what a prompt's `read` builtin does: no
// process at all), and, in turn with it, `trailboss-hot status` (hot-p50-ms, …), the whole
// process asking the daemon through its socket. Each iteration also starts a bare Go
// binary: the floor under any program (floor-p50-ms, …).
func BenchmarkStatusProcess(b *testing.B) {
	bare := bareGoBin(b)
	env := isolatedEnv(b)
	d := startBenchDaemon(b, env)
	for i := 0; i < 10; i++ {
		d.hook(b, hookPayload("Stop", fmt.Sprintf("s%02d", i), "/src", "", nil), "", "")
	}
	env = d.clientEnv(env)
	const want = "⚠ 10 stuck"
	deadline := time.Now().Add(5 * time.Second)
	for line, _, _ := statusfile.Read(d.stateDir); line != want; line, _, _ = statusfile.Read(d.stateDir) {
		if time.Now().After(deadline) {
			b.Fatalf("the status file says %q, want %q", line, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	readFile := func() time.Duration {
		t0 := time.Now()
		line, _, err := statusfile.Read(d.stateDir)
		took := time.Since(t0)
		if err != nil || line != want {
			b.Fatalf("status file: %q, %v", line, err)
		}
		return took
	}
	hotStatus := func() time.Duration {
		cmd := exec.Command(benchHotBin(), "status")
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		t0 := time.Now()
		err := cmd.Run()
		took := time.Since(t0)
		if err != nil || out.String() != want+"\n" {
			b.Fatalf("trailboss-hot status: %v, printed %q", err, out.String())
		}
		return took
	}
	var file, hot, floor []time.Duration
	for b.Loop() {
		floor = append(floor, floorSample(b, bare, env))
		file = append(file, readFile())
		hot = append(hot, hotStatus())
	}
	reportLatency(b, "", file)
	reportLatency(b, "hot-", hot)
	reportLatency(b, "floor-", floor)
}

// BenchmarkBareGoStart times a bare Go binary (`func main() {}`, built with this test's
// toolchain), exec to exit: the floor under the figures of the processes we start.
func BenchmarkBareGoStart(b *testing.B) {
	bare := bareGoBin(b)
	env := isolatedEnv(b)
	var samples []time.Duration
	for b.Loop() {
		samples = append(samples, floorSample(b, bare, env))
	}
	reportLatency(b, "", samples)
}

// emitWhileDown runs `trailboss-hot emit` with a Stop payload against d, which is not
// answering, and reports the processes' wall times (the budget is 300 ms, always) and the
// share of events that reached the spool.
func emitWhileDown(b *testing.B, d *liveDaemon, env []string) {
	env = d.clientEnv(env)
	var samples []time.Duration
	n := 0
	for b.Loop() {
		body, _ := json.Marshal(hookPayload("Stop", fmt.Sprintf("down-%03d", n), "/src", "", nil))
		n++
		cmd := exec.Command(benchHotBin(), "emit")
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(body)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		t0 := time.Now()
		err := cmd.Run()
		samples = append(samples, time.Since(t0))
		if err != nil || out.Len() > 0 {
			b.Fatalf("emit with the daemon down: %v, printed %q", err, out.String())
		}
	}
	entries, _ := os.ReadDir(filepath.Join(d.stateDir, "spool"))
	reportLatency(b, "", samples)
	b.ReportMetric(100*float64(len(entries))/float64(n), "spooled-%")
}

// BenchmarkEmitDaemonDown: the daemon ran and stopped; nothing listens at its socket now
// (it is gone). Each emit spools its event.
func BenchmarkEmitDaemonDown(b *testing.B) {
	env := isolatedEnv(b)
	d := startBenchDaemon(b, env)
	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		b.Fatal(err)
	}
	_ = d.cmd.Wait()
	emitWhileDown(b, d, env)
}

// BenchmarkEmitDaemonHung: the daemon process is there but stopped (SIGSTOP): the kernel
// accepts the connection and nothing ever answers, so every emit waits out its budget.
func BenchmarkEmitDaemonHung(b *testing.B) {
	env := isolatedEnv(b)
	d := startBenchDaemon(b, env)
	if err := d.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = d.cmd.Process.Signal(syscall.SIGCONT) }) // before the SIGINT
	emitWhileDown(b, d, env)
}

// typescript returns the file in which tmuxtest keeps what the one attached client of tm
// has drawn.
func typescript(b *testing.B, tm *tmuxtest.Env) string {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(tm.Dir, "*.typescript"))
	if len(files) != 1 {
		b.Fatalf("want one attached client's typescript, have %q", files)
	}
	return files[0]
}

// BenchmarkJumpNext times what a person feels: a key pressed on a real client attached on a
// pseudo-terminal (script(1)) until that terminal shows the pane the key moves to. Two
// agent panes (a window each, in a session of their own) are queued and print a marker
// each; the time is taken when the marker of the pane the client must land on appears in
// what the client draws after the key was typed, and the client then really is on that pane
// (checked). Four moves, in an order that turns with each iteration, each from the pane the
// client is on to the other of the two:
//
//   - prefix Tab, bound as setup binds it (tmuxLines): a local jump is tmux's own
//     switch-client, on the panes the daemon keeps in @trailboss_head / @trailboss_next
//     (p50-ms, …);
//   - prefix J, bound to run-shell running a bare `tmux switch-client -c <client> -t <pane>`
//     process, the pane set before each press (tmux-p50-ms, …): the jump against tmux's own
//     command line (vs-tmux-x, the ratio of the p50s);
//   - that `tmux switch-client` process exec'd by the benchmark, timed from its exec (no key,
//     no run-shell: the denominator before issue 31 was done; tmux-exec-p50-ms, …,
//     vs-tmux-exec-x);
//   - `trailboss-hot jump-next` as the Tab binding runs it when the daemon's options name no
//     pane (the head on another host or server), timed from its exec (process-p50-ms, …,
//     and its wall time process-exit-p50-ms, …), so that the process path does not
//     regress unnoticed.
//
// Also reported: a bare Go binary's start in each iteration (floor-p50-ms, …).
func BenchmarkJumpNext(b *testing.B) {
	bare := bareGoBin(b)
	tm := tmuxtest.New(b)
	d := startBenchDaemon(b, tm.Environ)
	tmuxEnv := tmuxEnvValue(b, tm)
	const agents = 2
	marker := func(i int) string { return fmt.Sprintf("TBJUMP-%02d-HERE", i) }
	panes := newPanes(b, tm, "agents", agents, func(i int) string {
		return fmt.Sprintf("printf '%%s\\n' %s; exec cat", marker(i))
	})
	markers := map[string][]byte{}
	work := b.TempDir()
	for i, p := range panes {
		markers[p] = []byte(marker(i))
		d.hook(b, hookPayload("Stop", fmt.Sprintf("agent-%02d", i), work, "", map[string]any{"last_assistant_message": "Done?"}), p, tmuxEnv)
		time.Sleep(2 * time.Millisecond) // distinct ages: a fixed queue order
	}
	ctx := context.Background()
	// The keys as setup binds them (the fallback's process finds the daemon through the
	// tmux server's environment, as a user's does through their shell's).
	tm.Tmux(b, "set-environment", "-g", "TRAILBOSS_STATE_DIR", d.stateDir)
	lines := tmuxLines(tmuxSettings{bin: hooks.ShellWord(benchBin()), hot: hooks.ShellWord(benchHotBin()), statusOff: true})
	if err := tm.Server.SourceConfig(ctx, lines); err != nil {
		b.Fatal(err)
	}
	waitUntil(b, "the daemon's jump options on the tmux server", 10*time.Second, func() bool {
		return strings.TrimSpace(tm.Tmux(b, "show-options", "-gqv", tmuxstatus.OptionHead)) == panes[0] &&
			strings.TrimSpace(tm.Tmux(b, "show-options", "-gqv", tmuxstatus.OptionNext)) == panes[1]
	})
	client := tm.Attach(b, "main")
	tm.Press(b, client, "\x02\t") // to the head: from here on the client is on one of the two
	waitUntil(b, "the first jump", 10*time.Second, func() bool { return tm.ActivePane(b, client) == panes[0] })
	screen, err := os.Open(typescript(b, tm))
	if err != nil {
		b.Fatal(err)
	}
	defer screen.Close()
	env := d.clientEnv(tm.Environ)

	var landed, tmuxLanded, execLanded, procLanded, procExited, floor []time.Duration
	buf := make([]byte, 64<<10)
	// shown waits until the client draws marker after t0 (from what it had drawn at off),
	// and returns how long that took.
	shown := func(off int64, t0 time.Time, marker []byte, what string) time.Duration {
		var drawn []byte
		for {
			n, _ := screen.ReadAt(buf, off)
			off += int64(n)
			drawn = append(drawn, buf[:n]...)
			if bytes.Contains(drawn, marker) {
				return time.Since(t0)
			}
			if time.Since(t0) > 5*time.Second {
				b.Fatalf("the client did not show %s within 5 s after %s; drawn %q", marker, what, drawn)
			}
			time.Sleep(pollEvery)
		}
	}
	drawnSoFar := func() int64 {
		st, err := screen.Stat()
		if err != nil {
			b.Fatal(err)
		}
		return st.Size()
	}
	// Each move takes the client from the pane it is on to the other one, and returns how
	// long the client took to show it.
	moves := []func(from, to string) time.Duration{
		func(from, to string) time.Duration { // prefix Tab
			off := drawnSoFar()
			t0 := time.Now()
			tm.Press(b, client, "\x02\t")
			return shown(off, t0, markers[to], "prefix Tab")
		},
		func(from, to string) time.Duration { // prefix J: a tmux switch-client process
			tm.Tmux(b, "bind-key", "J", "run-shell", hooks.ShellWord(tm.Server.Bin)+" -S #{q:socket_path} switch-client -c #{q:client_name} -t "+to)
			time.Sleep(quiet)
			off := drawnSoFar()
			t0 := time.Now()
			tm.Press(b, client, "\x02J")
			return shown(off, t0, markers[to], "prefix J (tmux switch-client)")
		},
		func(from, to string) time.Duration { // tmux switch-client exec'd: no key, no run-shell
			off := drawnSoFar()
			sw := exec.Command(tm.Server.Bin, "-S", tm.Socket, "switch-client", "-c", client, "-t", to)
			sw.Env = env
			var out bytes.Buffer
			sw.Stdout, sw.Stderr = &out, &out
			t0, done := startTimed(b, sw)
			took := shown(off, t0, markers[to], "tmux switch-client")
			<-done
			silentExit(b, sw, &out)
			return took
		},
		func(from, to string) time.Duration { // the process path
			off := drawnSoFar()
			cmd := exec.Command(benchHotBin(), "jump-next", "--client", client, "--socket", tm.Socket, "--pane", from)
			cmd.Env = env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			t0, done := startTimed(b, cmd)
			took := shown(off, t0, markers[to], "trailboss-hot jump-next")
			procExited = append(procExited, <-done)
			silentExit(b, cmd, &out)
			return took
		},
	}
	samples := []*[]time.Duration{&landed, &tmuxLanded, &execLanded, &procLanded}
	iter := 0
	for b.Loop() {
		floor = append(floor, floorSample(b, bare, env))
		for k := range moves {
			m := (iter + k) % len(moves)
			from, err := tm.Server.ClientPane(ctx, client)
			if err != nil {
				b.Fatal(err)
			}
			to := panes[0]
			if from == panes[0] {
				to = panes[1]
			}
			*samples[m] = append(*samples[m], moves[m](from, to))
			if got, err := tm.Server.ClientPane(ctx, client); err != nil || got != to {
				b.Fatalf("after move %d the client is on %s (%v), want %s", m, got, err, to)
			}
			time.Sleep(quiet)
		}
		iter++
	}
	reportLatency(b, "", landed)
	reportLatency(b, "tmux-", tmuxLanded)
	reportLatency(b, "tmux-exec-", execLanded)
	reportLatency(b, "process-", procLanded)
	reportLatency(b, "process-exit-", procExited)
	reportLatency(b, "floor-", floor)
	if p := percentileMS(tmuxLanded, 50); p > 0 {
		b.ReportMetric(percentileMS(landed, 50)/p, "vs-tmux-x")
	}
	if p := percentileMS(execLanded, 50); p > 0 {
		b.ReportMetric(percentileMS(landed, 50)/p, "vs-tmux-exec-x")
	}
}

// popupFrameDone reports whether what a popup drew so far, escapes taken out, holds a whole
// first frame of the list: the title, the first row, and the key help on its last line
// (cut to the width, so only its start is sure to be there).
func popupFrameDone(drawn []byte) bool {
	text := strings.Join(strings.Fields(ansi.ReplaceAllString(string(drawn), " ")), " ")
	return strings.Contains(text, "Trail Boss") && strings.Contains(text, "› 1 ") && strings.Contains(text, "enter jump")
}

// BenchmarkPopupFirstFrame times the real `trailboss popup` over 500 queued sessions from
// its exec to its first whole frame on its terminal: a pseudo-terminal of 100×30 (the size
// of the README's display-popup) with TERM=tmux-256color as in a display-popup, opened for
// a real attached client (--client) of a tmux server with the 500 agents' panes, in 25
// project folders with a git HEAD each. The popup is closed with q after each frame.
func BenchmarkPopupFirstFrame(b *testing.B) {
	tm := tmuxtest.New(b)
	d := startBenchDaemon(b, tm.Environ)
	tmuxEnv := tmuxEnvValue(b, tm)
	const items = 500
	panes := newPanes(b, tm, "agents", items, func(int) string { return "cat" })
	var projects []string
	for i := 0; i < 25; i++ {
		p := filepath.Join(b.TempDir(), fmt.Sprintf("project-%02d", i))
		if err := os.MkdirAll(filepath.Join(p, ".git"), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, ".git", "HEAD"), fmt.Appendf(nil, "ref: refs/heads/feature-%d\n", i), 0o600); err != nil {
			b.Fatal(err)
		}
		projects = append(projects, p)
	}
	d.hookAll(b, items, func(i int) (map[string]any, string, string) {
		p := hookPayload("PermissionRequest", fmt.Sprintf("agent-%03d", i), projects[i%len(projects)], "",
			map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": fmt.Sprintf("go test ./... && git push origin feature-%d", i)}})
		return p, panes[i], tmuxEnv
	})
	d.waitQueueLen(b, items)
	client := tm.Attach(b, "main")
	env := withEnv(d.clientEnv(tm.Environ), "TERM=tmux-256color")

	var samples []time.Duration
	buf := make([]byte, 64<<10)
	for b.Loop() {
		master, slave := openPTY(b, 100, 30)
		cmd := exec.Command(benchBin(), "popup", "--client", client, "--socket", tm.Socket)
		cmd.Env = env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		t0, done := startTimed(b, cmd)
		slave.Close()
		var drawn []byte
		for !popupFrameDone(drawn) {
			_ = master.SetReadDeadline(t0.Add(10 * time.Second))
			n, err := master.Read(buf)
			drawn = append(drawn, buf[:n]...)
			if err != nil && !popupFrameDone(drawn) {
				b.Fatalf("popup: no whole first frame (%v); drawn:\n%s", err, ansi.ReplaceAllString(string(drawn), " "))
			}
		}
		samples = append(samples, time.Since(t0))
		if time.Since(t0) > 500*time.Millisecond { // an outlier: say what it drew
			b.Logf("slow first frame, %v; it drew:\n%s", time.Since(t0), ansi.ReplaceAllString(string(drawn), " "))
		}
		if _, err := master.Write([]byte("q")); err != nil {
			b.Fatal(err)
		}
		// Read what it draws while closing (a full pty would block it), until it exits.
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			for {
				_ = master.SetReadDeadline(time.Now().Add(10 * time.Second))
				if _, err := master.Read(buf); err != nil {
					return
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			b.Fatal("popup did not close on q within 10 s")
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			b.Fatalf("popup exited %d", code)
		}
		master.Close()
		<-drained
		time.Sleep(quiet)
	}
	reportLatency(b, "", samples)
}
