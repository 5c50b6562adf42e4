package main

// `make demo` as a newcomer runs it: the Makefile target itself, in the repository root, on
// a real pseudo-terminal (util-linux script(1)), with keys typed into that terminal. Each
// run gets its own HOME, TMPDIR, TMUX_TMPDIR, XDG_* and state folders and no TMUX, so that
// neither the user's tmux server nor their home is touched; the demo makes its own folder
// under that TMPDIR. Every process of a run carries the run's TMPDIR in its environment,
// which is how the tests find what is left of a demo after it ends.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/cmd/internal/demo"

	"github.com/trailboss/trailboss/hooks"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// demoGone is how long after it ends a demo may take to leave nothing behind: its panes and
// then its tmux server are each given demo.StopWait, on a machine that may be busy.
const demoGone = 2*demo.StopWait + time.Second

// TestMakeDemo runs `make demo`, lands on the oldest stuck agent with prefix Tab, and ends
// the demo each way a person can: detach, a hangup (the SIGHUP a shell sends its jobs when
// its terminal closes), the terminal itself closing, and Ctrl-C. After each, within 2 s, no
// process of the demo is left and neither is anything in TMPDIR.
func TestMakeDemo(t *testing.T) {
	repo := requireMakeDemo(t)

	t.Run("detach", func(t *testing.T) {
		r := startMakeDemo(t, repo, nil, "make", "demo")
		r.landOnOldest(t)
		welcome := r.tmux(t, "capture-pane", "-p", "-t", "="+demo.Session+":0")
		if !strings.Contains(welcome, "Ctrl-b Tab") || strings.Contains(welcome, "twice") {
			t.Errorf("outside tmux, the welcome window does not say Ctrl-b Tab once:\n%s", welcome)
		}
		r.checkLooksLikeReadme(t)
		r.checkAnsweredAgentWorksThenAsks(t)
		ended := time.Now()
		r.press(t, "\x02d")
		r.checkNothingLeft(t, ended)
		if err := r.wait(t); err != nil {
			t.Fatalf("make demo after a detach: %v\n%s", err, r.screen(t))
		}
		r.checkStoppedCleanly(t)
	})

	t.Run("popup-answer", func(t *testing.T) {
		// The welcome offers answers from the popup: they work in the demo as it starts.
		r := startMakeDemo(t, repo, nil, "make", "demo")
		r.landOnOldest(t)
		r.checkAllowFromThePopup(t)
		// Esc closes the popup; then prefix d reaches the demo's binding again.
		r.press(t, "\x1b")
		r.poll(t, "the popup to close", 5*time.Second, func() bool {
			for _, p := range r.processes() {
				if len(p.argv) > 1 && p.argv[1] == "popup" {
					return false
				}
			}
			return true
		}, func() string { return "a trailboss popup process is still running" })
		ended := time.Now()
		r.press(t, "\x02d")
		r.checkNothingLeft(t, ended)
	})

	t.Run("hangup", func(t *testing.T) {
		// Started inside a tmux of the user's (one of the test's own, prefix Ctrl-b): the
		// demo says how to reach its keys through it.
		outer := tmuxtest.New(t)
		tmuxEnv := "TMUX=" + outer.Socket + ",1,0"
		r := startMakeDemo(t, repo, []string{tmuxEnv}, "make", "demo")
		r.landOnOldest(t)
		welcome := r.tmux(t, "capture-pane", "-p", "-t", "="+demo.Session+":0")
		if !strings.Contains(welcome, "press it twice") || !strings.Contains(welcome, "Ctrl-b Ctrl-b Tab") {
			t.Errorf("inside tmux, the welcome window does not say to press Ctrl-b twice:\n%s", welcome)
		}
		pgid := r.jobGroup(t)
		ended := time.Now()
		if err := syscall.Kill(-pgid, syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		r.checkNothingLeft(t, ended)
		r.checkStoppedCleanly(t)
	})

	t.Run("closed-terminal", func(t *testing.T) {
		r := startMakeDemo(t, repo, nil, "make", "demo")
		r.landOnOldest(t)
		ended := time.Now()
		r.closeTerminal(t)
		r.checkNothingLeft(t, ended)
	})

	t.Run("ctrl-c", func(t *testing.T) {
		r := startMakeDemo(t, repo, nil, "make", "demo")
		r.landOnOldest(t)
		// The tmux client keeps its terminal raw, so a Ctrl-C typed there goes to the pane;
		// this is the SIGINT the terminal sends its foreground job when it is not raw.
		pgid := r.jobGroup(t)
		ended := time.Now()
		if err := syscall.Kill(-pgid, syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		r.checkNothingLeft(t, ended)
		r.checkStoppedCleanly(t)
	})

	t.Run("own-failure", func(t *testing.T) {
		// The demo's daemon cannot listen: the demo says so and removes what it started.
		taken, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer taken.Close()
		go func() {
			for {
				c, err := taken.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		r := startMakeDemo(t, repo, nil, "make", "build")
		if err := r.wait(t); err != nil {
			t.Fatalf("make build: %v\n%s", err, r.screen(t))
		}
		started := time.Now()
		r = startMakeDemo(t, repo, nil, "./"+filepath.Join("bin", "trailboss"), "demo", "--addr", taken.Addr().String())
		err = r.wait(t)
		ended := time.Now()
		t.Logf("the demo failed, cleaned up and exited %v after it started", ended.Sub(started).Round(time.Millisecond))
		if err == nil {
			t.Fatalf("the demo succeeded with its address taken:\n%s", r.screen(t))
		}
		if s := r.screen(t); !regexp.MustCompile(`could not start[^\n]*cleaned up[^\n]*daemon stopped[^\n]*taken`).MatchString(s) {
			t.Errorf("the demo's failure does not say what happened:\n%s", s)
		}
		r.checkNothingLeft(t, ended)
	})
}

// requireMakeDemo skips (or, with TRAILBOSS_REQUIRE_TMUX=1, fails) without the tools a
// newcomer's make demo needs, and returns the repository root.
func requireMakeDemo(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("make demo builds the binary and runs it for a while")
	}
	for _, tool := range []string{"tmux", "script", "make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("TRAILBOSS_REQUIRE_TMUX") == "1" {
				t.Fatalf("make demo needs %s: %v", tool, err)
			}
			t.Skipf("make demo needs %s: %v", tool, err)
		}
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("finding what a demo left needs /proc")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// makeDemoRun is one `make demo` (or another command) on a pseudo-terminal.
type makeDemoRun struct {
	tmp        string // the run's TMPDIR, in every process's environment
	env        []string
	cmd        *exec.Cmd // script(1)
	keys       *os.File  // what the terminal reads as typed keys
	exited     chan struct{}
	exitErr    error
	typescript string

	dir, socket string // the demo's folder and tmux socket, once landOnOldest found them
}

var (
	goEnvOnce sync.Once
	goEnvVars []string
)

// goEnv returns the Go settings of the user running the tests (build and module caches
// first): make demo builds with them instead of from an empty cache in the temp HOME.
func goEnv(t *testing.T) []string {
	goEnvOnce.Do(func() {
		names := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "GOSUMDB"}
		out, err := exec.Command("go", append([]string{"env"}, names...)...).Output()
		if err != nil {
			return
		}
		for i, v := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if i < len(names) && v != "" {
				goEnvVars = append(goEnvVars, names[i]+"="+v)
			}
		}
	})
	if len(goEnvVars) == 0 {
		t.Fatal("go env printed nothing")
	}
	return goEnvVars
}

// startMakeDemo runs argv in repo on a new pseudo-terminal of 200×50 in an isolated
// environment (plus extra), and stops whatever is left of it when the test ends.
func startMakeDemo(t *testing.T, repo string, extra []string, argv ...string) *makeDemoRun {
	t.Helper()
	// Not t.TempDir: the demo's tmux socket lives under TMPDIR, and unix socket paths are short.
	root, err := os.MkdirTemp("", "tbmd")
	if err != nil {
		t.Fatal(err)
	}
	r := &makeDemoRun{tmp: filepath.Join(root, "tmp"), exited: make(chan struct{}),
		typescript: filepath.Join(root, "typescript")}
	dirs := map[string]string{"HOME": "home", "TMPDIR": "tmp", "TMUX_TMPDIR": "tmux",
		"XDG_CONFIG_HOME": "config", "XDG_STATE_HOME": "state", "XDG_DATA_HOME": "data",
		"XDG_CACHE_HOME": "cache", "XDG_RUNTIME_DIR": "run", "TRAILBOSS_STATE_DIR": "trailboss"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := dirs[k]; ours || k == "TMUX" || k == "TMUX_PANE" || k == "SHELL" || k == "TERM" ||
			strings.HasPrefix(k, "TRAILBOSS_") || strings.HasPrefix(k, "MAKE") || k == "MFLAGS" ||
			k == "CLAUDE_CONFIG_DIR" || k == "CODEX_HOME" || strings.HasPrefix(k, "GO") {
			continue
		}
		r.env = append(r.env, kv)
	}
	for k, sub := range dirs {
		p := filepath.Join(root, sub)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		r.env = append(r.env, k+"="+p)
	}
	// TERM screen-*: a trailboss started on a terminal whose TERM is not tmux* or screen*
	// asks it for its background colour (see the README's Known limits); a person's terminal
	// answers at once, this one never would, and each start would wait 5 s.
	r.env = append(r.env, "SHELL=/bin/sh", "TERM=screen-256color")
	// The go command of make build would start a telemetry process of its own in the fresh
	// config folder, which would outlive the demo.
	telemetry := filepath.Join(root, "config", "go", "telemetry")
	if err := os.MkdirAll(telemetry, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(telemetry, "mode"), []byte("off"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.env = append(append(r.env, goEnv(t)...), extra...)

	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = hooks.ShellWord(a)
	}
	r.cmd = exec.Command("script", "-qefc", "stty cols 200 rows 50; exec "+strings.Join(quoted, " "), r.typescript)
	r.cmd.Dir = repo
	r.cmd.Env = r.env
	// script(1) types ^D into the terminal when its input ends: a pipe that stays open.
	in, keys, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stdin, r.keys = in, keys
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start script(1): %v", err)
	}
	in.Close()
	go func() {
		r.exitErr = r.cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		// Whatever a failed test left: the terminal, then every process of the run.
		_ = r.cmd.Process.Kill()
		<-r.exited
		r.keys.Close()
		for _, p := range r.processes() {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
		os.RemoveAll(root)
	})
	return r
}

// wait waits for the run to end by itself and returns its exit error.
func (r *makeDemoRun) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-r.exited:
		return r.exitErr
	case <-time.After(3 * time.Minute):
		t.Fatalf("still running after 3 minutes:\n%s", r.screen(t))
		return nil
	}
}

// screen returns what the terminal showed, escape sequences taken out.
func (r *makeDemoRun) screen(t *testing.T) string {
	b, _ := os.ReadFile(r.typescript)
	s := ansi.ReplaceAllString(string(b), "")
	if len(s) > 3000 {
		s = "…" + s[len(s)-3000:]
	}
	return s
}

// press types keys into the terminal, as a person at it would.
func (r *makeDemoRun) press(t *testing.T, keys string) {
	t.Helper()
	if _, err := r.keys.WriteString(keys); err != nil {
		t.Fatalf("type %q: %v", keys, err)
	}
}

// closeTerminal closes the terminal as a terminal emulator's window closing does: the
// pseudo-terminal's master side goes away.
func (r *makeDemoRun) closeTerminal(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-r.exited
}

// tmux runs tmux against the demo's own server.
func (r *makeDemoRun) tmux(t *testing.T, args ...string) string {
	t.Helper()
	out, err := r.tryTmux(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (r *makeDemoRun) tryTmux(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-u", "-S", r.socket}, args...)...)
	cmd.Env = r.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// poll calls cond every 20 ms until it holds; after timeout it fails the test with what
// detail says.
func (r *makeDemoRun) poll(t *testing.T, what string, timeout time.Duration, cond func() bool, detail func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		select {
		case <-r.exited:
			t.Fatalf("waiting for %s, the run ended: %v\n%s", what, r.exitErr, r.screen(t))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %s\nthe terminal:\n%s", timeout, what, detail(), r.screen(t))
		}
	}
}

// queue returns the demo daemon's queue.
func (r *makeDemoRun) queue(t *testing.T) ([]client.Item, error) {
	state := filepath.Join(r.dir, "state")
	c, err := client.New(statedir.LastAddr(state), state, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return c.Queue(context.Background())
}

// clientPane returns the pane the demo's one attached client looks at ("" for none, or
// while the demo's tmux server is still starting). The daemon's control client (control
// mode, sent no output) is not that client.
func (r *makeDemoRun) clientPane() string {
	out, _ := r.tryTmux("list-clients", "-F", "#{pane_id} #{client_flags}")
	var panes []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if pane, flags, _ := strings.Cut(l, " "); pane != "" && !strings.Contains(flags, "no-output") {
			panes = append(panes, pane)
		}
	}
	return strings.Join(panes, "\n")
}

// landOnOldest waits until make has built and the demo has attached the terminal and an
// agent is stuck, presses prefix Tab, and checks that the terminal lands on that agent's pane.
func (r *makeDemoRun) landOnOldest(t *testing.T) {
	t.Helper()
	// The first run may build the binary from a cold cache.
	r.poll(t, "the demo's tmux server", 3*time.Minute, func() bool {
		socks, _ := filepath.Glob(filepath.Join(r.tmp, "trailboss-demo-*", "tmux.sock"))
		if len(socks) == 1 {
			r.socket, r.dir = socks[0], filepath.Dir(socks[0])
		}
		return r.socket != ""
	}, func() string { return "no trailboss-demo-*/tmux.sock in " + r.tmp })
	r.poll(t, "the terminal to be attached", 10*time.Second, func() bool { return r.clientPane() != "" },
		func() string { return "no client" })
	var head client.Item
	r.poll(t, "an agent stuck", 15*time.Second, func() bool {
		items, err := r.queue(t)
		if err != nil || len(items) == 0 || !items[0].Ready {
			return false
		}
		head = items[0]
		return true
	}, func() string { return "the queue stayed empty" })
	if head.SessionID != "demo-api" {
		t.Errorf("the oldest stuck agent is %s, want demo-api (it stops first)", head.SessionID)
	}
	r.press(t, "\x02\t")
	var on string
	r.poll(t, "prefix Tab to land on "+head.Pane, 5*time.Second, func() bool {
		on = r.clientPane()
		return on == head.Pane
	}, func() string { return "the terminal is on " + on })
}

// checkLooksLikeReadme checks what makes the demo look like the README's picture: a project
// folder per agent, each a git repository on a branch of its own, and Esc that is not held
// back by tmux's escape-time.
func (r *makeDemoRun) checkLooksLikeReadme(t *testing.T) {
	t.Helper()
	if got := strings.TrimSpace(r.tmux(t, "show-options", "-sv", "escape-time")); got != "10" {
		t.Errorf("escape-time is %s ms, want 10", got)
	}
	paths := map[string]string{} // window name → the pane's folder
	for _, l := range strings.Split(strings.TrimSpace(r.tmux(t, "list-panes", "-s", "-t", "="+demo.Session,
		"-F", "#{window_name}\t#{pane_start_path}")), "\n") {
		name, path, _ := strings.Cut(l, "\t")
		paths[name] = path
	}
	branches := map[string]string{}
	for _, a := range demo.Agents {
		path := paths[a.Name]
		if filepath.Dir(path) != filepath.Join(r.dir, "projects") || filepath.Base(path) != a.Name {
			t.Errorf("agent %s works in %q, want %s/projects/%s", a.Name, path, r.dir, a.Name)
			continue
		}
		head, err := os.ReadFile(filepath.Join(path, ".git", "HEAD"))
		if err != nil {
			t.Errorf("agent %s's folder is no git repository: %v", a.Name, err)
			continue
		}
		branch := strings.TrimPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
		if git, err := exec.LookPath("git"); err == nil {
			out, err := exec.Command(git, "-C", path, "branch", "--show-current").CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != branch {
				t.Errorf("git in agent %s's folder: %v: %s (want branch %s)", a.Name, err, out, branch)
			}
		}
		if other, taken := branches[branch]; taken {
			t.Errorf("agents %s and %s are both on branch %s", other, a.Name, branch)
		}
		branches[branch] = a.Name
	}
	items, err := r.queue(t)
	if err != nil || len(items) == 0 {
		t.Fatalf("queue: %v %v", items, err)
	}
	if want := paths["api"]; items[0].Cwd != want {
		t.Errorf("the head's project is %q, want %q", items[0].Cwd, want)
	}
}

// checkAnsweredAgentWorksThenAsks answers the agent the terminal is on (the oldest, api, at
// its permission prompt) and checks that it leaves the queue, shows that it works for a few
// seconds, and then stops again with a new question.
func (r *makeDemoRun) checkAnsweredAgentWorksThenAsks(t *testing.T) {
	t.Helper()
	items, _ := r.queue(t)
	asked := items[0]
	pane := asked.Pane
	r.press(t, "yes\r")
	answered := time.Now()
	inQueue := func() (client.Item, bool) {
		items, _ := r.queue(t)
		for _, it := range items {
			if it.SessionID == asked.SessionID {
				return it, true
			}
		}
		return client.Item{}, false
	}
	r.poll(t, "the answered agent to leave the queue", 5*time.Second, func() bool {
		_, in := inQueue()
		return !in
	}, func() string { return "it stayed" })
	r.poll(t, "the answered agent to show that it works", 5*time.Second, func() bool {
		return strings.Contains(r.tmux(t, "capture-pane", "-p", "-t", pane), "Working…")
	}, func() string { return r.tmux(t, "capture-pane", "-p", "-t", pane) })
	var again client.Item
	r.poll(t, "the answered agent to stop again", 20*time.Second, func() bool {
		it, in := inQueue()
		again = it
		return in
	}, func() string { return "it kept working" })
	worked := time.Since(answered)
	t.Logf("the answered agent worked %v before its next question", worked.Round(10*time.Millisecond))
	if worked < 2*time.Second {
		t.Errorf("the answered agent stopped again after %v: that is no visible work", worked)
	}
	if again.Summary == asked.Summary {
		t.Errorf("the agent asked the same again: %q", again.Summary)
	}
}

// checkAllowFromThePopup opens the popup on the head (api, at its permission prompt),
// presses a, and checks that the simulated agent takes the answer: the popup says so, the
// agent leaves the queue and works. The terminal never moves.
func (r *makeDemoRun) checkAllowFromThePopup(t *testing.T) {
	t.Helper()
	items, _ := r.queue(t)
	asked := items[0]
	if asked.Prompt == nil || asked.Prompt.Kind != "permission" {
		t.Fatalf("the head %s waits for %+v, want a permission", asked.SessionID, asked.Prompt)
	}
	r.press(t, "\x02g")
	r.poll(t, "the popup to offer Allow", 10*time.Second, func() bool {
		// Compared without blanks: tmux moves the cursor over some instead of drawing them.
		return strings.Contains(noBlanks(r.screen(t)), "aAllow·xDeny")
	}, func() string { return "no answer keys shown (is delivery on in the demo's config?)" })
	r.press(t, "a")
	r.poll(t, "the popup to say the answer was sent", 10*time.Second, func() bool {
		return strings.Contains(noBlanks(r.screen(t)), "Allowsentto")
	}, func() string { return "no outcome shown" })
	r.poll(t, "the allowed agent to leave the queue and work", 10*time.Second, func() bool {
		items, _ := r.queue(t)
		for _, it := range items {
			if it.SessionID == asked.SessionID {
				return false
			}
		}
		return strings.Contains(r.tmux(t, "capture-pane", "-p", "-t", asked.Pane), "Working…")
	}, func() string { return r.tmux(t, "capture-pane", "-p", "-t", asked.Pane) })
	if s := r.screen(t); strings.Contains(s, "delivery is off") {
		t.Errorf("the popup says delivery is off in the demo:\n%s", s)
	}
	if on := r.clientPane(); on != asked.Pane {
		t.Errorf("the terminal moved to %s while answering from the popup", on)
	}
}

// noBlanks returns s without its spaces and control characters (tmux writes a shift-in after
// each change of style).
func noBlanks(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' {
			return -1
		}
		return r
	}, s)
}

// jobGroup returns the process group of the demo's process: the job (make, the demo, its
// tmux client) that a terminal signals. It is never the test's own group.
func (r *makeDemoRun) jobGroup(t *testing.T) int {
	t.Helper()
	for _, p := range r.processes() {
		if strings.HasSuffix(p.argv[0], "bin/trailboss") && len(p.argv) > 1 && p.argv[1] == "demo" {
			pgid, err := syscall.Getpgid(p.pid)
			if err != nil {
				t.Fatal(err)
			}
			if pgid == syscall.Getpgrp() {
				t.Fatalf("the demo runs in the test's own process group %d", pgid)
			}
			return pgid
		}
	}
	t.Fatalf("no demo process among %v", r.processes())
	return 0
}

// processes returns the live (not zombie) processes that have the run's TMPDIR in their
// environment or command line.
func (r *makeDemoRun) processes() []proc {
	var out []proc
	for _, p := range liveProcs() {
		if p.env("TMPDIR") == r.tmp || strings.Contains(strings.Join(p.argv, " "), r.tmp) {
			out = append(out, p)
		}
	}
	return out
}

// checkStoppedCleanly waits for the run to end and checks that the demo said it cleaned up
// and did not have to kill anything: its daemon, agents and shell stopped on SIGHUP.
func (r *makeDemoRun) checkStoppedCleanly(t *testing.T) {
	t.Helper()
	_ = r.wait(t) // make's own exit says only how it was stopped
	s := r.screen(t)
	if !strings.Contains(s, "cleaned up after itself") {
		t.Errorf("the demo did not say that it cleaned up:\n%s", s)
	}
	if strings.Contains(s, "had to be killed") {
		t.Errorf("part of the demo did not stop on SIGHUP:\n%s", s)
	}
}

// checkNothingLeft checks that within demoGone of ended no process of the run is left and
// TMPDIR is empty: the demo's tmux server, daemon, agents and folder are gone.
func (r *makeDemoRun) checkNothingLeft(t *testing.T, ended time.Time) {
	t.Helper()
	var procs []proc
	var left []string
	for {
		procs = r.processes()
		entries, err := os.ReadDir(r.tmp)
		left = left[:0]
		for _, e := range entries {
			left = append(left, e.Name())
		}
		if len(procs) == 0 && len(left) == 0 && err == nil {
			t.Logf("nothing of the demo left %v after it ended", time.Since(ended).Round(time.Millisecond))
			return
		}
		if time.Since(ended) > demoGone {
			t.Fatalf("%v after the demo ended, left: processes %v, in TMPDIR %v\nthe terminal:\n%s",
				demoGone, procs, left, r.screen(t))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
