package main

// The real Claude Code 2.1.332 in auto mode, answered by keys (issue 19). With a custom API
// URL (our fake) auto mode's safety check cannot run, so each action that needs it asks
// with an unnumbered dialog, No first ("❯ No / Yes"), that fires no PermissionRequest:
// there is no hook to hold, and an answer from the API is typed into the pane, picking the
// option by its label as the screen draws it.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
)

// autoModeDialog has Claude Code run command and waits until its auto-mode dialog for it
// is on screen. The offer shown before the first one ("Auto mode can't check actions in
// this session") is answered as its person would, once it is read, with Enter: stay in
// auto mode. (Claude Code drops an Enter that comes as a dialog appears: one pressed as
// soon as the offer was seen was lost.)
func (w *claudeWorld) autoModeDialog(pane, command string) {
	w.t.Helper()
	w.typeLine(pane, "run "+command)
	dialog := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(command) + `.*Do you want to proceed\?.*❯ No`)
	const offer = "Enter to stay in auto mode"
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := w.screen(pane)
		switch {
		case dialog.MatchString(s):
			return
		case strings.Contains(s, offer):
			time.Sleep(500 * time.Millisecond)
			w.keys(pane, "Enter")
			for gone := time.Now().Add(5 * time.Second); strings.Contains(w.screen(pane), offer) && time.Now().Before(gone); {
				time.Sleep(50 * time.Millisecond)
			}
		case time.Now().After(deadline):
			w.t.Fatalf("no auto-mode dialog for %q within 30 s; the pane shows:\n%s", command, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// autoModePrompt returns the pending permission record of pane's auto-mode dialog for
// command. The dialog fires no PermissionRequest: the record is the daemon's own, from
// the PreToolUse and the live state.
func (w *claudeWorld) autoModePrompt(pane, command string) *wire.Prompt {
	w.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if it, ok := w.item(pane); ok && it.Prompt != nil && it.Prompt.Kind == wire.KindPermission &&
			strings.Contains(it.Prompt.Question, command) {
			return it.Prompt
		}
	}
	seen := "the pane is not queued"
	if it, ok := w.item(pane); ok {
		seen = fmt.Sprintf("the pane is queued as %s/%s with prompt %+v", it.Reason, it.Detail, it.Prompt)
	}
	w.t.Fatalf("no prompt record for Claude Code %s's auto-mode dialog within 10 s of it being drawn (%s)", w.cc.cli.wanted(), seen)
	return nil
}

// TestRealClaudeCodeAutoModeAnsweredByKeys: an allow from the API moves the highlight onto
// Yes and presses Enter, and the command runs; a deny presses Enter on No, Claude Code says
// "Interrupted" and the command does not run; an answer again is refused.
func TestRealClaudeCodeAutoModeAnsweredByKeys(t *testing.T) {
	w := newClaudeWorld(t, claudeAutoMode())
	pane := w.startClaude()
	w.waitScreen(pane, `auto mode on`, 10*time.Second)
	scratch := t.TempDir() // outside the work folder: auto mode asks before touching it

	// (a) allow: the command runs.
	allowed := filepath.Join(scratch, "allowed.txt")
	w.autoModeDialog(pane, "touch "+allowed)
	p := w.autoModePrompt(pane, "touch "+allowed)
	answered := time.Now()
	got, err := w.answer(p.ID, wire.Answer{Choice: "allow"})
	if err != nil || !got.Delivered || got.Via != wire.ViaKeys {
		t.Fatalf("API allow: %+v, %v; want delivered by keys\nscreen:\n%s", got, err, w.screen(pane))
	}
	t.Logf("API allow: %+v, answered in %v", got, time.Since(answered).Round(time.Millisecond))
	w.tm.WaitFor(t, "the allowed command to run", 15*time.Second, func() bool { return fileExists(allowed) })
	t.Logf("the allowed command ran %v after the answer was sent", time.Since(answered).Round(time.Millisecond))
	var refused *client.AnswerRefusedError
	if _, err := w.answer(p.ID, wire.Answer{Choice: "allow"}); !errors.As(err, &refused) {
		t.Fatalf("the same allow again: %v; want a 409", err)
	}
	w.waitItem(pane, "the turn after the allowed command", 20*time.Second, func(it client.Item) bool {
		return isStopped(it) && strings.HasPrefix(it.Summary, "done:")
	})

	// (b) deny: the command does not run, and Claude Code waits for its person.
	denied := filepath.Join(scratch, "denied.txt")
	w.autoModeDialog(pane, "touch "+denied)
	p = w.autoModePrompt(pane, "touch "+denied)
	got, err = w.answer(p.ID, wire.Answer{Choice: "deny", Channel: "popup"})
	if err != nil || !got.Delivered || got.Via != wire.ViaKeys {
		t.Fatalf("API deny: %+v, %v; want delivered by keys\nscreen:\n%s", got, err, w.screen(pane))
	}
	w.waitScreen(pane, `Interrupted`, 10*time.Second)
	it, took := w.waitItem(pane, "the refused session to be queued again", 10*time.Second, isStopped)
	t.Logf("API deny: %+v; queued again in %v: %+v", got, took, it)
	time.Sleep(time.Second) // a command that was let through would have run by now
	if _, err := os.Stat(denied); err == nil {
		t.Fatal("the denied command ran")
	}
}
