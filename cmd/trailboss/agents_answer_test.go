package main

// The real Claude Code answered through Trail Boss: with [delivery] hold_permissions on,
// its PermissionRequest hook (synchronous, as setup writes it) holds until an answer comes
// through the API and prints Claude Code's decision, or lets go when the person answers
// in the terminal first.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/hooks/install"
)

// newHoldingClaudeWorld is a Claude world whose daemon holds permissions.
func newHoldingClaudeWorld(t *testing.T, cc claudeSetup) *claudeWorld {
	t.Helper()
	w := newClaudeWorld(t, cc)
	conf := filepath.Join(envValue(w.env, "XDG_CONFIG_HOME"), "trailboss", "config.toml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte("[delivery]\nenabled = true\nhold_permissions = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.stopDaemon()
	w.restartDaemon() // reads the config
	return w
}

// heldEmits returns the `trailboss emit` processes (trailboss-hot's, as setup wires them) of this world that are alive now: hooks
// that Claude Code started and that have not exited.
func (w *agentWorld) heldEmits() []proc {
	stateDir := envValue(w.env, "TRAILBOSS_STATE_DIR")
	var out []proc
	for _, p := range liveProcs() {
		if len(p.argv) >= 2 && install.IsTrailbossProgram(p.argv[0]) && p.argv[1] == "emit" &&
			p.env("TRAILBOSS_STATE_DIR") == stateDir {
			out = append(out, p)
		}
	}
	return out
}

// waitHeld waits until a hook of this world holds prompt id, and returns it: a live
// `trailboss emit` whose trace (TRAILBOSS_EMIT_TRACE) says the daemon told it to hold that
// prompt. How long a hook has run says nothing: on a busy machine a hook that does not
// hold can take a second to start.
func (w *agentWorld) waitHeld(what, id string, timeout time.Duration) proc {
	w.t.Helper()
	var held proc
	w.tm.WaitFor(w.t, what, timeout, func() bool {
		trace, _ := os.ReadFile(filepath.Join(w.tm.Dir, "emit.trace"))
		for _, p := range w.heldEmits() {
			if strings.Contains(string(trace), fmt.Sprintf(" pid %d holds prompt %s\n", p.pid, id)) {
				held = p
				return true
			}
		}
		return false
	})
	return held
}

// waitReleased waits until no hook of this world is left running, and returns how long
// it took.
func (w *agentWorld) waitReleased(what string, timeout time.Duration) time.Duration {
	w.t.Helper()
	start := time.Now()
	for len(w.heldEmits()) > 0 {
		if time.Since(start) > timeout {
			w.t.Fatalf("timed out after %v waiting for %s: still running %v", timeout, what, w.heldEmits())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

// answer answers prompt id through the API, as `trailboss reply` or a phone would.
func (w *agentWorld) answer(id string, a wire.Answer) (wire.Delivered, error) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return w.daemon.api(w.t).Answer(ctx, id, a)
}

// waitPrompt waits until pane's item carries a pending prompt of kind, and returns it.
func (w *agentWorld) waitPrompt(pane, what, kind string, timeout time.Duration) (client.Item, *wire.Prompt) {
	w.t.Helper()
	it, _ := w.waitItem(pane, what, timeout, func(it client.Item) bool { return it.Prompt != nil && it.Prompt.Kind == kind })
	return it, it.Prompt
}

// TestRealClaudeCodeAnsweredThroughTheHook: an API allow runs the command, a deny refuses
// it and the session waits for its person again, a question answered through the API
// shows the chosen option, a plan approved through the API leaves plan mode, and an answer
// typed in the terminal first wins and releases the hook. In auto mode a tool's dialog
// fires no PermissionRequest: nothing holds it, and the API's allow and deny are typed
// into the pane; questions and plans are still answered through the hook.
func TestRealClaudeCodeAnsweredThroughTheHook(t *testing.T) {
	eachClaude(t, realClaudeCodeAnsweredThroughTheHook)
}

func realClaudeCodeAnsweredThroughTheHook(t *testing.T, cc claudeSetup) {
	w := newHoldingClaudeWorld(t, cc)
	settings, err := os.ReadFile(filepath.Join(w.home, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(settings), `"timeout": 3600`) || len(install.Installed(settings, "trailboss emit")) != len(install.Events()) {
		t.Fatalf("setup did not write the synchronous PermissionRequest hook:\n%s", settings)
	}
	pane := w.startClaude()
	// How a tool's permission is answered from the API: through its held PermissionRequest
	// hook, or, in auto mode, where no such hook fires, by keys.
	toolVia := wire.ViaHook
	if cc.auto {
		toolVia = wire.ViaKeys
	}

	// (a) allow through the API: the held hook prints the decision (in auto mode: Yes is
	// picked in the pane), the command runs.
	allowed := w.asking("allowed.txt")
	w.typeLine(pane, "run touch "+allowed)
	w.dialogOpens(pane)
	it, p := w.waitPrompt(pane, "the Bash permission's prompt", wire.KindPermission, 15*time.Second)
	if it.Detail != "Bash" || !strings.Contains(it.Summary, "touch "+allowed) {
		t.Fatalf("Bash permission: %+v", it)
	}
	w.waitScreen(pane, `Do you want to proceed\?`, 10*time.Second)
	if !cc.auto {
		w.waitHeld("the PermissionRequest hook to hold", p.ID, 10*time.Second)
	}
	answered := time.Now()
	got, err := w.answer(p.ID, wire.Answer{Choice: "allow"})
	if err != nil || !got.Delivered || got.Via != toolVia {
		t.Fatalf("API allow: %+v, %v; want delivered via %s\nscreen:\n%s", got, err, toolVia, w.screen(pane))
	}
	w.tm.WaitFor(t, "the allowed command to run", 10*time.Second, func() bool { return fileExists(allowed) })
	ran := time.Since(answered)
	t.Logf("API allow: %+v; the command ran %v after the answer was sent", got, ran.Round(time.Millisecond))
	if !cc.auto {
		w.waitReleased("the hook to exit after printing its decision", 5*time.Second)
		w.waitScreen(pane, `Allowed by PermissionRequest hook`, 5*time.Second)
	}
	w.waitItem(pane, "the turn after the allowed command", 15*time.Second, func(it client.Item) bool {
		return isStopped(it) && strings.HasPrefix(it.Summary, "done:")
	})

	// (b) deny through the API: the terminal's "No" — refused, and the session waits for
	// its person, queued again.
	denied := w.asking("denied.txt")
	w.typeLine(pane, "run touch "+denied)
	_, p = w.waitPrompt(pane, "the permission to deny", wire.KindPermission, 15*time.Second)
	w.waitScreen(pane, `Do you want to proceed\?`, 10*time.Second)
	if !cc.auto {
		w.waitHeld("the hook to hold for the denial", p.ID, 10*time.Second)
	}
	got, err = w.answer(p.ID, wire.Answer{Choice: "deny", Channel: "popup"})
	if err != nil || !got.Delivered || got.Via != toolVia {
		t.Fatalf("API deny: %+v, %v; want delivered via %s\nscreen:\n%s", got, err, toolVia, w.screen(pane))
	}
	if !cc.auto {
		w.waitReleased("the hook to exit after the denial", 5*time.Second)
	}
	w.waitScreen(pane, `Interrupted`, 10*time.Second)
	it, took := w.waitItem(pane, "the refused session to be queued again", 10*time.Second, isStopped)
	t.Logf("API deny → queued again in %v: %+v", took, it)
	if fileExists(denied) {
		t.Fatal("the denied command ran")
	}
	// The item says what happened: denied from the channel (the popup, as the caller said),
	// not Esc, which Claude Code's "Interrupted" looks like — here and in the prompt it
	// asks next, which the popup and the phone show.
	if it.Detail != "denied" || !strings.HasPrefix(it.Summary, "denied from the popup: Bash: touch "+denied) ||
		strings.Contains(it.Summary, "Esc") || it.Prompt == nil || !strings.HasPrefix(it.Prompt.Question, "denied from the popup") {
		t.Fatalf("after a deny through the API the item reads %q (detail %q, prompt %+v); want \"denied from the popup: Bash: touch %s …\"",
			it.Summary, it.Detail, it.Prompt, denied)
	}

	// (c) a question answered through the API: Claude Code shows the chosen option.
	w.typeLine(pane, "ask me")
	w.waitScreen(pane, `Which colour\?`, 15*time.Second)
	it, p = w.waitPrompt(pane, "the question's prompt", wire.KindChoice, 15*time.Second)
	if it.Detail != "question" || len(p.Choices) < 2 || p.Choices[1].Key != "2" || p.Choices[1].Label != "Blue" {
		t.Fatalf("question: %+v, prompt %+v", it, p)
	}
	w.waitHeld("the hook to hold for the question", p.ID, 10*time.Second)
	got, err = w.answer(p.ID, wire.Answer{Choice: "2"})
	if err != nil || !got.Delivered || got.Via != wire.ViaHook {
		t.Fatalf("API answer 2: %+v, %v; want delivered via the hook", got, err)
	}
	w.waitReleased("the hook to exit after answering the question", 5*time.Second)
	w.waitScreen(pane, `→ Blue`, 10*time.Second)
	w.waitItem(pane, "the turn after the answer", 15*time.Second, isStopped)

	// (d) the terminal answers first: the command runs, the hook lets go by itself (Claude
	// Code does not end it), and a late API answer is refused. (In auto mode no hook holds:
	// the late answer alone is checked.)
	terminal := w.asking("terminal.txt")
	w.typeLine(pane, "run touch "+terminal)
	_, p = w.waitPrompt(pane, "the permission to answer in the terminal", wire.KindPermission, 15*time.Second)
	w.waitScreen(pane, `Do you want to proceed\?`, 10*time.Second)
	var held proc
	if !cc.auto {
		held = w.waitHeld("the hook to hold", p.ID, 10*time.Second)
	}
	w.approve(pane)
	pressed := time.Now()
	var released time.Duration
	if !cc.auto {
		released = w.waitReleased("the held hook to exit after the terminal's answer", 30*time.Second)
		t.Logf("terminal answer → held hook (pid %d) exited in %v", held.pid, released)
	}
	w.tm.WaitFor(t, "the command approved in the terminal to run", 10*time.Second, func() bool {
		return fileExists(terminal)
	})
	_, err = w.answer(p.ID, wire.Answer{Choice: "deny"})
	var refused *client.AnswerRefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("a late API answer %v after the terminal's: %v; want a 409", time.Since(pressed).Round(time.Millisecond), err)
	}
	t.Logf("late API answer: 409 %s (%s)", refused.Reason, refused.Message)
	w.waitItem(pane, "the turn after the terminal's approval", 15*time.Second, func(it client.Item) bool {
		return isStopped(it) && strings.HasPrefix(it.Summary, "done:")
	})
	if released > 2*time.Second {
		t.Errorf("the held hook exited %v after the terminal's answer, want ≤ 2 s", released)
	}

	// Refused in the terminal with Esc (no hook fires for it; the live state shows it):
	// the hook lets go too, and nothing runs.
	escaped := w.asking("escaped.txt")
	w.typeLine(pane, "run touch "+escaped)
	_, p = w.waitPrompt(pane, "the permission to refuse with Esc", wire.KindPermission, 15*time.Second)
	w.waitScreen(pane, `Do you want to proceed\?`, 10*time.Second)
	if !cc.auto {
		held = w.waitHeld("the hook to hold", p.ID, 10*time.Second)
	}
	w.pressWhenShown(pane, `Do you want to proceed\?`, time.Second, "Escape")
	if !cc.auto {
		released = w.waitReleased("the held hook to exit after Esc in the terminal", 30*time.Second)
		t.Logf("Esc in the terminal → held hook (pid %d) exited in %v", held.pid, released)
	}
	if _, err = w.answer(p.ID, wire.Answer{Choice: "allow"}); !errors.As(err, &refused) {
		t.Fatalf("a late API allow after Esc: %v; want a 409", err)
	}
	w.waitItem(pane, "the refusal to be queued", 10*time.Second, func(it client.Item) bool { return isStopped(it) && it.Detail == "refused" })
	if fileExists(escaped) {
		t.Fatal("the command refused with Esc ran")
	}
	if released > 2*time.Second {
		t.Errorf("the held hook exited %v after Esc, want ≤ 2 s", released)
	}

	// (e) a plan approved through the API: Claude Code leaves plan mode and goes on (last:
	// it leaves the session in accept-edits mode, where a touch needs no permission). Its
	// dialog is shown only in plan mode. The model writes the plan file first; the dialog
	// then asks "Ready to code?".
	w.toPlanMode(pane)
	w.typeLine(pane, "plan")
	w.waitScreen(pane, `Ready to code\?`, 15*time.Second)
	it, p = w.waitPrompt(pane, "the plan's prompt", wire.KindPermission, 15*time.Second)
	if it.Detail != "plan" {
		t.Fatalf("plan: %+v, prompt %+v", it, p)
	}
	w.waitHeld("the hook to hold for the plan", p.ID, 10*time.Second)
	got, err = w.answer(p.ID, wire.Answer{Choice: "allow"})
	if err != nil || !got.Delivered || got.Via != wire.ViaHook {
		t.Fatalf("API allow for the plan: %+v, %v; want delivered via the hook", got, err)
	}
	w.waitReleased("the hook to exit after approving the plan", 5*time.Second)
	// 2.1.197 says "User approved Claude's plan", 2.1.332 "Approved Claude's plan".
	w.waitScreen(pane, `(User approved|Approved) Claude's plan`, 10*time.Second)
	w.waitItem(pane, "the turn after the approved plan", 15*time.Second, func(it client.Item) bool {
		return isStopped(it) && strings.HasPrefix(it.Summary, "done:")
	})
	if strings.Contains(w.screen(pane), "plan mode on") {
		t.Fatalf("still in plan mode after the plan was approved:\n%s", w.screen(pane))
	}
}
