package main

// The real Gemini CLI from npm, in a tmux pane, against the fake Gemini API, with the hooks
// `trailboss setup --gemini` writes: its turns, permissions and questions are queued from
// its hooks, and a permission is answered through the API by keys (no hook can approve in
// Gemini), the option chosen by its label on the screen after the checks.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/testscripts/fakeapi/gemini"
)

// geminiCLI is Gemini CLI: npm's @google/gemini-cli, plain JavaScript that re-launches
// itself as a child node process.
var geminiCLI = agentPackage{npm: "@google/gemini-cli", version: "0.61.0",
	versionEnv: "TRAILBOSS_GEMINI_VERSION", bin: "gemini"}

// geminiStart is how long Gemini CLI may take to show its input box.
const geminiStart = 90 * time.Second

// geminiProcesses returns the Gemini CLI processes (node running its bundle) of HOME home.
func geminiProcesses(home string) []int {
	var pids []int
	for _, p := range liveProcs() {
		if len(p.argv) > 1 && strings.Contains(strings.Join(p.argv, " "), "gemini-cli") && p.env("HOME") == home {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// TestRealGemini walks the real Gemini CLI through a working day: each wait is queued
// within a second with what it waits for; a permission approved through the API is typed
// as keys and runs, a denied one does not and is queued as denied; an Esc (no hook) is
// queued as stopped from the chat file within a second; a question keeps its options; a
// turn that ends while the daemon is down is queued from the spool once it is back, and
// one whose hooks were lost from the chat file; /exit retires the session.
func TestRealGemini(t *testing.T) {
	bin := requireAgent(t, geminiCLI)
	w := newAgentWorld(t, "--sweep", "1s")
	fake, err := gemini.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("queue: %+v\nsessions: %+v\nfake API:\n%s", w.queue(), w.sessions(), strings.Join(fake.Log(), "\n"))
		}
		// Gemini re-launches itself: end the whole tree, not the pane alone.
		killProcesses(t, "Gemini CLI", func() []int { return geminiProcesses(w.home) })
	})
	settings := filepath.Join(w.home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	// Offline: the API key's auth chosen (no first-run screen), no usage statistics.
	if err := os.WriteFile(settings, []byte(`{"security": {"auth": {"selectedType": "gemini-api-key"}}, `+
		`"privacy": {"usageStatisticsEnabled": false}, "ui": {"hideBanner": true, "hideTips": true}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := w.run("trailboss", "setup", "--gemini", "--no-claude", "--no-tmux")
	if !strings.Contains(out, "Gemini CLI hooks added to") {
		t.Fatalf("setup --gemini said:\n%s", out)
	}
	pane := w.pane(append(fake.Env(), "GEMINI_CLI_TRUST_WORKSPACE=true")...)
	w.typeLine(pane, hooks.ShellWord(bin))
	w.waitScreen(pane, `Type your message`, geminiStart)

	// The first prompt registers the session on its pane; its turn's end is queued
	// stopped, with its words.
	w.typeLine(pane, "hello there")
	w.waitSession(pane, "the session of the first prompt", 60*time.Second)
	it, _ := w.waitItem(pane, "the turn's end", 60*time.Second, isStopped)
	lat := time.Since(it.Since)
	if it.Summary != "FAKE: hello from the fake model." || it.Harness != "gemini" {
		t.Errorf("turn end: %+v", it)
	}
	t.Logf("turn end queued %v after AfterAgent", lat.Round(time.Millisecond))
	if lat > detectWithin {
		t.Errorf("turn end queued %v after Gemini said it, want within %v", lat, detectWithin)
	}

	// A shell permission is queued with its command; allowed through the API, the option
	// "Allow once" is typed, the command runs and the session leaves the queue.
	x := filepath.Join(w.work, "x")
	w.typeLine(pane, "run touch "+x)
	it, p := w.waitPrompt(pane, "the shell permission", wire.KindPermission, 60*time.Second)
	lat = time.Since(it.Since)
	if it.Summary != "Shell: touch "+x || it.Detail != "exec" {
		t.Errorf("permission: %+v", it)
	}
	t.Logf("permission queued %v after Notification", lat.Round(time.Millisecond))
	if lat > detectWithin {
		t.Errorf("permission queued %v after Gemini asked, want within %v", lat, detectWithin)
	}
	w.waitScreen(pane, `Allow execution of`, 30*time.Second)
	sent := time.Now()
	d, err := w.answer(p.ID, wire.Answer{Choice: "allow"})
	if err != nil || d.Via != wire.ViaKeys {
		t.Fatalf("allow through the API: %+v, %v", d, err)
	}
	answered := time.Since(sent)
	gone := w.waitGoneOr(pane, "the approved permission", 10*time.Second, isStopped)
	t.Logf("approval → out of the queue in %v (the answer took %v to check, type and see taken)",
		gone.Round(time.Millisecond), answered.Round(time.Millisecond))
	// Gemini's AfterTool comes only seconds after the command ran (3–4 s beside other
	// builds): the daemon takes the session out itself once it saw the keys taken.
	if gone > detectWithin {
		t.Errorf("the approved permission left the queue %v after the answer was delivered, want within %v", gone, detectWithin)
	}
	w.waitFile(x, "the command allowed through the API to run")
	w.waitItem(pane, "the turn after the approval", 60*time.Second, isStopped)

	// Denied through the API: "No" is typed, the command does not run.
	y := filepath.Join(w.work, "y")
	w.typeLine(pane, "run touch "+y)
	_, p = w.waitPrompt(pane, "the second permission", wire.KindPermission, 60*time.Second)
	w.waitScreen(pane, `Allow execution of`, 30*time.Second)
	if d, err := w.answer(p.ID, wire.Answer{Choice: "deny"}); err != nil || d.Via != wire.ViaKeys {
		t.Fatalf("deny through the API: %+v, %v", d, err)
	}
	// Gemini cancels the call and fires no hook (as for Esc): the chat file's cancelled
	// call says it, and the session is queued as stopped, denied.
	it, _ = w.waitItem(pane, "the denied permission queued as stopped", 10*time.Second, isStopped)
	if it.Detail != "denied" {
		t.Errorf("denied permission: %+v", it)
	}
	w.waitScreen(pane, `Request cancelled`, 30*time.Second)
	if _, err := os.Stat(y); err == nil {
		t.Errorf("the denied command ran")
	}

	// Esc at the dialog: no hook fires; the transcript's cancelled call says the session
	// waits at its prompt, and it is queued as stopped within a second.
	z := filepath.Join(w.work, "z")
	w.typeLine(pane, "run touch "+z)
	w.waitPrompt(pane, "the third permission", wire.KindPermission, 60*time.Second)
	w.pressWhenShown(pane, `Allow execution of`, 30*time.Second, "Escape")
	pressed := time.Now()
	it, _ = w.waitItem(pane, "the Esc-ed dialog queued as stopped", 10*time.Second, isStopped)
	lat = time.Since(pressed)
	t.Logf("Esc → queued as stopped: %v", lat.Round(time.Millisecond))
	if lat > detectWithin {
		t.Errorf("the Esc-ed dialog was queued as stopped %v after the Esc, want within %v", lat, detectWithin)
	}
	if it.Detail != "refused" {
		t.Errorf("Esc-ed permission: %+v", it)
	}
	if _, err := os.Stat(z); err == nil {
		t.Errorf("the command refused with Esc ran")
	}
	// After a cancel Gemini writes its history again (old prompts and replies, stamped
	// now): none of it takes the session out of the queue, through a whole sweep.
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if now, ok := w.item(pane); !ok || now.Since != it.Since || now.Detail != "refused" {
			t.Fatalf("the Esc-ed session moved after the history was written again: %+v (queued: %v)", now, ok)
		}
	}

	// A question keeps its options (its BeforeTool named them); answered by choice through
	// the API, the option is typed.
	w.typeLine(pane, "ask me")
	it, p = w.waitPrompt(pane, "the question", wire.KindChoice, 60*time.Second)
	if len(p.Choices) != 2 || p.Choices[0].Label != "red" || p.Choices[1].Label != "blue" ||
		it.Detail != "question" || !strings.Contains(it.Summary, "Red or blue?") {
		t.Fatalf("question: %+v, prompt %+v", it, p)
	}
	w.waitScreen(pane, `Answer Questions`, 30*time.Second)
	if d, err := w.answer(p.ID, wire.Answer{Choice: "2"}); err != nil || d.Via != wire.ViaKeys {
		t.Fatalf("the question's answer through the API: %+v, %v", d, err)
	}
	w.waitItem(pane, "the turn after the question", 60*time.Second, isStopped)

	// The daemon down while a turn ends: the hooks' events wait in the spool and the turn's
	// end is queued once the daemon is back.
	w.stopDaemon()
	typed := time.Now()
	w.typeLine(pane, "say hi again")
	w.tm.WaitFor(t, "the turn to end while the daemon is down", 60*time.Second, func() bool {
		left, _ := os.ReadDir(filepath.Join(w.daemon.stateDir, "spool"))
		return len(left) > 1 // BeforeAgent's and AfterAgent's
	})
	w.restartDaemon()
	it, _ = w.waitItem(pane, "the turn that ended while the daemon was down", 10*time.Second, func(it client.Item) bool {
		return isStopped(it) && it.Since.After(typed)
	})
	if it.Summary != "FAKE: hello from the fake model." {
		t.Errorf("the spooled turn's end: %+v", it)
	}
	w.tm.WaitFor(t, "the spool to be drained", 10*time.Second, func() bool {
		left, _ := os.ReadDir(filepath.Join(w.daemon.stateDir, "spool"))
		return len(left) == 0
	})

	// Hooks lost (the daemon down and the spool gone): the chat file's new reply says the
	// session was answered and waits again, and it is queued with the reply's words.
	w.stopDaemon()
	typed = time.Now()
	w.typeLine(pane, "say hi once more")
	spool := filepath.Join(w.daemon.stateDir, "spool")
	w.tm.WaitFor(t, "the turn to end while the daemon is down", 60*time.Second, func() bool {
		left, _ := os.ReadDir(spool)
		return len(left) > 1
	})
	if err := os.RemoveAll(spool); err != nil {
		t.Fatal(err)
	}
	w.restartDaemon()
	it, _ = w.waitItem(pane, "the turn whose hooks were lost, from the chat file", 10*time.Second, func(it client.Item) bool {
		return isStopped(it) && it.Since.After(typed)
	})
	if it.Summary != "FAKE: hello from the fake model." {
		t.Errorf("the turn reconciled from the chat file: %+v", it)
	}

	// /exit retires the session (SessionEnd fires twice: once is enough).
	w.typeLine(pane, "/quit")
	w.waitSessionEnded(pane, 30*time.Second)
}
