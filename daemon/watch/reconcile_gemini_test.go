package watch_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/liverule"
)

// Gemini CLI's chat file records, as 0.61.0 writes them (adapter/gemini/testdata).

func geminiPromptJSON(when time.Time, s string) string {
	return jsonl(map[string]any{"id": "u-" + stamp(when), "timestamp": stamp(when), "type": "user",
		"content": []any{map[string]any{"text": s}}})
}

func geminiReplyJSON(when time.Time, s string) string {
	return jsonl(map[string]any{"id": "g-" + stamp(when), "timestamp": stamp(when), "type": "gemini",
		"content": s, "thoughts": []any{}, "tokens": map[string]any{"input": 10, "output": 5, "total": 15}})
}

// geminiCancelledJSON is the reply of when calling a tool, written again once the call
// was cancelled at cancelled.
func geminiCancelledJSON(when, cancelled time.Time) string {
	return jsonl(map[string]any{"id": "g-" + stamp(when), "timestamp": stamp(when), "type": "gemini",
		"content": "", "tokens": map[string]any{"input": 10, "output": 5, "total": 15},
		"toolCalls": []any{map[string]any{"id": "run_shell_command_1", "name": "run_shell_command",
			"args": map[string]any{"command": "touch y"}, "status": "cancelled", "timestamp": stamp(cancelled)}}})
}

func geminiInfoJSON(when time.Time, s string) string {
	return jsonl(map[string]any{"id": "i-" + stamp(when), "timestamp": stamp(when), "type": "info", "content": s})
}

// geminiReplayJSON is what Gemini writes at when, right after a cancel: its history again,
// as new records stamped now (an old prompt, its reply with no token counts) and a $set of
// the messages.
func geminiReplayJSON(when time.Time) []string {
	return []string{
		geminiPromptJSON(when, "<session_context>\nThis is the Gemini CLI."),
		geminiPromptJSON(when, "run touch x"),
		jsonl(map[string]any{"id": "r-" + stamp(when), "timestamp": stamp(when), "type": "gemini",
			"content": []any{map[string]any{"text": "FAKE: tool finished, all done."}}, "tokens": nil}),
		jsonl(map[string]any{"$set": map[string]any{"lastUpdated": stamp(when)}}),
	}
}

// A Gemini session whose AfterAgent hook was lost is queued from its chat file, with the
// reply's words, once the reply stayed quiet for the settle time.
func TestReconcileGeminiLostTurnEnd(t *testing.T) {
	e, _ := newEngine(t)
	r := newReconciler(e, 50*time.Millisecond)
	path := filepath.Join(t.TempDir(), "session-2026-11-21T09-00-abcd1234.jsonl")
	appendLines(t, path, `{"sessionId":"G","startTime":"2026-11-21T09:00:00Z","kind":"main"}`, geminiPromptJSON(at(1), "hello"))
	ev := event("G", adapter.KindStart, at(0), "%1")
	ev.Harness, ev.TranscriptPath = adapter.HarnessGemini, path
	ingest(t, e, ev)
	reconcileNow(t, r, "G")
	if session(t, e, "G").Stuck {
		t.Fatal("queued from a prompt")
	}

	appendLines(t, path, geminiReplyJSON(at(2), "FAKE: hello from the fake model."))
	reconcileNow(t, r, "G")
	settleUntil(t, r, "the lost turn's end to be queued", func() bool { return session(t, e, "G").Stuck })
	s := session(t, e, "G")
	if s.Reason != adapter.ReasonStopped || s.Summary != "FAKE: hello from the fake model." || !s.Since.Equal(at(2)) {
		t.Fatalf("queued as %+v, want stopped since %v with the reply's words", s, at(2))
	}
}

// An Esc at a Gemini permission fires no hook: the cancelled call in the chat file queues
// the session as stopped (refused) at once, and the history Gemini writes again just after
// (an old prompt among it) leaves it queued.
func TestReconcileGeminiEscThenReplay(t *testing.T) {
	e, _ := newEngine(t)
	r := newReconciler(e, time.Hour) // no settle could pass during this test
	path := filepath.Join(t.TempDir(), "session-2026-11-21T09-00-abcd1234.jsonl")
	appendLines(t, path, geminiPromptJSON(at(1), "run touch y"), geminiReplyJSON(at(2), ""))
	ev := event("G", adapter.KindStart, at(0), "%1")
	ev.Harness, ev.TranscriptPath = adapter.HarnessGemini, path
	ingest(t, e, ev)
	reconcileNow(t, r, "G")
	perm := event("G", adapter.KindStuck, at(3), "%1")
	perm.Harness, perm.Reason, perm.Summary = adapter.HarnessGemini, adapter.ReasonPermission, "Shell: touch y"
	ingest(t, e, perm)

	appendLines(t, path, geminiCancelledJSON(at(2), at(4)), geminiInfoJSON(at(4.001), "Request cancelled."))
	reconcileNow(t, r, "G")
	s := session(t, e, "G")
	if !s.Stuck || s.Reason != adapter.ReasonStopped || s.Detail != liverule.DetailRefused {
		t.Fatalf("after the Esc: %+v, want stopped (refused)", s)
	}

	appendLines(t, path, geminiReplayJSON(at(4.002))...)
	reconcileNow(t, r, "G")
	if after := session(t, e, "G"); !after.Stuck || after.Detail != liverule.DetailRefused || !after.Since.Equal(s.Since) || after.Offset != size(t, path) {
		t.Fatalf("after the history was written again: %+v, want still refused since %v, all read", after, s.Since)
	}
	if r.Pending("G") {
		t.Fatal("the replayed history started a wait")
	}
}

// A Gemini session queued at its turn's end whose next prompt's BeforeAgent was lost (and
// whose AfterAgent came before it, or never): the new reply in its chat file says it was
// answered and waits again, with the new words, from the reply's moment.
func TestReconcileGeminiLostPrompt(t *testing.T) {
	e, _ := newEngine(t)
	r := newReconciler(e, 50*time.Millisecond)
	path := filepath.Join(t.TempDir(), "session-2026-11-21T09-00-abcd1234.jsonl")
	appendLines(t, path, geminiPromptJSON(at(1), "hello"), geminiReplyJSON(at(2), "first words"))
	ev := event("G", adapter.KindStart, at(0), "%1")
	ev.Harness, ev.TranscriptPath = adapter.HarnessGemini, path
	ingest(t, e, ev)
	stop := event("G", adapter.KindStuck, at(3), "%1")
	stop.Harness, stop.Summary = adapter.HarnessGemini, "first words"
	ingest(t, e, stop)
	reconcileNow(t, r, "G")
	if s := session(t, e, "G"); !s.Stuck || !s.Since.Equal(at(3)) || s.Summary != "first words" {
		t.Fatalf("the first look moved the stopped session: %+v", s)
	}

	appendLines(t, path, geminiPromptJSON(at(4), "again"), geminiReplyJSON(at(5), "second words"))
	reconcileNow(t, r, "G")
	settleUntil(t, r, "the new turn's end to be queued", func() bool { return session(t, e, "G").Since.Equal(at(5)) })
	if s := session(t, e, "G"); !s.Stuck || s.Reason != adapter.ReasonStopped || s.Summary != "second words" {
		t.Fatalf("after the lost prompt's turn: %+v, want stopped since %v with the new words", s, at(5))
	}
}
