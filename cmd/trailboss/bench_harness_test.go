package main

// The harness of the end-to-end benchmarks (bench_*_test.go): the real trailboss binary as
// its own processes, a real daemon with a real SQLite file, a real tmux server on a
// private socket (tmuxtest), real pseudo-terminals. Each benchmark collects one sample per
// iteration and reports percentiles with b.ReportMetric; `make bench` runs them with
// fixed -benchtime=Nx counts and TestBenchReport turns their output into one table.
//
// Nothing here touches the user's home, ~/.claude or tmux server: every child gets HOME,
// XDG_*, TMUX_TMPDIR and the state directory in temp folders, and tmux runs on a socket
// of its own.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// benchBin is the trailboss binary the benchmarks run: $TRAILBOSS_BENCH_BIN (make bench
// sets it to bin/trailboss, the product binary as built), else the test binary that
// testscript.Main put on PATH under that name.
func benchBin() string {
	if b := os.Getenv("TRAILBOSS_BENCH_BIN"); b != "" {
		return b
	}
	return "trailboss"
}

// benchHotBin is the binary the benchmarks of the hot verbs (emit, status, jump-next,
// skip) run, as setup wires the hooks and keys to it: $TRAILBOSS_BENCH_HOT_BIN (make bench
// sets it to bin/trailboss-hot), else the trailboss-hot that testscript.Main put on PATH.
func benchHotBin() string {
	if b := os.Getenv("TRAILBOSS_BENCH_HOT_BIN"); b != "" {
		return b
	}
	return "trailboss-hot"
}

// bareGoBin builds `package main; func main() {}` with the Go toolchain that built this
// test (the go on PATH, checked) (CGO_ENABLED=0, in a temp folder) and returns its path: the start of a Go program
// doing nothing, the floor under every figure of a process we start.
func bareGoBin(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module bare\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	// The go on PATH, as `go test` itself was run; its version is checked against this
	// test binary's so that the floor is the same toolchain's.
	if v, err := exec.Command("go", "env", "GOVERSION").Output(); err != nil || strings.TrimSpace(string(v)) != runtime.Version() {
		tb.Fatalf("the go on PATH is %q (%v), not this test's %s", strings.TrimSpace(string(v)), err, runtime.Version())
	}
	bin := filepath.Join(dir, "bare")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = withEnv(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build the bare Go binary: %v\n%s", err, out)
	}
	return bin
}

// floorSample times one start of the bare Go binary bin, exec to exit, with env.
func floorSample(tb testing.TB, bin string, env []string) time.Duration {
	tb.Helper()
	cmd := exec.Command(bin)
	cmd.Env = env
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		tb.Fatalf("the bare Go binary: %v", err)
	}
	return time.Since(t0)
}

// requireSlowBench skips the benchmarks that take a fixed wall-clock window (idle CPU,
// the polling baseline, RSS with 1,000 panes) unless TRAILBOSS_BENCH_SLOW=1 (make bench
// sets it), so that a quick `go test -bench .` does not sit for minutes.
func requireSlowBench(b *testing.B) {
	b.Helper()
	if os.Getenv("TRAILBOSS_BENCH_SLOW") != "1" {
		b.Skip("slow benchmark: run with make bench (TRAILBOSS_BENCH_SLOW=1)")
	}
}

// envDuration returns $name as a duration, or def when it is unset.
func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		b.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}

// isolatedEnv returns this process's environment with HOME, XDG_*, TMUX* and TRAILBOSS_*
// taken out and HOME, XDG_* and TMUX_TMPDIR pointed at temp folders: the daemon's screen
// adapter looks for the user's default tmux server under TMUX_TMPDIR, and must find none.
// tmuxtest's Environ is the same kind of environment, for tests that have a tmux server.
func isolatedEnv(tb testing.TB) []string {
	tb.Helper()
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "HOME" || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "TMUX") ||
			strings.HasPrefix(k, "TRAILBOSS_")
	})
	dir := tb.TempDir()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "TMUX_TMPDIR"} {
		p := filepath.Join(dir, strings.ToLower(k))
		if err := os.Mkdir(p, 0o700); err != nil {
			tb.Fatal(err)
		}
		env = append(env, k+"="+p)
	}
	return env
}

// withEnv returns env with the given KEY=value pairs replacing any earlier ones.
func withEnv(env []string, kv ...string) []string {
	out := slices.Clone(env)
	for _, p := range kv {
		k, _, _ := strings.Cut(p, "=")
		out = slices.DeleteFunc(out, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		out = append(out, p)
	}
	return out
}

// startBenchDaemon runs the product binary's daemon (benchBin) with the caller's isolated
// environment and a temp state directory.
func startBenchDaemon(tb testing.TB, env []string, extra ...string) *liveDaemon {
	tb.Helper()
	return launchDaemon(tb, benchBin(), tb.TempDir(), withEnv(env, "TRAILBOSS_ADDR=", "TRAILBOSS_STATE_DIR="), extra...)
}

// clientEnv is env for a trailboss client process of d: only its state directory, so that
// the client reaches the daemon as a real one does, through its unix socket there.
func (d *liveDaemon) clientEnv(env []string) []string {
	return withEnv(env, "TRAILBOSS_STATE_DIR="+d.stateDir, "TRAILBOSS_ADDR=", "TMUX=", "TMUX_PANE=")
}

// api returns an API client for d.
func (d *liveDaemon) api(tb testing.TB) *client.Client {
	tb.Helper()
	c, err := client.New(d.addr, d.stateDir, 5*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// postHook posts a hook payload to d as the emitter would, from pane of the tmux server
// whose TMUX value is tmuxEnv ("" for none), and returns an error unless it is
// acknowledged.
func (d *liveDaemon) postHook(payload map[string]any, pane, tmuxEnv string) error {
	olderThanAHook()
	body, _ := json.Marshal(payload)
	hc, base := d.raw()
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/hooks/claude", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+d.token)
	req.Header.Set("Content-Type", "application/json")
	if pane != "" {
		req.Header.Set("X-Tmux-Pane", pane)
		req.Header.Set("X-Tmux", tmuxEnv)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("post hook: %w", err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("post hook: %s: %s", resp.Status, reply)
	}
	return nil
}

// testProcessStart is about when this test process started.
var testProcessStart = time.Now()

// olderThanAHook waits, once, until this process has run longer than a hook process may
// take to start (the daemon's maxHookStart, 3 s). The daemon reads the start of the process
// that posts a hook, and dates a hook's news that its session moved on back to it when it
// is that recent (daemon.hookTime): a real hook is a process started for that one hook.
// Posted from this process in its first seconds, a UserPromptSubmit was dated back to the
// start of the test binary, before the Stop it follows, and undid nothing
// (BenchmarkTmuxProcesses, run alone by make bench, waited for 0 stuck in vain).
var olderThanAHook = sync.OnceFunc(func() {
	time.Sleep(time.Until(testProcessStart.Add(3500 * time.Millisecond)))
})

// hook is postHook that fails tb.
func (d *liveDaemon) hook(tb testing.TB, payload map[string]any, pane, tmuxEnv string) {
	tb.Helper()
	if err := d.postHook(payload, pane, tmuxEnv); err != nil {
		tb.Fatal(err)
	}
}

// hookPayload is a Claude Code hook payload for session.
func hookPayload(event, session, cwd, transcript string, extra map[string]any) map[string]any {
	p := map[string]any{"session_id": session, "hook_event_name": event, "cwd": cwd, "transcript_path": transcript}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// hookAll posts n payloads from four workers at once: the setup of many sessions.
func (d *liveDaemon) hookAll(tb testing.TB, n int, payload func(i int) (p map[string]any, pane, tmuxEnv string)) {
	tb.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	jobs := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := d.postHook(payload(i)); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

// queued reports whether session is in the queue (ready or cooling).
func queued(items []client.Item, session string) bool {
	for _, it := range items {
		if it.SessionID == session {
			return true
		}
	}
	return false
}

// waitQueueLen waits until d's queue holds n items.
func (d *liveDaemon) waitQueueLen(tb testing.TB, n int) {
	tb.Helper()
	c := d.api(tb)
	got := -1
	waitUntil(tb, fmt.Sprintf("%d queued items", n), 30*time.Second, func() bool {
		items, err := c.Queue(context.Background())
		got = len(items)
		return err == nil && got == n
	})
}

// ---- tmux --------------------------------------------------------------------------------

// tmuxEnvValue is what $TMUX holds inside a pane of tm's server.
func tmuxEnvValue(tb testing.TB, tm *tmuxtest.Env) string {
	tb.Helper()
	pid := strings.TrimSpace(tm.Tmux(tb, "display-message", "-p", "#{pid}"))
	return tm.Socket + "," + pid + ",0"
}

// tmuxServerPID returns the pid of tm's server.
func tmuxServerPID(tb testing.TB, tm *tmuxtest.Env) int {
	tb.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(tm.Tmux(tb, "display-message", "-p", "#{pid}")))
	if err != nil {
		tb.Fatal(err)
	}
	return pid
}

// newPanes opens n windows in session (created when missing), the i-th running command(i)
// through the shell, forty to a tmux invocation, and returns their pane ids in order.
func newPanes(tb testing.TB, tm *tmuxtest.Env, session string, n int, command func(i int) string) []string {
	tb.Helper()
	var panes []string
	i := 0
	if !strings.Contains(tm.Tmux(tb, "list-sessions", "-F", "#{session_name}"), session+"\n") {
		out := tm.Tmux(tb, "new-session", "-d", "-s", session, "-x", fmt.Sprint(tmuxtest.Width),
			"-y", fmt.Sprint(tmuxtest.Height), "-P", "-F", "#{pane_id}", command(0))
		panes = append(panes, strings.TrimSpace(out))
		i++
	}
	for i < n {
		var args []string
		for j := 0; j < 40 && i < n; j, i = j+1, i+1 {
			if j > 0 {
				args = append(args, ";")
			}
			args = append(args, "new-window", "-d", "-t", "="+session+":", "-P", "-F", "#{pane_id}", command(i))
		}
		panes = append(panes, strings.Fields(tm.Tmux(tb, args...))...)
	}
	if len(panes) != n {
		tb.Fatalf("opened %d panes, want %d", len(panes), n)
	}
	return panes
}

// ---- transcripts ---------------------------------------------------------------------------

// fixtureTranscripts returns the real Claude Code transcripts of the adapter's testdata.
func fixtureTranscripts(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "adapter", "claude", "testdata", "transcripts", "*.jsonl"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no transcript fixtures: %v", err)
	}
	slices.Sort(paths)
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// writeTranscripts writes n transcripts into dir/projects/project-NN/session-NNNN.jsonl
// (folders of projects, as Claude Code keeps them), each a copy of a real one, and returns
// their paths and project folders.
func writeTranscripts(tb testing.TB, dir string, n, projects int) (paths, cwds []string) {
	tb.Helper()
	fixtures := fixtureTranscripts(tb)
	for i := 0; i < n; i++ {
		project := filepath.Join(dir, "projects", fmt.Sprintf("project-%02d", i%projects))
		if err := os.MkdirAll(project, 0o700); err != nil {
			tb.Fatal(err)
		}
		p := filepath.Join(project, fmt.Sprintf("session-%04d.jsonl", i))
		if err := os.WriteFile(p, fixtures[i%len(fixtures)], 0o600); err != nil {
			tb.Fatal(err)
		}
		paths, cwds = append(paths, p), append(cwds, project)
	}
	return paths, cwds
}

// promptLine is a transcript line of a human prompt written at when, as Claude Code writes it.
func promptLine(session string, when time.Time, text string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "user", "sessionId": session, "isSidechain": false,
		"timestamp": when.UTC().Format("2006-01-02T15:04:05.000Z"), "uuid": strconv.FormatInt(when.UnixNano(), 36),
		"message": map[string]any{"role": "user", "content": text}})
	return append(b, '\n')
}

// ---- numbers -----------------------------------------------------------------------------

// percentileMS returns the p-th percentile (nearest rank) of samples in milliseconds.
func percentileMS(samples []time.Duration, p float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return float64(s[max(0, min(i, len(s)-1))]) / float64(time.Millisecond)
}

// reportLatency reports samples' p50, p99 and max as "<prefix>p50-ms" and so on.
func reportLatency(b *testing.B, prefix string, samples []time.Duration) {
	b.ReportMetric(percentileMS(samples, 50), prefix+"p50-ms")
	b.ReportMetric(percentileMS(samples, 99), prefix+"p99-ms")
	b.ReportMetric(percentileMS(samples, 100), prefix+"max-ms")
}

// clockTick is the unit of the CPU times in /proc/PID/stat (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU returns the CPU time pid has used (utime+stime) and that of its waited-for
// children (cutime+cstime), from /proc/PID/stat.
func procCPU(tb testing.TB, pid int) (self, children time.Duration) {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// pid (comm) state ppid … : comm may hold spaces; fields count from after it.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	tick := func(i int) time.Duration { // i: the field number in proc(5)
		n, err := strconv.ParseInt(f[i-3], 10, 64)
		if err != nil {
			tb.Fatalf("/proc/%d/stat field %d: %v", pid, i, err)
		}
		return time.Duration(n) * clockTick
	}
	return tick(14) + tick(15), tick(16) + tick(17)
}

// procStatusKB returns a "kB" field of /proc/PID/status, such as VmRSS.
func procStatusKB(tb testing.TB, pid int, field string) int {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	tb.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}

// wakeups returns how many times pid's threads have gone to sleep and been woken
// (voluntary context switches, summed over /proc/PID/task/*/status).
func wakeups(tb testing.TB, pid int) int {
	tb.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	n := 0
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread exited meanwhile
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				k, _ := strconv.Atoi(strings.TrimSpace(v))
				n += k
			}
		}
	}
	return n
}

// rusage returns the CPU time of this process and of its waited-for children.
func rusage(tb testing.TB) (self, children time.Duration) {
	tb.Helper()
	var s, c syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &s); err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c); err != nil {
		tb.Fatal(err)
	}
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(s.Utime) + tv(s.Stime), tv(c.Utime) + tv(c.Stime)
}

// ---- pseudo-terminals --------------------------------------------------------------------

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// openPTY returns a new pseudo-terminal of cols×rows: its master, open for reads with
// deadlines, and its slave, for a child's standard streams.
func openPTY(tb testing.TB, cols, rows int) (master, slave *os.File) {
	tb.Helper()
	fd, err := syscall.Open("/dev/ptmx", syscall.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		tb.Fatalf("open /dev/ptmx: %v", err)
	}
	var unlock int32
	var n uint32
	if err := ioctl(fd, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		tb.Fatalf("unlock pty: %v", err)
	}
	if err := ioctl(fd, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		tb.Fatalf("pty number: %v", err)
	}
	name := fmt.Sprintf("/dev/pts/%d", n)
	sfd, err := syscall.Open(name, syscall.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		tb.Fatalf("open %s: %v", name, err)
	}
	ws := [4]uint16{uint16(rows), uint16(cols), 0, 0}
	if err := ioctl(sfd, syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
		tb.Fatalf("set pty size: %v", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), os.NewFile(uintptr(sfd), name)
}
