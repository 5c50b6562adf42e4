package main

// The real Claude Code 2.1.332 in auto mode, the mode a fresh install starts in, against
// the fake Messages API (a custom API URL, as behind a gateway): its permission dialogs fire
// no PermissionRequest, and come after an offer "Auto mode can't check actions in this
// session". What the queue says about each, and how soon (the figures are logged).

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/hooks"
)

// newAutoClaudeWorld is a claudeWorld of Claude Code 2.1.332 with settings that do not set
// permissions.defaultMode (auto mode). withHooks runs `trailboss setup`; without, Claude
// Code has no hooks at all and Trail Boss knows it only from its state files.
func newAutoClaudeWorld(t *testing.T, withHooks bool) *claudeWorld {
	t.Helper()
	w := newClaudeWorldOf(t, claudeAutoMode(), withHooks)
	// The onboarding this version has seen, so that it shows no notes about itself.
	path := filepath.Join(w.home, ".claude.json")
	var state map[string]any
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &state)
	}
	if err != nil {
		t.Fatal(err)
	}
	state["lastOnboardingVersion"] = w.cc.cli.wanted()
	if b, err = json.Marshal(state); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// startAutoClaude starts Claude Code in a new pane, prefixed by launcher words (such as
// "env -u TMUX_PANE"), and waits until its session is bound to that pane and its auto mode
// is on. It returns the pane.
func (w *claudeWorld) startAutoClaude(launcher ...string) string {
	w.t.Helper()
	pane := w.pane("ANTHROPIC_BASE_URL="+w.fake.URL, "ANTHROPIC_API_KEY="+fakeAnthropicKey,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1")
	w.typeLine(pane, strings.Join(append(launcher, hooks.ShellWord(w.bin)), " "))
	w.waitSession(pane, "Claude Code's session bound to its pane", 60*time.Second)
	w.waitScreen(pane, `auto mode on`, 30*time.Second)
	return pane
}

// queued waits until pane's item satisfies cond and returns it with how long after its
// stuck moment (the source's own time: the state file's, or the hook's) it was seen queued.
func (w *claudeWorld) queued(pane, what string, cond func(client.Item) bool) (client.Item, time.Duration) {
	w.t.Helper()
	it, _ := w.waitItem(pane, what, 20*time.Second, cond)
	return it, time.Since(it.Since)
}

// approveNoFirst answers a No-first dialog ("❯ No / Yes") Yes as a person does: Down,
// then Enter once the screen shows Yes chosen.
func (w *claudeWorld) approveNoFirst(pane string) {
	w.t.Helper()
	w.pressUntil(pane, "Down", "Yes chosen", func(s string) bool { return strings.Contains(s, "❯ Yes") })
	time.Sleep(300 * time.Millisecond) // what a person takes between seeing Yes chosen and Enter
	w.keys(pane, "Enter")
}

// pressUntil presses key in pane until its screen satisfies done, once a second at most:
// Claude Code (2.1.318 and later) ignores a key that comes as its dialog is drawn, which a
// person sees and presses again.
func (w *claudeWorld) pressUntil(pane, key, what string, done func(screen string) bool) {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !done(w.screen(pane)) {
		if time.Now().After(deadline) {
			w.t.Fatalf("pane %s: %s did not bring %s within 10 s; it shows:\n%s", pane, key, what, w.screen(pane))
		}
		time.Sleep(300 * time.Millisecond) // a person sees the dialog before pressing
		if done(w.screen(pane)) {
			return
		}
		w.keys(pane, key)
		for end := time.Now().Add(time.Second); time.Now().Before(end) && !done(w.screen(pane)); {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// throughTheOffer waits for pane's next dialog; when it is auto mode's offer, it checks the
// offer is queued as what it is within a second of being drawn, and stays in auto mode
// (Enter). It reports whether there was an offer.
func (w *claudeWorld) throughTheOffer(pane string) bool {
	w.t.Helper()
	w.waitScreen(pane, `Auto mode can't check actions in this session|Do you want to`, 20*time.Second)
	drawn := time.Now()
	if !strings.Contains(w.screen(pane), "Enter to stay in auto mode") {
		return false
	}
	_, lag := w.waitItem(pane, "auto mode's offer", 20*time.Second, func(it client.Item) bool { return it.Detail == "dialog" })
	// Its words need the call it holds up: a hook's PreToolUse, or the transcript, which
	// Claude Code writes a moment after the dialog opens.
	it, _ := w.waitItem(pane, "auto mode's offer in its words", 20*time.Second, func(it client.Item) bool {
		return it.Detail == "dialog" && strings.Contains(it.Summary, "auto mode can't check actions")
	})
	said := time.Since(drawn)
	if it.Reason != "permission" || it.Prompt != nil {
		w.t.Fatalf("the offer: %+v (prompt %+v)", it, it.Prompt)
	}
	w.t.Logf("auto mode's offer on screen → queued %v later, in its words %v later: %q", lag.Round(time.Millisecond),
		said.Round(time.Millisecond), it.Summary)
	if lag > time.Second {
		w.t.Errorf("auto mode's offer was queued %v after it was on screen, want ≤ 1 s", lag)
	}
	w.pressUntil(pane, "Enter", "the dialog behind the offer", func(s string) bool {
		return !strings.Contains(s, "Enter to stay in auto mode")
	})
	return true
}

// permissionFor waits for pane's permission dialog for command and checks it is queued
// with the command and a prompt record that takes allow or deny; it returns how long after
// the dialog opened it was seen queued: after its stuck moment, or, for a dialog behind
// auto mode's offer (its item keeps the offer's place and moment), after the test saw it
// drawn.
func (w *claudeWorld) permissionFor(pane, command string, afterOffer bool) time.Duration {
	w.t.Helper()
	w.waitScreen(pane, `Do you want to proceed\?`, 20*time.Second)
	drawn := time.Now()
	it, lag := w.queued(pane, "the permission for "+command, func(it client.Item) bool {
		return isPermission(it) && it.Detail == "Bash" && strings.Contains(it.Summary, command)
	})
	if afterOffer {
		lag = time.Since(drawn)
	}
	p := it.Prompt
	if it.Detail != "Bash" || p == nil || p.Kind != "permission" || !strings.Contains(p.Question, command) ||
		len(p.Choices) != 2 || p.Choices[0].Key != "allow" || p.Choices[1].Key != "deny" || it.Harness != "claude" {
		w.t.Fatalf("the permission for %s: %+v, prompt %+v", command, it, p)
	}
	if lag > time.Second {
		w.t.Errorf("the permission for %s was queued %v after its dialog opened, want ≤ 1 s", command, lag)
	}
	return lag
}

// touchApproved has the session in pane run touch file: through the offer if it comes, a
// permission queued with its command within 1 s, approved in the pane, out of the queue
// within 1 s, the turn's end queued, the file there. The figures are logged after say.
func (w *claudeWorld) touchApproved(pane, file, say string) {
	w.t.Helper()
	w.submit(pane, "run touch "+file)
	lag := w.permissionFor(pane, "touch "+file, w.throughTheOffer(pane))
	w.t.Logf("%spermission → queued with its command %v after its dialog opened", say, lag.Round(time.Millisecond))
	busy := w.watchBusy(pane)
	approving := time.Now()
	w.approveNoFirst(pane)
	left := w.waitGone(pane, "the approved permission to leave the queue", 5*time.Second)
	gone := time.Now()
	// Ours is the time from Claude Code taking the key (its state file turns busy) to the
	// queue: on a loaded machine Claude Code itself may take a while to read the key. A
	// turn this short can be over before the watch reads busy: then from the keypress.
	ours, from := left, "the keypress"
	if at, ok, _ := busy(approving); ok {
		ours, from = gone.Sub(at), "Claude Code's state file said busy"
	}
	w.t.Logf("%sapproval keypress → out of the queue in %v, %v after %s", say, left.Round(time.Millisecond), ours.Round(time.Millisecond), from)
	if ours > time.Second {
		w.t.Errorf("the approved permission left the queue %v after %s, want ≤ 1 s", ours, from)
	}
	w.waitItem(pane, "the turn after the approval", 20*time.Second, isStopped)
	if _, err := os.Stat(file); err != nil {
		w.t.Fatalf("the approved command did not run: %v", err)
	}
}

// TestRealClaudeCodeAutoMode: with Trail Boss's hooks, each wait of auto mode is queued
// with its words within a second, and leaves the queue within a second of its answer.
func TestRealClaudeCodeAutoMode(t *testing.T) {
	w := newAutoClaudeWorld(t, true)
	pane := w.startAutoClaude()

	w.typeLine(pane, "say hi")
	// The live state can queue the turn's end before its words come (the Stop hook, the
	// transcript): the item is read once it has them.
	_, lag := w.queued(pane, "the finished turn, with its words", func(it client.Item) bool {
		return isStopped(it) && it.Summary == "hi from the fake model"
	})
	t.Logf("turn end → queued with its words %v after Claude Code went idle", lag.Round(time.Millisecond))

	// The first action that needs the check: the offer, then the dialog. Approved: out.
	w.touchApproved(pane, filepath.Join(w.home, "first.txt"), "")

	// Two dialogs in one turn, each with its own command.
	a, b := filepath.Join(w.home, "a.txt"), filepath.Join(w.home, "b.txt")
	w.submit(pane, "twice touch "+a+" ; touch "+b)
	lag = w.permissionFor(pane, "touch "+a, w.throughTheOffer(pane))
	w.approveNoFirst(pane)
	w.waitScreen(pane, `Second of two`, 20*time.Second)
	lagB := w.permissionFor(pane, "touch "+b, w.throughTheOffer(pane))
	if it, _ := w.item(pane); strings.Contains(it.Summary, "touch "+a) {
		t.Fatalf("the second dialog shows the first's command: %+v", it)
	}
	t.Logf("two dialogs in a row → queued %v and %v after each opened", lag.Round(time.Millisecond), lagB.Round(time.Millisecond))
	w.approveNoFirst(pane)
	w.waitItem(pane, "the turn after both approvals", 20*time.Second, isStopped)
	for _, f := range []string{a, b} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("an approved command did not run: %v", err)
		}
	}

	// Esc at a dialog: it waits at its prompt, in the same place.
	denied := filepath.Join(w.home, "denied.txt")
	w.typeLine(pane, "run touch "+denied)
	w.permissionFor(pane, "touch "+denied, w.throughTheOffer(pane))
	before, _ := w.item(pane)
	w.keys(pane, "Escape")
	it, took := w.waitItem(pane, "Esc to relabel the item", 5*time.Second, func(it client.Item) bool { return it.Detail == "refused" })
	if !isStopped(it) || !strings.Contains(it.Summary, "touch "+denied) || !it.Since.Equal(before.Since) {
		t.Fatalf("after Esc: %+v (before %+v)", it, before)
	}
	t.Logf("Esc at the dialog → relabelled in %v", took.Round(time.Millisecond))
	if _, err := os.Stat(denied); err == nil {
		t.Fatal("the refused command ran")
	}

	// A background task's end wakes the session: out while it works, and back in the
	// place of its first stop.
	w.typeLine(pane, "background sleep 3")
	stop, _ := w.queued(pane, "the turn that started a background task", func(it client.Item) bool {
		return isStopped(it) && it.Detail == "" && strings.HasPrefix(it.Summary, "done:")
	})
	out := w.waitGone(pane, "the background task's wake-up to take the item out", 30*time.Second)
	back := time.Now()
	woken, _ := w.queued(pane, "the woken turn's end", func(it client.Item) bool { return it.Summary == "background done" })
	if !woken.Since.Equal(stop.Since) {
		t.Fatalf("the woken turn's end took a new place: since %v, the first stop's %v", woken.Since, stop.Since)
	}
	t.Logf("woken by its background task %v after its stop: out while it worked, back %v later in its first stop's place",
		out.Round(time.Millisecond), time.Since(back).Round(time.Millisecond))
}

// TestRealClaudeCodeAutoModeWithoutHooks: a Claude Code whose hooks were never set up is
// found from its state file alone, bound to its pane, and its turn ends, its auto-mode
// offer and permissions are queued within a second, a permission with the command its
// transcript holds.
func TestRealClaudeCodeAutoModeWithoutHooks(t *testing.T) {
	w := newAutoClaudeWorld(t, false)
	if _, err := os.Stat(filepath.Join(w.home, ".claude", "settings.json")); err == nil {
		t.Fatal("the world has settings: hooks may be set")
	}
	pane := w.startAutoClaude()

	w.typeLine(pane, "say hi")
	it, lag := w.queued(pane, "the finished turn", isStopped)
	t.Logf("without hooks: turn end → queued %v after Claude Code went idle (words: %q)", lag.Round(time.Millisecond), it.Summary)
	if lag > time.Second {
		t.Errorf("the turn's end was queued %v after it, want ≤ 1 s", lag)
	}
	// Claude Code can say idle before it writes its reply down: the words follow.
	it, _ = w.queued(pane, "the finished turn's words", func(it client.Item) bool { return it.Summary != "" })
	if it.Summary != "hi from the fake model" {
		t.Fatalf("finished turn: %+v", it)
	}
	t.Logf("without hooks: turn end → queued with its words %v after Claude Code went idle", time.Since(it.Since).Round(time.Millisecond))

	w.touchApproved(pane, filepath.Join(w.home, "nohooks.txt"), "without hooks (the command from the transcript): ")

	// A Claude Code that was there before the daemon: found, and its finished turn queued.
	w.submit(pane, "say hi again")
	w.stopDaemon()
	w.waitScreen(pane, `(?s)say hi again.*hi from the fake model`, 20*time.Second)
	started := time.Now()
	w.restartDaemon()
	it, _ = w.queued(pane, "the turn that ended before the daemon started", func(it client.Item) bool {
		return isStopped(it) && it.Summary == "hi from the fake model"
	})
	t.Logf("without hooks: a session found by a daemon started after its turn ended: queued %v after the daemon's start", time.Since(started).Round(time.Millisecond))
}

// TestRealClaudeCodeWithoutTMUX_PANE: a Claude Code started with TMUX_PANE unset, whose
// state file then names no pane, is bound to the pane it runs in, and queued there: with
// hooks (whose environment has no TMUX_PANE either), and without (from the process alone).
func TestRealClaudeCodeWithoutTMUX_PANE(t *testing.T) {
	for _, withHooks := range []bool{true, false} {
		w := newAutoClaudeWorld(t, withHooks)
		pane := w.startAutoClaude("env", "-u", "TMUX_PANE")
		w.typeLine(pane, "say hi")
		it, _ := w.queued(pane, "the finished turn in its pane", func(it client.Item) bool {
			return isStopped(it) && it.Summary != ""
		})
		if it.Pane != pane || it.Summary != "hi from the fake model" {
			t.Fatalf("hooks %v: finished turn: %+v", withHooks, it)
		}
	}
}
