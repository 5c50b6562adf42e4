package main

// The real GitHub Copilot CLI from npm, in a tmux pane, offline against the fake Chat
// Completions API, with the hook file `trailboss setup --copilot` writes: its turns,
// permissions and questions are queued from its hooks, an Esc (which no hook reports) from
// its events.jsonl, and a permission is answered through the API by the held
// permissionRequest hook, with no key typed.

import (
	"os"
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

// copilotStart is how long Copilot may take to draw its input box: its first run unpacks
// its package into the cache (tens of seconds on a loaded machine).
const copilotStart = 180 * time.Second

// copilotWorld is an agent world whose HOME runs Copilot offline against the fake API,
// with Trail Boss's hooks.
type copilotWorld struct {
	*agentWorld
	bin  string
	fake *openai.Server
	home string // $HOME/.copilot
}

func newCopilotWorld(t *testing.T) *copilotWorld {
	t.Helper()
	bin := requireAgent(t, copilotCLI)
	w := &copilotWorld{agentWorld: newAgentWorld(t, "--sweep", "1s"), bin: bin}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("queue: %+v\nsessions: %+v", w.queue(), w.sessions())
		}
		killProcesses(t, "Copilot", func() []int { return copilotProcesses(w.agentWorld.home) })
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
	w.home = filepath.Join(w.agentWorld.home, ".copilot")
	// The one first-run screen is "Confirm folder trust": the work folder is trusted.
	files := map[string]string{
		"config.json":   `{"trustedFolders": [` + jsonString(w.work) + `]}`,
		"settings.json": `{"banner": "never"}`,
	}
	if err := os.MkdirAll(w.home, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(w.home, name), []byte(b+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := w.run("trailboss", "setup", "--copilot", "--no-claude", "--no-tmux")
	if !strings.Contains(out, "Trail Boss's hooks written to") {
		t.Fatalf("setup --copilot said:\n%s", out)
	}
	return w
}

func jsonString(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// copilotCache is where Copilot unpacks its package on first run ($XDG_CACHE_HOME/copilot),
// kept beside the installs so that only the first run of a machine pays for it.
func copilotCache(t testing.TB) string { return filepath.Join(agentsCache(t), "copilot-cache") }

// startCopilot opens a pane, starts Copilot there offline and waits for its input box.
func (w *copilotWorld) startCopilot() string {
	w.t.Helper()
	pane := w.pane("COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+w.fake.URL, "COPILOT_MODEL=gpt-4.1",
		"COPILOT_AUTO_UPDATE=false", "XDG_CACHE_HOME="+copilotCache(w.t))
	w.typeLine(pane, hooks.ShellWord(w.bin))
	w.waitScreen(pane, `Manual Approval`, copilotStart)
	return pane
}

// copilotProcesses returns the Copilot processes (its loader and its binary) started with
// HOME home.
func copilotProcesses(home string) []int {
	var pids []int
	for _, p := range liveProcs() {
		if p.env("HOME") == home && len(p.argv) > 0 &&
			(strings.Contains(p.argv[0], "copilot") || len(p.argv) > 1 && strings.Contains(p.argv[1], "copilot")) {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// TestRealCopilot walks the real Copilot CLI through a working day with Trail Boss's
// hooks: each wait is queued within a second with what it waits for and leaves the queue
// when answered; an Esc is queued as stopped from events.jsonl; a permission is allowed
// and denied through the API by the held hook; a turn that ends while the daemon is down
// is queued once it is back; /exit retires the session.
func TestRealCopilot(t *testing.T) {
	w := newCopilotWorld(t)
	file, err := os.ReadFile(filepath.Join(w.home, "hooks", install.CopilotHooksName))
	if err != nil || !install.IsCopilotHooks(file) || strings.Contains(string(file), "preToolUse") {
		t.Fatalf("setup --copilot wrote no hook file, or one with preToolUse: %v\n%s", err, file)
	}
	pane := w.startCopilot()
	// The session appears on its pane at launch, though sessionStart fires only at the
	// first prompt: Copilot lists it in open-sessions-state.json and locks its folder.
	launched := w.waitSession(pane, "the session at launch", 30*time.Second)
	if _, ok := w.item(pane); ok {
		t.Errorf("Copilot at its input box was queued before any turn")
	}

	// The first prompt is the same session on its pane (sessionStart fires then); its
	// turn's end is queued stopped, with its words.
	w.typeLine(pane, "say hi")
	session := w.waitSession(pane, "the session of the first prompt", 60*time.Second)
	if session != launched {
		t.Errorf("the first prompt's session %q is not the one registered at launch, %q", session, launched)
	}
	it, lat := w.detected(pane, "the turn's end", 60*time.Second, isStopped)
	if it.Summary != "hi there" || it.Harness != "copilot" {
		t.Errorf("turn end: %+v", it)
	}
	w.within("turn end (agentStop) → queued", lat)

	// A command's permission dialog is queued with its command, and leaves the queue at
	// once when approved at the keyboard (1: Yes), read from events.jsonl.
	probe1 := filepath.Join(w.work, "probe1")
	w.typeLine(pane, "run touch "+probe1)
	it, lat = w.detected(pane, "the permission dialog", 60*time.Second, isPermission)
	if !strings.Contains(it.Summary, "touch "+probe1) {
		t.Errorf("permission: %+v", it)
	}
	w.within("permission (notification) → queued", lat)
	if it.Prompt == nil || it.Prompt.Kind != wire.KindPermission {
		t.Errorf("the permission has no prompt record: %+v", it)
	}
	w.pressWhenShown(pane, `Do you want to run this command\?`, 30*time.Second, "1")
	pressed := time.Now()
	w.waitMovedOn(pane, "the approved permission to leave the queue", it, 10*time.Second)
	w.within("approval → out of the queue", time.Since(pressed))
	w.waitFile(probe1, "the approved command to run")
	w.waitItem(pane, "the turn after the approval", 60*time.Second, isStopped)

	// Esc at the dialog: no hook fires, events.jsonl says abort; queued as stopped at once,
	// and the command does not run.
	probe2 := filepath.Join(w.work, "probe2")
	w.typeLine(pane, "run touch "+probe2)
	it, _ = w.waitItem(pane, "the second permission dialog", 60*time.Second, isPermission)
	w.pressWhenShown(pane, `Do you want to run this command\?`, 30*time.Second, "Escape")
	pressed = time.Now()
	w.waitItem(pane, "the Esc-ed dialog queued as stopped", 10*time.Second, isStopped)
	w.within("Esc → queued as stopped", time.Since(pressed))
	if _, err := os.Stat(probe2); err == nil {
		t.Errorf("the command refused with Esc ran")
	}
	w.waitScreen(pane, `Operation cancelled by user`, 30*time.Second) // Copilot takes the next prompt after this

	// Allowed through the API while no hook holds: typed as keys, the option read by its
	// label off the dialog on screen (1. Yes); the command runs.
	probe5 := filepath.Join(w.work, "probe5")
	w.typeLine(pane, "run touch "+probe5)
	_, p := w.waitPrompt(pane, "the permission's prompt", wire.KindPermission, 60*time.Second)
	w.waitScreen(pane, `Do you want to run this command\?`, 30*time.Second)
	if d, err := w.answer(p.ID, wire.Answer{Choice: "allow"}); err != nil || d.Via != wire.ViaKeys {
		t.Fatalf("allow through the API, by keys: %+v, %v", d, err)
	}
	w.waitFile(probe5, "the command allowed by keys to run")
	w.waitItem(pane, "the turn after the allow by keys", 60*time.Second, isStopped)

	// A question is queued with its options; answered through the API, the highlight is
	// moved onto the option chosen by its label, and Copilot takes it.
	w.typeLine(pane, "ask me")
	it, p = w.waitPrompt(pane, "the question's prompt", wire.KindChoice, 60*time.Second)
	w.within("question (elicitation_dialog) → queued", time.Since(it.Since))
	if len(p.Choices) != 2 || p.Choices[0].Label != "Red" || p.Choices[1].Label != "Blue" || it.Detail != "question" {
		t.Errorf("question: %+v, prompt %+v", it, p)
	}
	w.waitScreen(pane, `Copilot needs information`, 30*time.Second)
	if d, err := w.answer(p.ID, wire.Answer{Choice: "2"}); err != nil || d.Via != wire.ViaKeys {
		t.Fatalf("the question's answer through the API: %+v, %v", d, err)
	}
	w.waitScreen(pane, `done: .*Blue`, 30*time.Second)
	w.waitItem(pane, "the turn after the question", 60*time.Second, func(it2 client.Item) bool {
		return isStopped(it2) && it2.Since.After(it.Since)
	})

	// The daemon down while a turn ends: the hook's event waits in the spool and is queued
	// once the daemon is back.
	w.stopDaemon()
	typed := time.Now()
	w.typeLine(pane, "say hi again")
	w.tm.WaitFor(t, "the turn to end while the daemon is down", 60*time.Second, func() bool {
		left, _ := os.ReadDir(filepath.Join(w.daemon.stateDir, "spool"))
		return len(left) > 1 // the prompt's and the turn end's
	})
	// Delivery holds permissions from now on: the daemon reads it as it starts.
	conf := filepath.Join(envValue(w.env, "XDG_CONFIG_HOME"), "trailboss", "config.toml")
	if err := os.WriteFile(conf, []byte("[delivery]\nenabled = true\nhold_permissions = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.restartDaemon()
	w.waitItem(pane, "the turn that ended while the daemon was down", 10*time.Second, func(it client.Item) bool {
		return isStopped(it) && it.Since.After(typed)
	})

	// Allowed through the API: the held permissionRequest hook prints Copilot's decision,
	// the command runs, and no dialog is drawn.
	probe3 := filepath.Join(w.work, "probe3")
	w.typeLine(pane, "run touch "+probe3)
	it, p = w.waitPrompt(pane, "the held permission's prompt", wire.KindPermission, 60*time.Second)
	if !strings.Contains(it.Summary, "touch "+probe3) {
		t.Errorf("held permission: %+v", it)
	}
	w.waitHeld("the hook to hold the permission", p.ID, 30*time.Second)
	if strings.Contains(w.screen(pane), "Do you want to run this command?") {
		t.Errorf("Copilot shows its dialog while the hook holds:\n%s", w.screen(pane))
	}
	d, err := w.answer(p.ID, wire.Answer{Choice: "allow"})
	if err != nil || d.Via != wire.ViaHook {
		t.Fatalf("allow through the API: %+v, %v", d, err)
	}
	w.waitFile(probe3, "the command allowed through the API to run")
	w.waitItem(pane, "the turn after the API's allow", 60*time.Second, isStopped)

	// Denied through the API: Copilot refuses the call, the command does not run, and the
	// turn ends.
	probe4 := filepath.Join(w.work, "probe4")
	w.typeLine(pane, "run touch "+probe4)
	_, p = w.waitPrompt(pane, "the second held permission's prompt", wire.KindPermission, 60*time.Second)
	w.waitHeld("the hook to hold the permission", p.ID, 30*time.Second)
	if d, err := w.answer(p.ID, wire.Answer{Choice: "deny"}); err != nil || d.Via != wire.ViaHook {
		t.Fatalf("deny through the API: %+v, %v", d, err)
	}
	w.waitItem(pane, "the turn the deny ended", 60*time.Second, isStopped)
	if _, err := os.Stat(probe4); err == nil {
		t.Errorf("the denied command ran")
	}

	// /exit retires the session.
	w.typeLine(pane, "/exit")
	w.waitGone(pane, "/exit", 30*time.Second)
	w.waitSessionEnded(pane, 30*time.Second)
}
