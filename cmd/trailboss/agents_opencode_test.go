package main

// The real OpenCode TUI from npm, in a tmux pane, against the fake Chat Completions API, with
// the plugin `trailboss setup --opencode` writes: its turns, permissions and questions are
// queued from the plugin's events, leave the queue when answered at the keyboard, and are
// answered through the API by the plugin's own client, with no key typed.

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/hooks/install"
	"github.com/trailboss/trailboss/testscripts/fakeapi/openai"
)

// openCodeStart is how long OpenCode's TUI may take to start: 8–53 s were seen on a loaded
// two-core machine (../shared/OPENCODE.md).
const openCodeStart = 120 * time.Second

// detectWithin is how soon after OpenCode says something the queue must show it (the
// issue's bar).
const detectWithin = time.Second

// openCodeWorld is an agent world whose config folder runs OpenCode offline against the fake
// API, with Trail Boss's plugin and delivery holding permissions.
type openCodeWorld struct {
	*agentWorld
	bin    string
	fake   *openai.Server
	config string // $XDG_CONFIG_HOME/opencode
}

func newOpenCodeWorld(t *testing.T) *openCodeWorld {
	t.Helper()
	bin := requireAgent(t, openCodeCLI)
	w := &openCodeWorld{agentWorld: newAgentWorld(t, "--sweep", "1s"), bin: bin}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("queue: %+v\nsessions: %+v", w.queue(), w.sessions())
		}
		killProcesses(t, "OpenCode", func() []int { return openCodeProcesses(w.home) })
	})
	fake, err := openai.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	w.fake = fake
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the fake API's chat requests:\n%s", strings.Join(fake.ChatLog(), "\n"))
		}
	})
	xdg := envValue(w.env, "XDG_CONFIG_HOME")
	w.config = filepath.Join(xdg, "opencode")
	// At every start OpenCode npm-installs @opencode-ai/plugin into its config folder and
	// loads no plugin until that ends (70 s offline), unless node_modules and a lock file
	// naming it are there.
	lock, _ := json.Marshal(map[string]any{"name": "opencode", "lockfileVersion": 3, "requires": true,
		"packages": map[string]any{"": map[string]any{"dependencies": map[string]string{"@opencode-ai/plugin": openCodeCLI.wanted()}}}})
	files := map[string][]byte{
		"opencode.json":     fake.OpenCodeConfig(),
		"package.json":      []byte(`{"dependencies": {"@opencode-ai/plugin": "` + openCodeCLI.wanted() + `"}}` + "\n"),
		"package-lock.json": lock,
	}
	if err := os.MkdirAll(filepath.Join(w.config, "node_modules"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(w.config, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Delivery holds permissions: the plugin waits for answers given through Trail Boss.
	conf := filepath.Join(xdg, "trailboss", "config.toml")
	if err := os.WriteFile(conf, []byte("[delivery]\nenabled = true\nhold_permissions = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.stopDaemon()
	w.restartDaemon() // reads the config
	out := w.run("trailboss", "setup", "--opencode", "--no-claude", "--no-tmux")
	if !strings.Contains(out, "Trail Boss's plugin written to") {
		t.Fatalf("setup --opencode said:\n%s", out)
	}
	if err := os.MkdirAll(filepath.Join(w.work, "scratch"), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// startOpenCode opens a pane, starts OpenCode there and waits for its input box.
func (w *openCodeWorld) startOpenCode() string {
	w.t.Helper()
	pane := w.pane("OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1")
	w.typeLine(pane, hooks.ShellWord(w.bin))
	w.waitScreen(pane, `Ask anything`, openCodeStart)
	return pane
}

// openCodeProcesses returns the OpenCode processes started with HOME home.
func openCodeProcesses(home string) []int {
	var pids []int
	for _, p := range liveProcs() {
		if strings.HasPrefix(filepath.Base(p.argv[0]), "opencode") && p.env("HOME") == home {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// traced counts the events of type the plugin handed to emit so far (TRAILBOSS_EMIT_TRACE).
func (w *openCodeWorld) traced(typ string) int {
	b, _ := os.ReadFile(filepath.Join(w.tm.Dir, "emit.trace"))
	return strings.Count(string(b), " end "+typ+" ")
}

// TestRealOpenCode walks the real OpenCode through a working day with the plugin: each wait
// is queued within a second with what it waits for, leaves the queue when answered at the
// keyboard or through the API (the plugin answers through OpenCode's client: no key is
// typed), a turn that ends while the daemon is down is queued once it is back, and /exit
// retires the session.
func TestRealOpenCode(t *testing.T) {
	w := newOpenCodeWorld(t)
	plugin, err := os.ReadFile(filepath.Join(w.config, "plugins", install.OpenCodePluginName))
	if err != nil || !install.IsOpenCodePlugin(plugin) {
		t.Fatalf("setup --opencode wrote no plugin: %v", err)
	}
	pane := w.startOpenCode()
	// The plugin says it was loaded, and doctor says so.
	w.tm.WaitFor(t, "the plugin to say it was loaded", 30*time.Second, func() bool {
		doctor := exec.Command("trailboss", "doctor")
		doctor.Env = w.env
		out, _ := doctor.CombinedOutput() // it exits 1 for what this world lacks (Claude Code)
		return strings.Contains(string(out), "✓ OpenCode loaded this plugin (pid ")
	})

	// The first prompt registers the session on its pane; its turn's end is queued
	// stopped, with its words.
	w.typeLine(pane, "say hi")
	session := w.waitSession(pane, "the session of the first prompt", 60*time.Second)
	if !strings.HasPrefix(session, "ses_") {
		t.Errorf("session %q is not OpenCode's", session)
	}
	it, lat := w.detected(pane, "the turn's end", 60*time.Second, isStopped)
	if it.Summary != "hi there" || it.Harness != "opencode" {
		t.Errorf("turn end: %+v", it)
	}
	t.Logf("turn end queued %v after session.idle", lat.Round(time.Millisecond))
	if lat > detectWithin {
		t.Errorf("turn end queued %v after OpenCode said it, want within %v", lat, detectWithin)
	}

	// A bash permission is queued with its command, and leaves the queue at once when
	// approved at the keyboard (Enter: Allow once).
	w.typeLine(pane, "run touch "+filepath.Join(w.work, "scratch", "x"))
	it, lat = w.detected(pane, "the bash permission", 60*time.Second, isPermission)
	if !strings.Contains(it.Summary, "touch "+filepath.Join(w.work, "scratch", "x")) || it.Detail != "bash" {
		t.Errorf("permission: %+v", it)
	}
	t.Logf("permission queued %v after permission.asked", lat.Round(time.Millisecond))
	if lat > detectWithin {
		t.Errorf("permission queued %v after OpenCode asked, want within %v", lat, detectWithin)
	}
	if it.Prompt == nil || it.Prompt.Kind != wire.KindPermission {
		t.Fatalf("the permission has no prompt record: %+v", it)
	}
	first := it.Prompt.ID
	w.pressWhenShown(pane, `Permission required`, 30*time.Second, "Enter")
	gone := w.waitGone(pane, "the approved permission to leave the queue", 10*time.Second)
	t.Logf("permission left the queue %v after Enter", gone.Round(time.Millisecond))
	if gone > detectWithin {
		t.Errorf("the permission left the queue %v after Enter, want within %v", gone, detectWithin)
	}
	// The keyboard answered first: Trail Boss's answer comes too late, and is told so.
	var refused *client.AnswerRefusedError
	if d, err := w.answer(first, wire.Answer{Choice: "deny"}); !errors.As(err, &refused) {
		t.Errorf("an API answer after the keyboard's: %+v, %v; want a 409", d, err)
	}
	released := w.waitReleased("the emit that held the permission to exit after the keyboard's answer", 10*time.Second)
	t.Logf("keyboard answer → held emit exited in %v", released.Round(time.Millisecond))
	w.waitFile(filepath.Join(w.work, "scratch", "x"), "the approved command to run")
	w.waitItem(pane, "the turn after the approval", 60*time.Second, isStopped)

	// Allowed through the API: the plugin replies through OpenCode's client and the command
	// runs; no key is typed.
	w.typeLine(pane, "run touch "+filepath.Join(w.work, "scratch", "y"))
	_, p := w.waitPrompt(pane, "the second permission's prompt", wire.KindPermission, 60*time.Second)
	w.waitHeld("the plugin to hold the permission", p.ID, 30*time.Second)
	d, err := w.answer(p.ID, wire.Answer{Choice: "allow"})
	if err != nil || d.Via != wire.ViaHook || !d.Confirmed {
		t.Fatalf("allow through the API: %+v, %v", d, err)
	}
	w.waitFile(filepath.Join(w.work, "scratch", "y"), "the command allowed through the API to run")
	w.waitItem(pane, "the turn after the API's allow", 60*time.Second, isStopped)

	// Denied through the API: OpenCode rejects the call, the command does not run, and the
	// turn ends.
	w.typeLine(pane, "run touch "+filepath.Join(w.work, "scratch", "z"))
	_, p = w.waitPrompt(pane, "the third permission's prompt", wire.KindPermission, 60*time.Second)
	w.waitHeld("the plugin to hold the permission", p.ID, 30*time.Second)
	if d, err := w.answer(p.ID, wire.Answer{Choice: "deny"}); err != nil || d.Via != wire.ViaHook {
		t.Fatalf("deny through the API: %+v, %v", d, err)
	}
	it, _ = w.waitItem(pane, "the turn the deny ended", 60*time.Second, isStopped)
	if strings.Contains(it.Summary, "done:") {
		t.Errorf("the turn the deny ended is queued with an earlier turn's words: %+v", it)
	}
	if _, err := os.Stat(filepath.Join(w.work, "scratch", "z")); err == nil {
		t.Errorf("the denied command ran")
	}

	// A question keeps its options; answered by choice through the API, OpenCode shows
	// the chosen option.
	w.typeLine(pane, "ask me")
	it, p = w.waitPrompt(pane, "the question's prompt", wire.KindChoice, 60*time.Second)
	t.Logf("question queued %v after question.asked", time.Since(it.Since).Round(time.Millisecond))
	if len(p.Choices) != 2 || p.Choices[0].Label != "Red" || p.Choices[1].Label != "Blue" || it.Detail != "question" {
		t.Fatalf("question: %+v, prompt %+v", it, p)
	}
	w.waitHeld("the plugin to hold the question", p.ID, 30*time.Second)
	if d, err := w.answer(p.ID, wire.Answer{Choice: "2"}); err != nil || d.Via != wire.ViaHook {
		t.Fatalf("the question's answer through the API: %+v, %v", d, err)
	}
	w.waitScreen(pane, `="Blue"`, 30*time.Second)
	w.waitItem(pane, "the turn after the question", 60*time.Second, isStopped)

	// The daemon down while a turn ends: the plugin's event waits in the spool and is
	// queued once the daemon is back.
	idles := w.traced("session.idle")
	w.stopDaemon()
	typed := time.Now()
	w.typeLine(pane, "say hi")
	w.tm.WaitFor(t, "the turn's end to reach emit", 60*time.Second, func() bool { return w.traced("session.idle") > idles })
	w.restartDaemon()
	w.waitItem(pane, "the turn that ended while the daemon was down", 10*time.Second, func(it client.Item) bool {
		return isStopped(it) && it.Since.After(typed)
	})

	// /exit retires the session.
	w.typeLine(pane, "/exit")
	w.waitGone(pane, "/exit", 30*time.Second)
	w.waitSessionEnded(pane, 30*time.Second)
}

// waitFile waits until path exists.
func (w *agentWorld) waitFile(path, what string) {
	w.t.Helper()
	w.tm.WaitFor(w.t, what, 30*time.Second, func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}
