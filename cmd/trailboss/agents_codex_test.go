package main

// The real Codex CLI, in tmux panes, against the fake Responses API: its turns, its approvals
// (from its hooks, and read off its screen when there are none), npm's Node wrapper, two
// TUIs side by side, and its hidden title threads, which are nobody's session.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter/codex"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/testscripts/fakeapi/openai"
)

// codexWorld is an agent world with a CODEX_HOME whose config.toml runs Codex offline
// against the fake API, without any dialog but the one about hooks.
type codexWorld struct {
	*agentWorld
	wrapper string // npm's node_modules/.bin/codex: a Node script
	native  string // the binary it starts
	fake    *openai.Server
	home    string // CODEX_HOME
	keyEnv  string // the variable Codex reads the fake's key from
}

// newCodexWorld runs cli and writes config.toml; tables is more TOML for its end (tables
// only: the root keys come first). It kills, when the test ends, every Codex process the test started,
// the background app-server among them (it outlives its TUI and its pane).
func newCodexWorld(t *testing.T, cli agentPackage, tables string) *codexWorld {
	t.Helper()
	wrapper := requireAgent(t, cli)
	natives, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(wrapper)), "@openai", "codex-*", "vendor", "*", "bin", "codex"))
	if len(natives) != 1 {
		t.Fatalf("the native codex binary beside %s: found %q", wrapper, natives)
	}
	w := &codexWorld{agentWorld: newAgentWorld(t, "--sweep", "1s"), wrapper: wrapper, native: natives[0]}
	w.home = filepath.Join(w.agentWorld.home, ".codex")
	w.env = withEnv(w.env, "CODEX_HOME="+w.home)
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(envValue(w.env, "TRAILBOSS_STATE_DIR"), "emit.log"))
			t.Logf("queue: %+v\nsessions: %+v\nemit.log:\n%s", w.queue(), w.sessions(), log)
		}
		killProcesses(t, "Codex", func() []int { return codexProcesses(w.home) })
	})
	fake, err := openai.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	w.fake = fake
	provider, key := fake.ProviderConfig()
	w.keyEnv = key
	config := "check_for_update_on_startup = false\napproval_policy = \"on-request\"\nsandbox_mode = \"workspace-write\"\n" +
		provider + "\n[projects." + strconv.Quote(w.work) + "]\ntrust_level = \"trusted\"\n\n" +
		"[tui]\nscreen_reader_detection_done = true\n" + tables
	if err := os.MkdirAll(w.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// setup runs `trailboss setup --codex` as a user would, and returns what it said.
func (w *codexWorld) setup() string {
	w.t.Helper()
	return w.run("trailboss", "setup", "--codex", "--no-claude", "--no-tmux")
}

// startCodex opens a pane, starts bin there (w.native or w.wrapper) and waits for its input
// box, trusting Trail Boss's hooks (2, Enter) when Codex asks about them: when they are in
// config.toml and not trusted yet. (Codex draws its input box first, then the question over
// it.) It returns the pane.
func (w *codexWorld) startCodex(bin string) string {
	w.t.Helper()
	config, err := os.ReadFile(filepath.Join(w.home, "config.toml"))
	if err != nil {
		w.t.Fatal(err)
	}
	review := strings.Contains(string(config), "[[hooks.") && !strings.Contains(string(config), "trusted_hash")
	pane := w.pane(w.keyEnv+"=fake", "CODEX_HOME="+w.home)
	w.typeLine(pane, hooks.ShellWord(bin))
	if review {
		w.waitScreen(pane, `Hooks need review`, 60*time.Second)
		// A key pressed while the dialog is still being set up is lost: press again.
		var last string
		defer func() {
			if w.t.Failed() {
				w.t.Logf("Codex's screen when last read:\n%s", last)
			}
		}()
		w.tm.WaitFor(w.t, "2 to select Trust all", 10*time.Second, func() bool {
			w.keys(pane, "2")
			for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if last = w.screen(pane); strings.Contains(last, "› 2. Trust all") {
					return true
				}
			}
			return false
		})
		w.keys(pane, "Enter")
		w.tm.WaitFor(w.t, "Codex to take the trust", 10*time.Second, func() bool {
			return !strings.Contains(w.screen(pane), "Hooks need review")
		})
	}
	w.waitScreen(pane, `for shortcuts`, 60*time.Second)
	return pane
}

// waitApproval waits until pane shows Codex's approval prompt for a command, and returns when
// it was first seen.
func (w *codexWorld) waitApproval(pane string) time.Time {
	w.t.Helper()
	// Generous: on a busy machine Codex may still be "Waiting for startup" with the prompt.
	w.waitScreen(pane, `Would you like to run the following command\?(?s:.*)Press enter to confirm`, 60*time.Second)
	return time.Now()
}

// humanPause is how long a person looks at an approval before answering it. The screen
// adapter reads a screen once it has been quiet for a second (1.5–2.5 s after Codex draws
// it); an approval answered before it was read leaves the queue only when its command has
// run (PostToolUse).
const humanPause = 5 * time.Second

// codexProcesses returns the pids of the Codex processes of CODEX_HOME home: those whose
// binary lies under it (the app-server runs a copy from home/packages), and the TUIs and
// Node wrappers started with it in their environment.
func codexProcesses(home string) []int {
	var pids []int
	for _, p := range liveProcs() {
		argv := p.argv
		codex := strings.HasPrefix(filepath.Base(argv[0]), "codex") ||
			(len(argv) > 1 && filepath.Base(argv[0]) == "node" && filepath.Base(argv[1]) == "codex")
		if codex && (strings.HasPrefix(argv[0], home+"/") || p.env("CODEX_HOME") == home) {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// appServers returns the shared app-servers of the world's CODEX_HOME running now.
func (w *codexWorld) appServers() []int { return sharedCodexAppServers(w.home) }

// codexSessions returns the ids of the live sessions that are not the screen adapter's.
func (w *agentWorld) codexSessions() map[string]string {
	out := map[string]string{}
	for _, s := range w.sessions() {
		if !strings.HasPrefix(s.SessionID, "screen:") {
			out[s.SessionID] = s.Pane
		}
	}
	return out
}

// noTitleThread fails when anything the daemon shows came from a title thread: its notify
// carries the title as JSON, and its thread would be a session of its own.
func (w *agentWorld) noTitleThread(threads map[string]string) {
	w.t.Helper()
	for _, it := range w.queue() {
		if strings.Contains(it.Summary, `"title"`) || strings.Contains(it.Summary, "Greet the user") {
			w.t.Errorf("a title thread's words in the queue: %+v", it)
		}
	}
	for id, pane := range w.codexSessions() {
		if _, ok := threads[id]; !ok {
			w.t.Errorf("session %s on pane %s is none of the TUIs' threads %v", id, pane, threads)
		}
	}
}

func hasSummary(re string) func(client.Item) bool {
	r := regexp.MustCompile(re)
	return func(it client.Item) bool { return r.MatchString(it.Summary) }
}

// TestRealCodex walks one Codex session with Trail Boss's hooks and notify: a turn's end, the
// next prompt, an Esc mid-turn, an approval, and the title threads that every prompt starts.
func TestRealCodex(t *testing.T) {
	eachCodex(t, func(t *testing.T, cli agentPackage) {
		w := newCodexWorld(t, cli, "")
		said := w.setup()
		if !strings.Contains(said, "daemon_auto_start = false") {
			t.Fatalf("setup --codex did not say it turns the shared app-server off:\n%s", said)
		}
		// Codex runs only the hooks its user trusted: doctor says so until Codex has asked
		// ("Hooks need review") and been told to trust them, as startCodex does.
		if out, _ := execOutputEnv(w.env, "trailboss", "doctor"); !strings.Contains(out, "Codex has not trusted Trail Boss's hooks (SessionStart, UserPromptSubmit, PermissionRequest, PostToolUse, Interrupt)") {
			t.Errorf("doctor before Codex trusted the hooks:\n%s", out)
		}
		pane := w.startCodex(w.native)
		if out, _ := execOutputEnv(w.env, "trailboss", "doctor"); !strings.Contains(out, "Codex trusts Trail Boss's hooks") {
			t.Errorf("doctor once Codex trusted the hooks:\n%s", out)
		}

		// A turn's end is queued (notify), with the agent's last words.
		w.typeLine(pane, "say hi")
		it, took := w.waitItem(pane, "the turn's end", 20*time.Second, isStopped)
		if it.Summary != "hi from the fake model" || it.Harness != "codex" {
			t.Fatalf("turn end: %+v", it)
		}
		t.Logf("turn end → queued in %v", took)
		thread := w.waitSession(pane, "the thread", time.Second)
		threads := map[string]string{thread: pane}

		// The next prompt takes it out (UserPromptSubmit) while the model works, and its end puts
		// it back with the new words.
		w.typeLine(pane, "slow")
		took = w.waitGone(pane, "the next prompt to dequeue", 5*time.Second)
		t.Logf("next prompt → out of the queue in %v", took)
		// While the reply streams (about 9 s) the session waits for nobody. Codex's status row
		// is not a reliable witness: on a busy machine it was never seen during a whole stream.
		w.staysGoneUntilScreen(pane, "while the model streams", "slow-20", 30*time.Second)
		w.waitItem(pane, "the slow turn's end", 30*time.Second, hasSummary(`^slow-1 .* slow-20$`))

		// Esc mid-turn: Codex fires Interrupt (and neither Stop nor notify), which queues the
		// session as interrupted at once, not once its screen has gone quiet.
		w.typeLine(pane, "slow")
		w.waitGone(pane, "the second slow prompt to dequeue", 5*time.Second)
		w.waitScreen(pane, `(?s)slow-20.*slow-2 `, 30*time.Second)
		w.keys(pane, "Escape")
		it, took = w.waitItem(pane, "Esc mid-turn", 5*time.Second, func(it client.Item) bool { return it.Detail == "interrupted" })
		t.Logf("Esc mid-turn → queued in %v", took)
		if took > time.Second {
			t.Errorf("Esc mid-turn was queued %v after the key, want ≤ 1 s", took)
		}
		if !isStopped(it) || it.Summary != codex.InterruptedSummary || it.SessionID != thread {
			t.Errorf("Esc mid-turn: %+v, want the thread %s stopped, interrupted", it, thread)
		}
		w.waitScreen(pane, `Conversation interrupted`, 5*time.Second)

		// An approval: its hook queues it as a permission with the command, before Codex draws it.
		w.typeLine(pane, "run sleep 8 && touch probe.txt && ls")
		drawn := w.waitApproval(pane)
		it, _ = w.waitItem(pane, "the approval", 5*time.Second, isPermission)
		if it.Detail != "Bash" || !strings.Contains(it.Summary, "sleep 8 && touch probe.txt && ls") || it.SessionID != thread {
			t.Fatalf("approval: %+v", it)
		}
		t.Logf("approval drawn %v after it was queued", drawn.Sub(it.Since).Round(time.Millisecond))
		time.Sleep(humanPause)
		if it, _ := w.item(pane); it.Summary != "Bash: sleep 8 && touch probe.txt && ls — Run sleep 8 && touch probe.txt && ls outside the sandbox?" {
			t.Errorf("the screen changed what the hook said: %+v", it)
		}
		// Approved with Enter: it leaves the queue at the keypress (the screen moved on), not when
		// the command ends (PostToolUse, 8 s later).
		w.keys(pane, "Enter")
		took = w.waitGone(pane, "the approved command to leave the queue", 5*time.Second)
		t.Logf("approved with Enter → out of the queue in %v", took)
		if took > 2*time.Second {
			t.Errorf("the approved command left the queue %v after Enter, want ≤ 2 s", took)
		}
		w.waitItem(pane, "the turn after the command", 30*time.Second, hasSummary(`^ran it: probe\.txt$`))
		if _, err := os.Stat(filepath.Join(w.work, "probe.txt")); err != nil {
			t.Fatalf("the approved command did not run: %v", err)
		}

		// Three prompts, three title threads: none is a session, none is in the queue.
		w.noTitleThread(threads)
		if got := w.codexSessions(); len(got) != 1 || got[thread] != pane {
			t.Errorf("sessions %v, want only %s on %s", got, thread, pane)
		}
		if pids := w.appServers(); len(pids) != 0 {
			t.Errorf("a shared app-server runs (%v) although setup turned it off", pids)
		}
	})
}

// TestRealCodexApprovalOffTheScreen: a Codex with no Trail Boss in its config reports
// nothing, and its approval is read off its screen: a permission with the command, the
// reason and the choices; answered, it leaves the queue.
func TestRealCodexApprovalOffTheScreen(t *testing.T) {
	eachCodex(t, func(t *testing.T, cli agentPackage) {
		w := newCodexWorld(t, cli, "")
		pane := w.startCodex(w.native)
		w.approvalOffTheScreen(pane)
	})
}

// TestRealCodexThroughNpm: npm's `codex` is a Node script that starts the binary as its
// child (Node < 22.15): the pane's command is node, and the screen adapter finds Codex under
// it.
func TestRealCodexThroughNpm(t *testing.T) {
	eachCodex(t, func(t *testing.T, cli agentPackage) {
		w := newCodexWorld(t, cli, "")
		pane := w.startCodex(w.wrapper)
		if cmd := strings.TrimSpace(w.tm.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_current_command}")); cmd != "node" {
			t.Skipf("the pane's command is %q, not node (Node %s runs the binary in place): nothing to find under node", cmd, nodeVersion(t))
		}
		w.approvalOffTheScreen(pane)
	})
}

func nodeVersion(t *testing.T) string {
	out, err := execOutput("node", "--version")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(out)
}

// approvalOffTheScreen drives an approval in pane, a Codex that reports nothing, and checks
// the screen adapter's item.
func (w *codexWorld) approvalOffTheScreen(pane string) {
	t := w.t
	t.Helper()
	w.typeLine(pane, "run touch probe.txt && ls")
	drawn := w.waitApproval(pane)
	it, _ := w.waitItem(pane, "the approval read off the screen", 10*time.Second, isPermission)
	t.Logf("approval drawn → queued off the screen in %v", time.Since(drawn).Round(time.Millisecond))
	want := "$ touch probe.txt && ls — Run touch probe.txt && ls outside the sandbox? [1. Yes, proceed (y) / " +
		"2. Yes, and don't ask again for commands that start with `touch probe.txt` (p) / " +
		"3. No, and tell Codex what to do differently (esc)]"
	if it.Summary != want || it.Detail != "permission" || it.Harness != "codex" || !strings.HasPrefix(it.SessionID, "screen:") {
		t.Errorf("approval off the screen: %+v\nwant summary %q", it, want)
	}
	w.keys(pane, "Enter")
	took := w.waitGone(pane, "the answered approval to leave the queue", 5*time.Second)
	t.Logf("approved with Enter → out of the queue in %v", took)
	w.waitScreen(pane, `ran it: probe\.txt`, 20*time.Second)
	w.noTitleThread(nil)
}

// TestRealCodexTwoTUIs: two Codex TUIs side by side. With the config setup --codex writes,
// each runs its own app-server and each event lands on its own pane. With the shared
// app-server left on, events that it runs carry the first TUI's pane: none is queued (doctor
// says why), and an approval still reaches the queue on its own pane, off the screen.
func TestRealCodexTwoTUIs(t *testing.T) {
	eachCodex(t, func(t *testing.T, cli agentPackage) {
		t.Run("own app-servers", func(t *testing.T) {
			w := newCodexWorld(t, cli, "")
			w.setup()
			a := w.startCodex(w.native)
			b := w.startCodex(w.native)
			w.typeLine(a, "say hi")
			w.typeLine(b, "run touch b.txt")
			itA, _ := w.waitItem(a, "A's turn end", 20*time.Second, isStopped)
			itB, _ := w.waitItem(b, "B's approval", 20*time.Second, isPermission)
			if itA.Summary != "hi from the fake model" || !strings.Contains(itB.Summary, "touch b.txt") || itA.SessionID == itB.SessionID {
				t.Fatalf("A: %+v\nB: %+v", itA, itB)
			}
			w.waitApproval(b)
			time.Sleep(humanPause)
			w.keys(b, "Enter")
			w.waitItem(b, "B's turn end", 20*time.Second, hasSummary(`^ran it:`))
			w.typeLine(a, "say hi again")
			w.waitGone(a, "A's next prompt", 5*time.Second)
			w.waitItem(a, "A's second turn end", 20*time.Second, isStopped)
			threads := map[string]string{itA.SessionID: a, itB.SessionID: b}
			for id, pane := range w.codexSessions() {
				if threads[id] != pane {
					t.Errorf("session %s is on pane %s, want %q", id, pane, threads[id])
				}
			}
			w.noTitleThread(threads)
			if pids := w.appServers(); len(pids) != 0 {
				t.Errorf("a shared app-server runs: %v", pids)
			}
		})

		t.Run("shared app-server", func(t *testing.T) {
			w := newCodexWorld(t, cli, "\n[features]\ndaemon_auto_start = true\n")
			said := w.setup()
			if !strings.Contains(said, "daemon_auto_start = true") {
				t.Errorf("setup did not say the user's config keeps the shared app-server:\n%s", said)
			}
			a := w.startCodex(w.native)
			b := w.startCodex(w.native)
			if pids := w.appServers(); len(pids) != 1 {
				t.Fatalf("shared app-servers %v, want the one A started", pids)
			}
			// A's turn end and B's approval both run under A's app-server, with A's TMUX_PANE.
			w.typeLine(a, "say hi")
			w.waitScreen(a, `hi from the fake model`, 20*time.Second)
			w.typeLine(b, "run touch b.txt")
			w.waitApproval(b)
			itB, _ := w.waitItem(b, "B's approval, off its screen", 10*time.Second, isPermission)
			if !strings.Contains(itB.Summary, "$ touch b.txt") {
				t.Errorf("B's approval: %+v", itB)
			}
			w.staysGone(a, "a pane whose Codex waits for nobody, with B waiting", 3*time.Second)
			for id, pane := range w.codexSessions() {
				t.Errorf("session %s on pane %s: nothing the shared app-server ran may place a session", id, pane)
			}
			out, err := execOutputEnv(w.env, "trailboss", "doctor", "--socket", w.tm.Socket)
			if err == nil || !strings.Contains(out, "Codex's shared app-server is running") {
				t.Errorf("doctor (%v) did not report the shared app-server:\n%s", err, out)
			}
			log, _ := os.ReadFile(filepath.Join(envValue(w.env, "TRAILBOSS_STATE_DIR"), "emit.log"))
			if !strings.Contains(string(log), "shared app-server") {
				t.Errorf("emit.log does not say why the events were not sent:\n%s", log)
			}
			w.keys(b, "Enter")
			w.waitGone(b, "B's answered approval", 5*time.Second)
		})
	})
}

// execOutput runs a command and returns what it printed, stdout and stderr together.
func execOutput(name string, args ...string) (string, error) {
	return execOutputEnv(nil, name, args...)
}

// execOutputEnv is execOutput with the environment env (the caller's when nil).
func execOutputEnv(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
