package main

// The real-agent suite's harness: the real Claude Code, Codex and OpenCode CLIs from npm, each in a
// pane of a private tmux server with a real attached client, run offline against a fake
// model API of our own (testscripts/fakeapi), with the hooks `trailboss setup` writes into
// a temp HOME, reporting to a real daemon. `make test-agents` runs the suite alone.
//
// Where npm or the registry cannot be reached the suite says so and skips, unless
// TRAILBOSS_REQUIRE_AGENTS=1 (CI sets it), when it fails instead: a suite that silently did
// not run must never pass as green.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// agentPackage is one agent CLI as the suite installs it. The versions are pinned in one
// place each, and verified by the suite: Codex's here (codexVersions), Claude Code's in
// adapter/claude (claudeSetups); an environment variable overrides each.
type agentPackage struct {
	npm        string // package name
	version    string // the verified version
	versionEnv string // overrides version
	bin        string // the command under node_modules/.bin
}

// codexVersions are the Codex CLIs every real Codex test runs against, newest first: npm's
// latest, and the oldest still verified (0.170 was never published).
// TRAILBOSS_CODEX_VERSION=V runs them against V alone: a new release is tried this way
// before it joins the list.
var codexVersions = []string{"0.171.0", "0.169.0"}

// codexCLIAt is the Codex CLI at version.
func codexCLIAt(version string) agentPackage {
	return agentPackage{npm: "@openai/codex", version: version, bin: "codex"}
}

// eachCodex runs test once for each Codex version (codexVersions, or
// $TRAILBOSS_CODEX_VERSION alone), as subtests named by version, one after another (each
// starts its own tmux server, daemon and Codex).
func eachCodex(t *testing.T, test func(t *testing.T, cli agentPackage)) {
	versions := codexVersions
	if v := os.Getenv("TRAILBOSS_CODEX_VERSION"); v != "" {
		versions = []string{v}
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) { test(t, codexCLIAt(v)) })
	}
}

// openCodeCLI is OpenCode: npm's opencode-ai, whose postinstall links the native binary of
// its platform package to node_modules/.bin/opencode (one process, no Node wrapper).
var openCodeCLI = agentPackage{npm: "opencode-ai", version: "1.18.33",
	versionEnv: "TRAILBOSS_OPENCODE_VERSION", bin: "opencode"}

// copilotCLI is GitHub Copilot CLI: npm's @github/copilot, a Node loader that runs the
// native binary of its platform package; its first run unpacks ~235 MB more into
// $XDG_CACHE_HOME/copilot, which the suite keeps beside the install (copilotCache).
var copilotCLI = agentPackage{npm: "@github/copilot", version: "1.0.102",
	versionEnv: "TRAILBOSS_COPILOT_VERSION", bin: "copilot"}

// claudeCodeAt is the Claude Code CLI at version.
func claudeCodeAt(version string) agentPackage {
	return agentPackage{npm: "@anthropic-ai/claude-code", version: version, bin: "claude"}
}

// claudeSetup is one Claude Code that a real Claude Code test runs against: a version, and
// the permission mode it starts in.
type claudeSetup struct {
	name string // the subtest's name
	cli  agentPackage
	// defaultMode is written into settings.json as permissions.defaultMode, and with it the
	// one-time question "Make auto mode your default permission mode?" (2.1.332, asked soon
	// after a start in manual mode) is marked as seen. "" writes neither: Claude Code starts
	// in the mode a fresh install of it has (2.1.197: manual; 2.1.332: auto).
	defaultMode string
	// startsIn is what the footer says once Claude Code has started in the mode wanted (a
	// regexp); "" when its version shows no mode there (2.1.197's manual mode).
	startsIn string
	// auto: Claude Code runs in auto mode, where (against our fake, a custom API URL) it
	// offers once "Auto mode can't check actions in this session", lets writes in the work
	// folder through, and asks each other action with a No-first menu that fires no
	// PermissionRequest: there is no hook to hold, and an answer from a channel is typed.
	// Questions and plans still fire PermissionRequest.
	auto bool
}

// claudeSetups returns what every real Claude Code test runs against, in this order: the
// newest verified version in default (manual) mode, the same in auto mode (where a fresh
// install of it starts), then the oldest supported, as a fresh install of it starts
// (manual: it has no auto mode).
//
// TRAILBOSS_CLAUDE_CODE_VERSION=V runs them against V alone, in manual mode: a new release
// is tried this way before it becomes claude.NewestVerified.
func claudeSetups() []claudeSetup {
	if v := os.Getenv("TRAILBOSS_CLAUDE_CODE_VERSION"); v != "" {
		return []claudeSetup{{name: v, cli: claudeCodeAt(v), defaultMode: "default"}}
	}
	return []claudeSetup{
		{name: claude.NewestVerified, cli: claudeCodeAt(claude.NewestVerified), defaultMode: "default",
			startsIn: `⏸ manual mode on`},
		claudeAutoMode(),
		{name: claude.OldestSupported, cli: claudeCodeAt(claude.OldestSupported)},
	}
}

// claudeAutoMode is the newest verified Claude Code as a fresh install starts it: in auto
// mode ("⏵⏵ auto mode on"). Against our fake API (a custom API URL) it cannot run its
// server-side check, so it offers once "Auto mode can't check actions in this session" and
// then asks each action that needs the check with a No-first menu and no PermissionRequest
// hook (CLAUDE-CODE.md, "Claude Code 2.1.332").
func claudeAutoMode() claudeSetup {
	return claudeSetup{name: claude.NewestVerified + "-auto", cli: claudeCodeAt(claude.NewestVerified),
		startsIn: `⏵⏵ auto mode on`, auto: true}
}

// eachClaude runs test once for each of claudeSetups, as subtests named by version and mode, one
// after another (each starts its own tmux server, daemon and Claude Code).
func eachClaude(t *testing.T, test func(t *testing.T, cc claudeSetup)) {
	for _, cc := range claudeSetups() {
		t.Run(cc.name, func(t *testing.T) { test(t, cc) })
	}
}

func (p agentPackage) wanted() string {
	if v := os.Getenv(p.versionEnv); v != "" {
		return v
	}
	return p.version
}

var (
	installMu  sync.Mutex
	installed  = map[string]string{} // npm@version → node_modules/.bin folder, or "" after a failure
	installErr = map[string]error{}
)

// skippedNote, in the agents cache, lists the real-agent tests that were skipped.
const skippedNote = "SKIPPED"

// agentsCache is where installed CLIs are kept between runs: $TRAILBOSS_AGENTS_CACHE, else
// bin/agents in the repository (make clean removes it).
func agentsCache(t testing.TB) string {
	if d := os.Getenv("TRAILBOSS_AGENTS_CACHE"); d != "" {
		return d
	}
	root, err := filepath.Abs(filepath.Join("..", "..", "bin", "agents"))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// requireAgent returns the path of p's command, installing p with npm into the cache the
// first time. It skips the test (or fails it under TRAILBOSS_REQUIRE_AGENTS=1) when the
// CLI cannot be had.
func requireAgent(t *testing.T, p agentPackage) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real-agent suite: not with -short")
	}
	key := p.npm + "@" + p.wanted()
	installMu.Lock()
	defer installMu.Unlock()
	binDir, done := installed[key]
	if !done {
		binDir, installErr[key] = installAgent(t, p)
		installed[key] = binDir
	}
	if err := installErr[key]; err != nil {
		msg := fmt.Sprintf("REAL-AGENT SUITE NOT RUN: %s cannot be installed: %v", key, err)
		if os.Getenv("TRAILBOSS_REQUIRE_AGENTS") == "1" {
			t.Fatal(msg)
		}
		// go test shows a passing package's output only with -v: leave a note that make
		// test prints after the run, so the skip is never silent.
		if f, err := os.OpenFile(filepath.Join(agentsCache(t), skippedNote), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s: %s\n", t.Name(), msg)
			f.Close()
		}
		fmt.Fprintln(os.Stderr, msg)
		t.Skip(msg)
	}
	return filepath.Join(binDir, p.bin)
}

func installAgent(t *testing.T, p agentPackage) (string, error) {
	if err := os.MkdirAll(agentsCache(t), 0o755); err != nil {
		return "", err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is not installed")
	}
	prefix := filepath.Join(agentsCache(t), strings.ReplaceAll(p.npm, "/", "+")+"@"+p.wanted())
	binDir := filepath.Join(prefix, "node_modules", ".bin")
	marker := filepath.Join(prefix, ".installed")
	if _, err := os.Stat(marker); err == nil {
		return binDir, nil
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Claude Code's install script links the native binary from its platform package, with
	// no download: the scripts must run.
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", prefix, "--no-audit", "--no-fund",
		"--loglevel=error", p.npm+"@"+p.wanted())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s@%s: %v: %s", p.npm, p.wanted(), err, strings.TrimSpace(out.String()))
	}
	if _, err := os.Stat(filepath.Join(binDir, p.bin)); err != nil {
		return "", fmt.Errorf("npm installed %s@%s but %s is missing: %v", p.npm, p.wanted(), p.bin, err)
	}
	t.Logf("installed %s@%s in %v", p.npm, p.wanted(), time.Since(start).Round(time.Millisecond))
	return binDir, os.WriteFile(marker, []byte(p.wanted()+"\n"), 0o644)
}

// agentWorld is one isolated world for real agents: a private tmux server with an attached
// client, a temp HOME, a real daemon, and PATH with trailboss first.
type agentWorld struct {
	t      *testing.T
	tm     *tmuxtest.Env
	daemon *liveDaemon
	client string   // the attached tmux client
	env    []string // the environment panes and commands run with
	home   string
	work   string // a git repository the agents work in
}

// newAgentWorld starts tmux, attaches a client and starts the daemon. daemonArgs are
// extra flags for `trailboss daemon`.
func newAgentWorld(t *testing.T, daemonArgs ...string) *agentWorld {
	t.Helper()
	tm := tmuxtest.New(t)
	w := &agentWorld{t: t, tm: tm, home: envValue(tm.Environ, "HOME")}
	self, err := exec.LookPath("trailboss")
	if err != nil {
		t.Fatalf("trailboss is not on PATH (testscript.Main puts it there): %v", err)
	}
	w.work = filepath.Join(w.home, "work")
	if err := os.MkdirAll(w.work, 0o755); err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(tm.Dir, "state")
	w.env = withEnv(tm.Environ,
		"PATH="+filepath.Dir(self)+":/usr/local/bin:/usr/bin:/bin",
		"TRAILBOSS_STATE_DIR="+stateDir, "TRAILBOSS_ADDR=",
		"GIT_CONFIG_NOSYSTEM=1", "NO_COLOR=", "TRAILBOSS_EMIT_TRACE="+filepath.Join(tm.Dir, "emit.trace"))
	w.run("git", "init", "-q", w.work)
	deliveryOn(t, envValue(w.env, "XDG_CONFIG_HOME")) // the operator's choice; the answer tests need it
	// -v: a failure prints the daemon's log, and every event it applied is in it.
	w.daemon = launchDaemon(t, self, stateDir, withEnv(w.env, "TMUX="+tmuxEnvValue(t, tm)), append([]string{"-v"}, daemonArgs...)...)
	w.client = tm.Attach(t, "main")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon log:\n%s", w.daemon.log.String())
			// What the hooks could not deliver, and why: an event the daemon never saw.
			if b, err := os.ReadFile(filepath.Join(stateDir, "emit.log")); err == nil {
				t.Logf("emit.log (the hooks' failures):\n%s", b)
			}
			if b, err := os.ReadFile(filepath.Join(tm.Dir, "emit.trace")); err == nil {
				t.Logf("emit.trace (every hook that ran):\n%s", b)
			}
			if left, _ := os.ReadDir(filepath.Join(stateDir, "spool")); len(left) > 0 {
				t.Logf("%d event(s) still in the spool", len(left))
			}
		}
	})
	return w
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// run runs a command in the world's environment and fails the test when it fails.
func (w *agentWorld) run(name string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = w.env
	cmd.Dir = w.work
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// pane opens a window in session main running a clean bash in the work folder, with extra
// environment, and returns its pane id.
func (w *agentWorld) pane(extraEnv ...string) string {
	w.t.Helper()
	args := []string{"new-window", "-d", "-t", "=main:", "-c", w.work, "-P", "-F", "#{pane_id}"}
	for _, kv := range append(w.paneEnv(), extraEnv...) {
		args = append(args, "-e", kv)
	}
	args = append(args, "bash", "--noprofile", "--norc")
	id := strings.TrimSpace(w.tm.Tmux(w.t, args...))
	if !strings.HasPrefix(id, "%") {
		w.t.Fatalf("new-window printed %q, not a pane id", id)
	}
	return id
}

// paneEnv is what a pane's shell needs beyond the tmux server's environment.
func (w *agentWorld) paneEnv() []string {
	var out []string
	for _, k := range []string{"PATH", "TRAILBOSS_STATE_DIR", "TRAILBOSS_ADDR", "HOME", "TRAILBOSS_EMIT_TRACE"} {
		out = append(out, k+"="+envValue(w.env, k))
	}
	return append(out, "PS1=$ ")
}

// typeLine types text into pane as a person would: the text, then, once the program has
// drawn it, a moment's pause and Enter. On a busy machine a TUI reads text and an Enter sent
// 150 ms later in one go, and Codex takes keys that arrive together for a paste, so such an
// Enter becomes a newline in its input box.
func (w *agentWorld) typeLine(pane, text string) {
	w.t.Helper()
	tail := text
	if r := []rune(text); len(r) > 8 {
		tail = string(r[len(r)-8:])
	}
	shown := func() int { return strings.Count(w.tm.Tmux(w.t, "capture-pane", "-p", "-J", "-t", pane), tail) }
	before := shown()
	w.tm.Tmux(w.t, "send-keys", "-t", pane, "-l", text)
	// A TUI still starting up keeps what is typed and draws it only later (Codex, seconds
	// later on a busy machine): typing it again would double it.
	deadline := time.Now().Add(45 * time.Second)
	for shown() <= before {
		if time.Now().After(deadline) {
			w.t.Fatalf("pane %s did not show the typed %q within 45 s; it shows:\n%s", pane, text, w.screen(pane))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond) // what a person takes between seeing the text and Enter
	w.tm.Tmux(w.t, "send-keys", "-t", pane, "Enter")
}

// keys presses tmux key names in pane (Enter, Escape, Down, 1 …).
func (w *agentWorld) keys(pane string, keys ...string) {
	w.t.Helper()
	w.tm.Tmux(w.t, append([]string{"send-keys", "-t", pane}, keys...)...)
}

// personReacts is how long a person takes between seeing a dialog and pressing a key.
const personReacts = 300 * time.Millisecond

// pressWhenShown presses keys in pane once it shows pattern, as a person does: a moment
// after the dialog is drawn. Claude Code 2.1.332 drops keys that arrive as a prompt appears
// (its changelog: 2.1.318; observed: an Enter within 90 ms of the dialog being drawn was
// lost, one 100 ms after it was taken); 2.1.197 takes them at once.
func (w *agentWorld) pressWhenShown(pane, pattern string, timeout time.Duration, keys ...string) {
	w.t.Helper()
	w.waitScreen(pane, pattern, timeout)
	time.Sleep(personReacts)
	w.keys(pane, keys...)
}

// screen returns what pane shows now.
func (w *agentWorld) screen(pane string) string {
	w.t.Helper()
	return w.tm.Tmux(w.t, "capture-pane", "-p", "-t", pane)
}

// waitScreen waits until pane shows a match of pattern.
func (w *agentWorld) waitScreen(pane, pattern string, timeout time.Duration) {
	w.t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(timeout)
	for {
		s := w.screen(pane)
		if re.MatchString(s) {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("timed out after %v waiting for pane %s to show %q; it shows:\n%s", timeout, pane, pattern, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// queue returns the daemon's queue now.
func (w *agentWorld) queue() []client.Item {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	items, err := w.daemon.api(w.t).Queue(ctx)
	if err != nil {
		w.t.Fatalf("GET /v1/queue: %v", err)
	}
	return items
}

// item returns pane's item in the queue, or false.
func (w *agentWorld) item(pane string) (client.Item, bool) {
	w.t.Helper()
	for _, it := range w.queue() {
		if it.Pane == pane {
			return it, true
		}
	}
	return client.Item{}, false
}

// detected waits until pane's item satisfies cond and returns it with how long after its
// source saw it the queue showed it (the item's since is the hook's or the plugin's time
// of the event).
func (w *agentWorld) detected(pane, what string, timeout time.Duration, cond func(client.Item) bool) (client.Item, time.Duration) {
	w.t.Helper()
	it, _ := w.waitItem(pane, what, timeout, cond)
	return it, time.Since(it.Since)
}

// within logs a figure and fails the test when it is over detectWithin.
func (w *agentWorld) within(what string, d time.Duration) {
	w.t.Helper()
	w.t.Logf("%s: %v", what, d.Round(time.Millisecond))
	if d > detectWithin {
		w.t.Errorf("%s took %v, want within %v", what, d, detectWithin)
	}
}

// killProcesses kills the processes of an agent (what) that pids lists until none is left
// (an agent may start another: a Codex TUI that loses its app-server, a Gemini CLI that
// relaunches itself), and fails the test when some are still running after 10 s.
func killProcesses(t *testing.T, what string, pids func() []int) {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		left := pids()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s processes still running after 10 s: %v", what, left)
			return
		}
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// waitItem waits until pane's item satisfies cond (nil: until pane is queued), and returns
// it; how long it took is the second result.
func (w *agentWorld) waitItem(pane, what string, timeout time.Duration, cond func(client.Item) bool) (client.Item, time.Duration) {
	w.t.Helper()
	start := time.Now()
	for {
		it, ok := w.item(pane)
		if ok && (cond == nil || cond(it)) {
			return it, time.Since(start)
		}
		if time.Since(start) > timeout {
			w.t.Fatalf("timed out after %v waiting for %s; pane %s item: %+v (queued: %v)\nscreen:\n%s",
				timeout, what, pane, it, ok, w.screen(pane))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone waits until pane has no item in the queue, and returns how long it took.
func (w *agentWorld) waitGone(pane, what string, timeout time.Duration) time.Duration {
	w.t.Helper()
	return w.waitGoneOr(pane, what, timeout, func(client.Item) bool { return false })
}

// waitMovedOn waits until pane's item is no longer from: out of the queue, or queued for a
// later wait. A turn that follows an answer at once can end, and be queued again, between
// two polls of a loaded machine: what is gone then is from's moment.
func (w *agentWorld) waitMovedOn(pane, what string, from client.Item, timeout time.Duration) {
	w.t.Helper()
	w.waitGoneOr(pane, what, timeout, func(it client.Item) bool { return it.Since.After(from.Since) })
}

// waitGoneOr waits until pane has no item in the queue or its item satisfies cond, and
// returns how long it took.
func (w *agentWorld) waitGoneOr(pane, what string, timeout time.Duration, cond func(client.Item) bool) time.Duration {
	w.t.Helper()
	start := time.Now()
	for {
		it, ok := w.item(pane)
		if !ok || cond(it) {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			w.t.Fatalf("timed out after %v waiting for %s; pane %s still queued: %+v\nscreen:\n%s",
				timeout, what, pane, it, w.screen(pane))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// staysGone fails when pane is queued at any moment within d.
func (w *agentWorld) staysGone(pane, what string, d time.Duration) {
	w.t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if it, ok := w.item(pane); ok {
			w.t.Fatalf("%s: pane %s was queued: %+v", what, pane, it)
		}
	}
}

// staysGoneUntilScreen fails the test when pane is queued before its screen shows end (an
// agent's work that must not be taken for a wait, such as a reply still streaming), and
// returns once it shows it. The end may be drawn a moment after the queue has it (the
// agent ends its turn and redraws in parallel): a queued pane gets a short grace to draw it.
func (w *agentWorld) staysGoneUntilScreen(pane, what, end string, timeout time.Duration) {
	w.t.Helper()
	const drawGrace = 3 * time.Second
	for deadline := time.Now().Add(timeout); ; time.Sleep(50 * time.Millisecond) {
		it, queued := w.item(pane) // before the screen: a queued pane with the end not yet drawn
		s := w.screen(pane)
		if strings.Contains(s, end) {
			return
		}
		if queued {
			for late := time.Now().Add(drawGrace); time.Now().Before(late); time.Sleep(50 * time.Millisecond) {
				if strings.Contains(w.screen(pane), end) {
					return
				}
			}
			w.t.Fatalf("%s: pane %s was queued before it showed %q: %+v; it showed:\n%s", what, pane, end, it, s)
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s: timed out after %v waiting for pane %s to show %q; it shows:\n%s", what, timeout, pane, end, s)
		}
	}
}

// sessions returns the daemon's live sessions now.
// waitSessionEnded waits until no session is bound to pane any more (it ended, or was
// retired), as after the agent exits.
func (w *agentWorld) waitSessionEnded(pane string, timeout time.Duration) {
	w.t.Helper()
	w.tm.WaitFor(w.t, "the session to end", timeout, func() bool {
		for _, s := range w.sessions() {
			if s.Pane == pane {
				return false
			}
		}
		return true
	})
}

func (w *agentWorld) sessions() []wire.Session {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ss, err := w.daemon.api(w.t).Sessions(ctx)
	if err != nil {
		w.t.Fatalf("GET /v1/sessions: %v", err)
	}
	return ss
}
