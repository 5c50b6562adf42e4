package liverule_test

import (
	"testing"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
)

// TestWordsNameTheHarness: a wait no hook put in words is named after the harness its
// registry entry names, in the very words Claude Code's sessions have always shown; a
// harness with no dialog words of its own gets the plain ones, never another's.
func TestWordsNameTheHarness(t *testing.T) {
	working := queue.Session{ID: "S", Harness: adapter.HarnessClaude, LastEventAt: at(10)}
	auto := claudeTranscripts.PendingCall("toolu_1", "Bash", "auto", []byte(`{"command":"touch x"}`))
	other := liverule.Words{Name: "Another CLI"}
	for _, tt := range []struct {
		name       string
		words      liverule.Words
		call       *adapter.ToolCall
		waitingFor string
		detail     string
		summary    string
	}{
		{"a permission no one named", claudeWords, nil, adapter.WaitingPermission,
			liverule.DetailAsking, "Claude Code asks permission; no hook said for what: see its pane"},
		{"a question", claudeWords, nil, adapter.WaitingInput,
			adapter.DetailQuestion, "Claude Code asks a question: see its pane"},
		{"a dialog", claudeWords, nil, adapter.WaitingDialog,
			liverule.DetailDialog, "Claude Code shows a dialog: answer it in its pane"},
		{"the auto-mode offer", claudeWords, auto, adapter.WaitingDialog,
			liverule.DetailDialog, "auto mode can't check actions in this session: choose in the pane to approve each one yourself or to leave auto mode (next: Bash: touch x)"},
		{"something a newer version waits for", claudeWords, nil, "something new",
			liverule.DetailDialog, "Claude Code waits: something new"},
		{"another harness's question", other, nil, adapter.WaitingInput,
			adapter.DetailQuestion, "Another CLI asks a question: see its pane"},
		{"another harness's dialog, with an auto-mode call", other, auto, adapter.WaitingDialog,
			liverule.DetailDialog, "Another CLI shows a dialog: answer it in its pane"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := working
			st := adapter.LiveState{Harness: s.Harness, SessionID: "S", Status: adapter.LiveWaiting, WaitingFor: tt.waitingFor, At: at(12)}
			ev, ok := liverule.Event(s, liverule.View{Call: tt.call, Words: tt.words}, st)
			if !ok || ev.Detail != tt.detail || ev.Summary != tt.summary {
				t.Fatalf("got %v %q %q, want %q %q", ok, ev.Detail, ev.Summary, tt.detail, tt.summary)
			}
			if ev.Ask == nil || ev.Ask.Kind != adapter.AskNone {
				t.Fatalf("ask %+v, want one answered in the pane (nothing approved blind)", ev.Ask)
			}
			// Once queued so, the words are the live state's own: a call's may replace them.
			s.Stuck, s.Reason, s.Detail, s.Summary, s.Since = true, adapter.ReasonPermission, ev.Detail, ev.Summary, at(12)
			if !liverule.WordsOnly(s, tt.words) {
				t.Fatalf("WordsOnly(%q) is false for the live state's own words", ev.Summary)
			}
		})
	}
	// A question in a hook's words is not the live state's.
	hooked := queue.Session{ID: "S", Stuck: true, Reason: adapter.ReasonPermission, Detail: adapter.DetailQuestion, Summary: "Which colour?"}
	if liverule.WordsOnly(hooked, claudeWords) {
		t.Fatal("a hook's question counts as the live state's words")
	}
}
