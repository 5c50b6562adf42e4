package main

// Words that match what happened (issue 18, item 10): a permission denied through Trail
// Boss reads "denied from <channel>" on the queue item, in the prompt it asks next (what the
// popup and the phone show) and in the daemon's log — not "refused with Esc", which is what
// the person's own Esc at the dialog reads. Claude Code shows "Interrupted" for both and no
// hook tells them apart. (The key path, a Deny typed by the popup, is in
// testscripts/popup_demo_agent.txtar; the real Claude Code in agents_answer_test.go.)

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
)

// appendTranscript appends lines to a transcript as Claude Code writes them.
func appendTranscript(t *testing.T, path string, lines ...map[string]any) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		b, _ := json.Marshal(l)
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

// deniedToolUse is what Claude Code 2.1.197 writes when a Bash call is refused at its
// dialog: the call, its error result, and the interrupt marker (CLAUDE-CODE.md).
func deniedToolUse(session, command string, at time.Time) []map[string]any {
	line := func(n int, typ string, msg map[string]any) map[string]any {
		return map[string]any{"type": typ, "uuid": "u" + string(rune('0'+n)), "sessionId": session, "isSidechain": false,
			"timestamp": at.Add(time.Duration(n) * time.Millisecond).UTC().Format("2006-01-02T15:04:05.000Z"), "message": msg}
	}
	return []map[string]any{
		line(0, "assistant", map[string]any{"role": "assistant", "stop_reason": "tool_use", "content": []map[string]any{
			{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": command}}}}),
		line(1, "user", map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "toolu_1",
			"is_error": true, "content": "The user doesn't want to proceed with this tool use."}}}),
		line(2, "user", map[string]any{"role": "user", "content": []map[string]any{
			{"type": "text", "text": "[Request interrupted by user for tool use]"}}}),
	}
}

// TestDenyThroughTheHeldHookReadsDenied: the real hook holds a Bash permission, the popup's
// Deny goes through it (Claude Code's "No"), and once Claude Code writes the refusal the
// item reads "denied from the popup", as does the prompt it asks next, and the log. The
// daemon may read the refusal at once, or the refused tool's result first (which moves the
// session on) and the interrupt marker a moment later: both read "denied".
func TestDenyThroughTheHeldHookReadsDenied(t *testing.T) {
	for _, split := range []bool{false, true} {
		name := "read at once"
		if split {
			name = "result first, then the interrupt marker"
		}
		t.Run(name, func(t *testing.T) { denyThroughTheHeldHook(t, split) })
	}
}

func denyThroughTheHeldHook(t *testing.T, split bool) {
	logPath := filepath.Join(t.TempDir(), "daemon.log")
	w := newHoldingWorld(t, "--log-file", logPath)
	const session, command = "deny-1", "touch denied.txt"
	transcript := filepath.Join(t.TempDir(), session+".jsonl")
	appendTranscript(t, transcript) // there, and empty: nothing before the dialog

	var out bytes.Buffer
	hook := exec.Command("trailboss", "emit")
	hook.Env, hook.Stdin, hook.Stdout = w.env, bytes.NewReader(bashPermissionIn(session, command, transcript)), &out
	if err := hook.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- hook.Wait() }()
	t.Cleanup(func() { _ = hook.Process.Kill() })

	var p *wire.Prompt
	waitUntil(t, "the permission's prompt", 10*time.Second, func() bool {
		p = w.pendingPrompt(t, session)
		return p != nil && p.Kind == wire.KindPermission
	})
	got, err := w.answerHeld(t, p.ID, wire.Answer{Choice: "deny", Channel: "popup"})
	if err != nil || got.Via != wire.ViaHook {
		t.Fatalf("deny: %+v, %v; want delivered through the held hook", got, err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the held hook did not exit after the deny")
	}
	if !strings.Contains(out.String(), `"behavior":"deny"`) {
		t.Fatalf("the hook printed %q; want the deny", out.String())
	}

	// Claude Code takes the "No": it writes the refusal, and no hook fires.
	lines := deniedToolUse(session, command, time.Now())
	if split {
		appendTranscript(t, transcript, lines[:2]...)
		waitUntil(t, "the refused tool's result to move the session on", 10*time.Second, func() bool {
			items, err := w.api.Queue(context.Background())
			return err == nil && !queued(items, session)
		})
		lines = lines[2:]
	}
	appendTranscript(t, transcript, lines...)
	const want = "denied from the popup: Bash: " + command
	var it client.Item
	waitUntil(t, "the item to say what became of the permission", 15*time.Second, func() bool {
		items, err := w.api.Queue(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range items {
			if i.SessionID == session && i.Reason == "stopped" {
				it = i
				return true
			}
		}
		return false
	})
	if it.Detail != "denied" || !strings.HasPrefix(it.Summary, want) || strings.Contains(it.Summary, "Esc") {
		t.Fatalf("after the deny the item reads %q (detail %q); want %q…, detail \"denied\"", it.Summary, it.Detail, want)
	}
	if it.Prompt == nil || !strings.HasPrefix(it.Prompt.Question, want) {
		t.Fatalf("the prompt asked next (what the popup and the phone show) is %+v; want one asking %q…", it.Prompt, want)
	}
	waitUntil(t, "the log to say it was denied", 5*time.Second, func() bool {
		b, _ := os.ReadFile(logPath)
		return bytes.Contains(b, []byte(want)) && bytes.Contains(b, []byte("choice=deny"))
	})
	if b, _ := os.ReadFile(logPath); bytes.Contains(b, []byte("refused with Esc")) {
		t.Fatalf("the log says Esc:\n%s", b)
	}
}
