package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
)

// TestTheEnginePairsADialogWithItsCall: the engine, as NewEngine makes it and with nothing
// wired to it, keeps the book of dialogs on its own write path. A dialog its live state
// queued before any hook said what for takes the words and a record of the call announced
// next; a call announced while no dialog is open queues nothing, and a call that already
// ran is no later dialog's.
func TestTheEnginePairsADialogWithItsCall(t *testing.T) {
	ctx := context.Background()
	e, _ := newEngine(t)
	call := func(id string, sec float64) adapter.Event {
		ev := event("A", adapter.KindTouch, at(sec), "")
		ev.Call = claude.PendingCall(id, "Bash", "auto", []byte(`{"command":"touch x"}`))
		return ev
	}
	ingest(t, e, event("A", adapter.KindStart, at(1), "%1"))
	e.NoteLive(adapter.LiveState{Harness: adapter.HarnessClaude, SessionID: "A", Status: adapter.LiveBusy, At: at(1.5)})
	ingest(t, e, call("toolu_0", 2)) // announced while it works: no dialog to pair with
	if s := session(t, e, "A"); s.Stuck {
		t.Fatalf("a call announced with no dialog open queued the session: %+v", s)
	}
	done := event("A", adapter.KindUnstuck, at(2.5), "")
	done.Call = &adapter.ToolCall{ID: "toolu_0", Done: true, Tool: "Bash"}
	ingest(t, e, done)
	if !e.CallOver("A", "toolu_0") {
		t.Fatal("a call that ran is not over in the book")
	}

	// The dialog opens; no hook says for what: queued in the live state's words.
	waiting := adapter.LiveState{Harness: adapter.HarnessClaude, SessionID: "A", Status: adapter.LiveWaiting,
		WaitingFor: adapter.WaitingPermission, At: at(3)}
	e.NoteLive(waiting)
	s := session(t, e, "A")
	ev, ok := liverule.Event(s, e.LiveView(s), waiting)
	if !ok || ev.Summary != "Claude Code asks permission; no hook said for what: see its pane" {
		t.Fatalf("the dialog with no call known: %v %+v", ok, ev)
	}
	if err := e.Take(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if p := e.LatestPrompt("A"); p != nil && p.Pending(e.now()) {
		t.Fatalf("a dialog whose call is unknown has a record that takes answers: %+v", p)
	}

	// Its call is announced: the dialog takes its words and a record of allow or deny.
	ingest(t, e, call("toolu_1", 3.1))
	s = session(t, e, "A")
	if !s.Stuck || s.Reason != adapter.ReasonPermission || s.Detail != "Bash" || !strings.Contains(s.Summary, "touch x") || !s.Since.Equal(at(3)) {
		t.Fatalf("after the call was announced: %+v", s)
	}
	p := e.LatestPrompt("A")
	if p == nil || p.Status != queue.PromptPending || p.Ask.Kind != adapter.AskPermission {
		t.Fatalf("after the call was announced, record %+v, want a pending allow/deny", p)
	}
}

// TestLiveWordsComeFromTheRegistry: the words of a harness's waits are its registry
// entry's (harnesses.go); one with none is named by its protocol name.
func TestLiveWordsComeFromTheRegistry(t *testing.T) {
	e, _ := newEngine(t)
	w := e.LiveWords(adapter.HarnessClaude)
	if w.Name != "Claude Code" || w.Dialog == nil {
		t.Fatalf("Claude Code's words: %+v", w)
	}
	auto := claude.PendingCall("toolu_1", "Bash", "auto", []byte(`{"command":"touch x"}`))
	if got := w.Dialog(*auto); !strings.HasPrefix(got, "auto mode can't check actions in this session") {
		t.Fatalf("Claude Code's words for a dialog before an auto-mode call: %q", got)
	}
	if got := w.Dialog(*claude.PendingCall("toolu_2", "Bash", "default", []byte(`{"command":"touch x"}`))); got != "" {
		t.Fatalf("Claude Code's words for a dialog before a default-mode call: %q, want none of its own", got)
	}
	if w := e.LiveWords("no-such-harness"); w.Name != "no-such-harness" || w.Dialog != nil {
		t.Fatalf("a harness with no words: %+v", w)
	}
}
