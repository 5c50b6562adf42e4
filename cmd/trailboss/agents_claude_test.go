package main

// The real Claude Code, in a tmux pane, against the fake Messages API: every wait it can
// be in, and what the queue says about each.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/hooks"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/testscripts/fakeapi/anthropic"
)

// fakeAnthropicKey is any key: the fake accepts all. Claude Code asks once about a key from
// the environment unless its last 20 characters are approved in .claude.json.
const fakeAnthropicKey = "sk-ant-fake-0123456789abcdefghijklmnop"

// claudeWorld is an agent world with Claude Code's hooks installed by `trailboss setup`.
type claudeWorld struct {
	*agentWorld
	cc   claudeSetup
	bin  string
	fake *anthropic.Server
}

// newClaudeWorld is a world for the Claude Code of cc (one of claudeSetups, or
// claudeAutoMode).
func newClaudeWorld(t *testing.T, cc claudeSetup) *claudeWorld {
	t.Helper()
	return newClaudeWorldOf(t, cc, true)
}

// newClaudeWorldOf is a claudeWorld of the Claude Code of cc, its hooks set up by
// `trailboss setup` when withHooks.
func newClaudeWorldOf(t *testing.T, cc claudeSetup, withHooks bool) *claudeWorld {
	t.Helper()
	bin := requireAgent(t, cc.cli)
	w := &claudeWorld{agentWorld: newAgentWorld(t, "--sweep", "1s"), cc: cc, bin: bin}
	fake, err := anthropic.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	w.fake = fake
	if withHooks {
		w.run("trailboss", "setup", "--no-tmux")
	}
	w.seedClaudeState()
	if cc.defaultMode != "" {
		w.setDefaultMode(cc.defaultMode)
	}
	return w
}

// seedClaudeState writes the .claude.json a person has after Claude Code's first run in
// the work folder: onboarding done, the key from the environment approved, the folder
// trusted (hooks run only in trusted folders). A person who chose a permission mode has
// also seen 2.1.332's question about making auto mode the default, which would otherwise
// take the first keys typed.
func (w *claudeWorld) seedClaudeState() {
	w.t.Helper()
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"lastOnboardingVersion":  w.cc.cli.wanted(),
		"theme":                  "dark",
		"customApiKeyResponses": map[string]any{
			"approved": []string{fakeAnthropicKey[len(fakeAnthropicKey)-20:]}, "rejected": []string{}},
		"projects": map[string]any{w.work: map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	}
	if w.cc.defaultMode != "" {
		state["hasSeenAutoDefaultNudge"] = true
	}
	writeJSON(w.t, filepath.Join(w.home, ".claude.json"), state)
}

// setDefaultMode sets permissions.defaultMode in the settings.json that setup wrote.
func (w *claudeWorld) setDefaultMode(mode string) {
	w.t.Helper()
	path := filepath.Join(w.home, ".claude", "settings.json")
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	var settings map[string]any
	if err := json.Unmarshal(b, &settings); err != nil {
		w.t.Fatalf("%s: %v", path, err)
	}
	perms, _ := settings["permissions"].(map[string]any)
	if perms == nil {
		perms = map[string]any{}
	}
	perms["defaultMode"] = mode
	settings["permissions"] = perms
	writeJSON(w.t, path, settings)
}

// writeJSON writes v as JSON into path, private to the user.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// startClaude opens a pane, starts Claude Code in it, and waits until its session has
// reported (SessionStart) and its input box is drawn, in the permission mode of the
// world's setup. It returns the pane.
func (w *claudeWorld) startClaude() string {
	w.t.Helper()
	pane := w.pane("ANTHROPIC_BASE_URL="+w.fake.URL, "ANTHROPIC_API_KEY="+fakeAnthropicKey,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1")
	w.typeLine(pane, hooks.ShellWord(w.bin))
	w.waitSession(pane, "Claude Code's SessionStart", 60*time.Second)
	w.waitScreen(pane, `❯`, 30*time.Second)
	if w.cc.startsIn != "" {
		w.waitScreen(pane, w.cc.startsIn, 10*time.Second)
	}
	return pane
}

// claudeState is one reading of a session's state file: its status and when it was stamped,
// or why the file could not be read as that session's.
type claudeState struct {
	status  string
	stamp   time.Time
	problem string
}

// stateOf reads the state file of session id.
func (w *claudeWorld) stateOf(id string) claudeState {
	files, _ := filepath.Glob(filepath.Join(w.home, ".claude", "sessions", "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var st struct {
			SessionID       string `json:"sessionId"`
			Status          string `json:"status"`
			StatusUpdatedAt int64  `json:"statusUpdatedAt"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			// Claude Code rewrites the file in place: a read can meet it half written.
			if bytes.Contains(b, []byte(id)) {
				return claudeState{problem: err.Error()}
			}
			continue
		}
		if st.SessionID == id {
			return claudeState{status: st.Status, stamp: time.UnixMilli(st.StatusUpdatedAt)}
		}
	}
	return claudeState{problem: "no state file"}
}

// watchBusy watches the state file of the session on pane from now on, for a short turn
// whose busy state may be over before anyone asks; stop returns when the file first said,
// at or after since, that the session turned busy: the later of its own stamp and the last
// read before that did not say so (Claude Code stamps its state before it writes it, and on
// a loaded machine it was seen to write it 2 s after its stamp). false when it was not seen
// busy, with what the watch read instead.
func (w *claudeWorld) watchBusy(pane string) (stop func(since time.Time) (at time.Time, ok bool, read string)) {
	w.t.Helper()
	id := w.waitSession(pane, "the session", time.Second)
	type reading struct {
		claudeState
		seen time.Time
	}
	done, seen := make(chan struct{}), make(chan []reading, 1)
	go func() {
		var readings []reading
		defer func() { seen <- readings }()
		for stopping := false; ; {
			select {
			case <-done:
				stopping = true
			default:
			}
			// One read after stop too: on a loaded machine this goroutine can sleep
			// through a whole busy moment, or past the write the daemon has just read.
			st := w.stateOf(id)
			if len(readings) == 0 || readings[len(readings)-1].claudeState != st {
				readings = append(readings, reading{claudeState: st})
			}
			readings[len(readings)-1].seen = time.Now()
			if stopping {
				return
			}
			select {
			case <-done:
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func(since time.Time) (time.Time, bool, string) {
		close(done)
		var read []string
		var before time.Time // the last read that did not say busy
		for _, r := range <-seen {
			if r.status == "busy" && !r.stamp.Before(since.Truncate(time.Millisecond)) {
				if before.After(r.stamp) {
					return before, true, ""
				}
				return r.stamp, true, ""
			}
			before = r.seen
			if r.problem != "" {
				read = append(read, fmt.Sprintf("%s until %s", r.problem, r.seen.Format("15:04:05.000")))
			} else {
				read = append(read, fmt.Sprintf("%s stamped %s until %s", r.status, r.stamp.Format("15:04:05.000"), r.seen.Format("15:04:05.000")))
			}
		}
		return time.Time{}, false, fmt.Sprintf("asked from %s, read %s", since.Format("15:04:05.000"), strings.Join(read, "; "))
	}
}

// submit types prompt into the Claude Code in pane and waits until the prompt takes its
// item out of the queue: within 1 s of Claude Code's state file saying busy. Under stress -c 2
// Claude Code was seen to write its state and its transcript 5 s after it drew the prompt
// submitted: before that, the daemon has nothing to go on.
func (w *claudeWorld) submit(pane, prompt string) {
	w.t.Helper()
	busy := w.watchBusy(pane)
	typing := time.Now()
	w.typeLine(pane, prompt)
	left := w.waitGone(pane, "the prompt to take the item out", 20*time.Second)
	gone := time.Now()
	at, ok, read := busy(typing)
	if !ok {
		// A turn can be past busy (at a dialog, or over) before the watch reads it: the
		// prompt took the item out all the same.
		w.t.Logf("prompt → out of the queue in %v; the state file was not seen busy (%s)", left.Round(time.Millisecond), read)
		return
	}
	if ours := gone.Sub(at); ours > time.Second {
		w.t.Errorf("the prompt took the item out %v after Claude Code's state file said busy, want ≤ 1 s", ours)
	}
}

// waitSession waits until a session is bound to pane, and returns its id.
func (w *agentWorld) waitSession(pane, what string, timeout time.Duration) string {
	w.t.Helper()
	var id string
	deadline := time.Now().Add(timeout)
	for id == "" {
		for _, s := range w.sessions() {
			if s.Pane == pane {
				id = s.SessionID
			}
		}
		if id == "" && time.Now().After(deadline) {
			w.t.Fatalf("timed out after %v waiting for %s on pane %s; screen:\n%s", timeout, what, pane, w.screen(pane))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return id
}

// bindKeys installs Trail Boss's key bindings on the world's tmux server, as the lines of
// `trailboss tmux-conf`, with the environment run-shell jobs need.
func (w *agentWorld) bindKeys() {
	w.t.Helper()
	bin, err := exec.LookPath("trailboss")
	if err != nil {
		w.t.Fatal(err)
	}
	conf := filepath.Join(w.tm.Dir, "trailboss.tmux.conf")
	if err := os.WriteFile(conf, []byte(tmuxLines(tmuxSettings{bin: hooks.ShellWord(bin)})), 0o600); err != nil {
		w.t.Fatal(err)
	}
	w.tm.Tmux(w.t, "source-file", conf)
	for _, k := range []string{"PATH", "TRAILBOSS_STATE_DIR", "HOME", "TRAILBOSS_EMIT_TRACE"} {
		w.tm.Tmux(w.t, "set-environment", "-g", k, envValue(w.env, k))
	}
}

// asking returns where the world's Claude Code asks before writing file name: in the work
// folder, or, in auto mode, which lets writes in the work folder through, outside it.
func (w *claudeWorld) asking(name string) string {
	if w.cc.auto {
		return filepath.Join(w.home, name)
	}
	return filepath.Join(w.work, name)
}

// dialogOpens waits, in auto mode, until pane's next dialog is drawn, going through auto
// mode's offer when it comes first (the session's first action that asks) and checking
// it is queued as what it is (throughTheOffer). Other modes have no offer: it does nothing.
func (w *claudeWorld) dialogOpens(pane string) {
	w.t.Helper()
	if w.cc.auto {
		w.throughTheOffer(pane)
	}
}

// approve answers the permission dialog in pane Yes as a person does, once it is drawn:
// Enter on the first option, Yes; in auto mode, whose menu lists No first, Down then Enter.
func (w *claudeWorld) approve(pane string) {
	w.t.Helper()
	if w.cc.auto {
		w.waitScreen(pane, `Do you want to`, 10*time.Second)
		w.approveNoFirst(pane)
		return
	}
	w.pressWhenShown(pane, `Do you want to`, 10*time.Second, "Enter")
}

// toPlanMode cycles pane's Claude Code into plan mode with Shift+Tab, as a person does,
// each step seen on the footer: from manual mode through accept edits; from auto mode
// through manual mode first.
func (w *claudeWorld) toPlanMode(pane string) {
	w.t.Helper()
	steps := []string{`accept edits on`, `plan mode on`}
	if w.cc.auto {
		steps = append([]string{`manual mode on`}, steps...)
	}
	for _, footer := range steps {
		w.keys(pane, "BTab")
		w.waitScreen(pane, footer, 5*time.Second)
	}
}

func isStopped(it client.Item) bool    { return it.Reason == "stopped" }
func isPermission(it client.Item) bool { return it.Reason == "permission" }

// TestRealClaudeCode walks one real Claude Code session through every wait of a working
// day, checking after each keypress what the queue says.
func TestRealClaudeCode(t *testing.T) { eachClaude(t, realClaudeCode) }

func realClaudeCode(t *testing.T, cc claudeSetup) {
	w := newClaudeWorld(t, cc)
	w.bindKeys()
	pane := w.startClaude()

	// A finished turn is queued, with the agent's last words.
	w.typeLine(pane, "say hi")
	// The live state can queue the turn's end a moment before the Stop hook brings its
	// words (seen under stress -c 2): the item is read once it has them.
	it, took := w.waitItem(pane, "the finished turn, with its words", 15*time.Second, func(it client.Item) bool {
		return isStopped(it) && it.Summary != ""
	})
	if it.Summary != "hi from the fake model" || it.Harness != "claude" {
		t.Fatalf("finished turn: %+v", it)
	}
	t.Logf("turn end → queued %v after its stuck moment (%v after the wait for it began)",
		time.Since(it.Since).Round(time.Millisecond), took.Round(time.Millisecond))

	// prefix Tab from the attached client lands on the stuck pane.
	other := w.pane()
	w.tm.Tmux(t, "select-window", "-t", other)
	w.tm.WaitFor(t, "the client to show the other pane", 5*time.Second, func() bool { return w.tm.ActivePane(t, w.client) == other })
	w.tm.Press(t, w.client, "\x02\t")
	w.tm.WaitFor(t, "prefix Tab to land on Claude's pane", 5*time.Second, func() bool { return w.tm.ActivePane(t, w.client) == pane })

	// A new prompt takes it out while the model works (a slow stream); Esc mid-turn puts it
	// back, as interrupted.
	w.submit(pane, "slow")
	w.waitScreen(pane, `esc to interrupt`, 10*time.Second)
	time.Sleep(time.Second) // well into the slow stream
	w.keys(pane, "Escape")
	it, took = w.waitItem(pane, "Esc mid-turn", 5*time.Second, func(it client.Item) bool { return it.Detail == "interrupted" })
	t.Logf("Esc mid-turn → queued in %v: %+v", took, it)

	// A Bash permission: queued with its command; approved, it runs and the turn ends. (In
	// auto mode the first action that asks comes after auto mode's offer.)
	probe := w.asking("probe.txt")
	w.typeLine(pane, "run touch "+probe)
	w.dialogOpens(pane)
	// On a loaded machine the live state can queue the dialog ("asking") before the hook
	// that names its call arrives, and names it a moment later.
	w.waitItem(pane, "the Bash permission, named", 15*time.Second, func(it client.Item) bool {
		return isPermission(it) && it.Detail == "Bash" && strings.Contains(it.Summary, "touch "+probe)
	})
	w.approve(pane)
	w.waitItem(pane, "the turn after the approved command", 15*time.Second, func(it client.Item) bool {
		return isStopped(it) && strings.HasPrefix(it.Summary, "done:")
	})
	if _, err := os.Stat(probe); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}

	// A Write permission, approved.
	w.typeLine(pane, "write "+w.asking("hello.txt"))
	// The live state may queue the dialog before the hook that names the file arrives (a
	// loaded machine): it is queued at once, and named within a moment.
	it, _ = w.waitItem(pane, "the Write permission, named", 15*time.Second, func(it client.Item) bool {
		return isPermission(it) && it.Detail != "asking"
	})
	if it.Detail != "Write" || !strings.Contains(it.Summary, "hello.txt") {
		t.Fatalf("Write permission: %+v", it)
	}
	t.Logf("Write permission → queued, named, %v after its stuck moment", time.Since(it.Since).Round(time.Millisecond))
	w.approve(pane)
	w.waitItem(pane, "the turn after the approved write", 15*time.Second, func(it client.Item) bool {
		return isStopped(it) && strings.HasPrefix(it.Summary, "done:")
	})

	// Denied with Esc: the item stays, now saying the session waits at its prompt.
	denied := w.asking("denied.txt")
	w.typeLine(pane, "run touch "+denied)
	w.waitItem(pane, "the permission to deny", 15*time.Second, isPermission)
	w.pressWhenShown(pane, `Do you want to proceed\?`, 10*time.Second, "Escape")
	it, took = w.waitItem(pane, "the denial to relabel the item", 5*time.Second, func(it client.Item) bool {
		return isStopped(it) && it.Detail == "refused"
	})
	if !strings.Contains(it.Summary, "refused") || !strings.Contains(it.Summary, "touch "+denied) {
		t.Fatalf("denied permission: %+v", it)
	}
	t.Logf("Esc at the dialog → relabelled in %v", took)
	if _, err := os.Stat(denied); err == nil {
		t.Fatal("the denied command ran")
	}

	// An approved long command leaves the queue at the approval, not when it finishes.
	// (A bare sleep runs without asking: Claude Code allows read-only commands.)
	w.typeLine(pane, "run sleep 8 && touch "+w.asking("slept.txt"))
	w.waitItem(pane, "the long command's permission", 15*time.Second, isPermission)
	busy := w.watchBusy(pane)
	approving := time.Now()
	w.approve(pane)
	approvedAt := time.Now()
	left := w.waitGone(pane, "the approved long command to leave the queue", 5*time.Second)
	gone := time.Now()
	// Ours is the time from Claude Code taking the key (its state file says busy) to the
	// queue: on a loaded machine Claude Code itself may take a while to read the key, and
	// to write the state it stamped.
	busyAt, ok, read := busy(approving)
	if !ok {
		t.Fatalf("Claude Code's state file never said busy after the approval (%s)", read)
	}
	ours := gone.Sub(busyAt)
	t.Logf("approved long command → out of the queue in %v after the keypress, %v after Claude Code's state file said busy", left, ours)
	if ours > time.Second {
		t.Errorf("the approved command left the queue %v after Claude Code's state file said busy, want ≤ 1 s", ours)
	}
	w.staysGone(pane, "while the approved command runs", 5*time.Second)
	w.waitItem(pane, "the long command's turn end", 20*time.Second, isStopped)
	if time.Since(approvedAt) < 8*time.Second {
		t.Fatalf("the turn ended %v after approval, before the 8 s command could finish", time.Since(approvedAt))
	}

	// AskUserQuestion keeps its question through the PermissionRequest that follows.
	w.typeLine(pane, "ask me")
	it, _ = w.waitItem(pane, "the question", 15*time.Second, func(it client.Item) bool { return it.Detail == "question" })
	w.waitScreen(pane, `Which colour\?`, 10*time.Second)
	time.Sleep(500 * time.Millisecond) // the PermissionRequest comes 30–150 ms after
	it, _ = w.item(pane)
	if it.Detail != "question" || it.Summary != "Which colour? [Red / Blue]" {
		t.Fatalf("question after its PermissionRequest: %+v", it)
	}
	w.keys(pane, "2")
	w.waitGone(pane, "the answered question to leave the queue", 5*time.Second)
	w.waitItem(pane, "the turn after the answer", 15*time.Second, isStopped)

	// ExitPlanMode keeps its plan the same way. Its dialog is shown only in plan mode. The
	// model writes its plan into the plan file first (2.1.332 hands the hooks that file's
	// text, not the plan the tool was called with), and both versions then ask "Ready to
	// code?".
	w.toPlanMode(pane)
	w.typeLine(pane, "plan")
	w.waitItem(pane, "the plan", 15*time.Second, func(it client.Item) bool { return it.Detail == "plan" })
	w.waitScreen(pane, `Ready to code\?`, 10*time.Second)
	time.Sleep(500 * time.Millisecond)
	it, _ = w.item(pane)
	if it.Detail != "plan" || !strings.HasPrefix(it.Summary, "plan: 1. Read the code") {
		t.Fatalf("plan after its PermissionRequest: %+v", it)
	}
	w.keys(pane, "2") // "Yes, manually approve edits" (1 would switch to auto mode)
	w.waitMovedOn(pane, "the approved plan to leave the queue", it, 5*time.Second)
	w.waitItem(pane, "the turn after the plan", 15*time.Second, isStopped)

	// An API error ends the turn with StopFailure: queued, saying what the API said.
	w.typeLine(pane, "fail")
	it, _ = w.waitItem(pane, "StopFailure", 20*time.Second, func(it client.Item) bool { return it.Detail == "error" })
	if !strings.Contains(it.Summary, "400") || strings.HasPrefix(it.Summary, "unknown") {
		t.Fatalf("StopFailure: %+v", it)
	}

	// /clear ends the session and starts another on the same pane, which waits for nobody.
	before := w.waitSession(pane, "the session", time.Second)
	w.typeLine(pane, "/clear")
	w.waitGone(pane, "/clear to take the old session out", 10*time.Second)
	w.tm.WaitFor(t, "a new session on the pane", 10*time.Second, func() bool {
		id := w.waitSession(pane, "a session", time.Second)
		return id != before
	})

	// Daemon down during a turn, then restarted: the turn's end is queued all the same.
	w.stopDaemon()
	w.typeLine(pane, "say hi")
	w.waitScreen(pane, `hi from the fake model`, 15*time.Second)
	w.restartDaemon()
	w.waitItem(pane, "the turn that ended while the daemon was down", 10*time.Second, isStopped)

	// /exit ends the session: it leaves the queue and the session list.
	w.typeLine(pane, "/exit")
	w.waitGone(pane, "/exit", 10*time.Second)
	w.waitSessionEnded(pane, 10*time.Second)
}

// TestRealClaudeCodeDoctor: doctor reads the version of the real claude on PATH, at both
// ends of what the suite verifies, and says it is verified.
func TestRealClaudeCodeDoctor(t *testing.T) { eachClaude(t, realClaudeCodeDoctor) }

func realClaudeCodeDoctor(t *testing.T, cc claudeSetup) {
	bin := requireAgent(t, cc.cli)
	self, err := exec.LookPath("trailboss")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(self, "doctor")
	cmd.Env = []string{"PATH=" + filepath.Dir(bin) + ":" + filepath.Dir(self) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "TRAILBOSS_STATE_DIR=" + filepath.Join(home, "state")}
	out, _ := cmd.CombinedOutput() // it exits 1: no daemon runs here
	want := "Claude Code " + cc.cli.wanted() + " (" + bin + ")"
	if support, _ := claude.CheckVersion(cc.cli.wanted()); support == claude.Verified {
		want = "✓ " + want + ": verified with Trail Boss"
	}
	if !strings.Contains(string(out), want) {
		t.Fatalf("doctor does not say %q:\n%s", want, out)
	}
}

// stopDaemon stops the world's daemon as `trailboss stop` would.
func (w *agentWorld) stopDaemon() {
	w.t.Helper()
	_ = w.daemon.cmd.Process.Signal(syscall.SIGINT)
	_ = w.daemon.cmd.Wait()
}

// restartDaemon starts a daemon again on the same state directory.
func (w *agentWorld) restartDaemon() {
	w.t.Helper()
	self, _ := exec.LookPath("trailboss")
	w.daemon = launchDaemon(w.t, self, w.daemon.stateDir, withEnv(w.env, "TMUX="+tmuxEnvValue(w.t, w.tm)), "-v", "--sweep", "1s")
}
