package liverule_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// at returns t0 plus sec seconds (fractions allowed).
func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// Claude Code's transcript reader and words, as the daemon's registry gives them
// (daemon/harnesses.go), which the fixtures are written for.
var (
	claudeTranscripts = claude.Transcripts{}
	claudeWords       = liverule.Words{Name: claude.Name, Dialog: claude.DialogWords}
)

func TestLiveEvent(t *testing.T) {
	onDialog := queue.Session{ID: "S", Harness: adapter.HarnessClaude, Stuck: true, Reason: adapter.ReasonPermission,
		Summary: "Bash: sleep 8", Since: at(10), LastEventAt: at(10)}
	stopped := onDialog
	stopped.Reason, stopped.Summary = adapter.ReasonStopped, "All done."
	working := queue.Session{ID: "S", Harness: adapter.HarnessClaude, LastEventAt: at(10)}
	codex := onDialog
	codex.Harness = "codex"
	state := func(status string, sec float64) adapter.LiveState {
		return adapter.LiveState{Harness: adapter.HarnessClaude, SessionID: "S", Status: status, At: at(sec)}
	}
	tests := []struct {
		name string
		s    queue.Session
		st   adapter.LiveState
		want string // "unstuck", "refused" or "" for nothing
	}{
		{"approved: busy after the dialog opened", onDialog, state(adapter.LiveBusy, 12), "unstuck"},
		{"busy from before the dialog", onDialog, state(adapter.LiveBusy, 9), ""},
		{"busy at the very moment it got stuck", onDialog, state(adapter.LiveBusy, 10), ""},
		{"Esc at the dialog: idle after it opened", onDialog, state(adapter.LiveIdle, 12), "refused"},
		{"the dialog itself", onDialog, state(adapter.LiveWaiting, 10.1), ""},
		{"a stopped session goes idle: nothing new", stopped, state(adapter.LiveIdle, 12), ""},
		{"a stopped session goes busy: its human typed", stopped, state(adapter.LiveBusy, 12), "unstuck"},
		{"a working session: hooks and transcript tell", working, state(adapter.LiveIdle, 12), ""},
		{"an unknown status of a newer version", onDialog, state("thinking", 12), ""},
		{"not a Claude Code session", codex, state(adapter.LiveBusy, 12), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := liverule.Event(tt.s, liverule.View{Prev: state(adapter.LiveIdle, 1)}, tt.st)
			got := ""
			switch {
			case ok && ev.Kind == adapter.KindUnstuck:
				got = "unstuck"
			case ok && ev.Kind == adapter.KindStuck && ev.Detail == liverule.DetailRefused:
				got = "refused"
			case ok:
				got = fmt.Sprintf("%+v", ev)
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if ok {
				if err := ev.Validate(); err != nil || !ev.At.Equal(tt.st.At) || ev.SessionID != "S" {
					t.Fatalf("event %+v (validate: %v)", ev, err)
				}
			}
		})
	}
}

// TestLiveEventSince2332: the rules 2.1.332's states add. Each row is a session, what the
// daemon knows beside it, a state, and what the rule says.
func TestLiveEventSince2332(t *testing.T) {
	working := queue.Session{ID: "S", Harness: adapter.HarnessClaude, LastEventAt: at(10)}
	stopped := queue.Session{ID: "S", Harness: adapter.HarnessClaude, Stuck: true, Reason: adapter.ReasonStopped, Summary: "hi",
		Since: at(10), LastEventAt: at(10)}
	byHook := queue.Session{ID: "S", Harness: adapter.HarnessClaude, Stuck: true, Reason: adapter.ReasonPermission, Detail: "Bash",
		Summary: "Bash: make", Since: at(10), LastEventAt: at(10)}
	asking := byHook
	asking.Detail, asking.Summary = liverule.DetailAsking, "Claude Code asks permission; no hook said for what: see its pane"
	call := claudeTranscripts.PendingCall("toolu_1", "Bash", "auto", []byte(`{"command":"touch x"}`))
	question := claudeTranscripts.PendingCall("toolu_2", "AskUserQuestion", "auto",
		[]byte(`{"questions":[{"question":"Which colour?","options":[{"label":"Red"},{"label":"Blue"}]}]}`))
	liveAsks := byHook
	liveAsks.Detail, liveAsks.Summary = adapter.DetailQuestion, claudeWords.Question()
	hookAsks := byHook
	hookAsks.Detail, hookAsks.Summary = adapter.DetailQuestion, "Which colour? [Red / Blue]"
	busy := adapter.LiveState{Harness: adapter.HarnessClaude, SessionID: "S", Status: adapter.LiveBusy}
	waiting := func(what string, sec float64) adapter.LiveState {
		return adapter.LiveState{Harness: adapter.HarnessClaude, SessionID: "S", Status: adapter.LiveWaiting, WaitingFor: what, At: at(sec)}
	}
	idle := func(status string, sec float64) adapter.LiveState {
		return adapter.LiveState{Harness: adapter.HarnessClaude, SessionID: "S", Status: status, At: at(sec)}
	}
	turnTail := &adapter.TranscriptLine{Conversation: true, State: adapter.TailWaiting, Text: "hi there", At: at(11)}
	oldTail := &adapter.TranscriptLine{Conversation: true, State: adapter.TailWaiting, Text: "hi there", At: at(9)}
	interrupted := &adapter.TranscriptLine{Conversation: true, State: adapter.TailWaiting, Interrupt: true, Detail: adapter.DetailInterrupted, At: at(11)}
	tests := []struct {
		name string
		s    queue.Session
		v    liverule.View
		st   adapter.LiveState
		want string // kind/reason/detail/by and the summary's words, or "" for nothing
	}{
		{"a permission with its call", working, liverule.View{Call: call}, waiting(adapter.WaitingPermission, 12), "stuck/permission/Bash Bash: touch x"},
		{"a permission no one named", working, liverule.View{}, waiting(adapter.WaitingPermission, 12), "stuck/permission/asking see its pane"},
		{"a question no hook put", working, liverule.View{}, waiting(adapter.WaitingInput, 12), "stuck/permission/question a question"},
		{"the auto-mode offer", working, liverule.View{Call: call}, waiting(adapter.WaitingDialog, 12), "stuck/permission/dialog auto mode can't check actions"},
		{"a dialog of another kind", working, liverule.View{}, waiting("something new", 12), "stuck/permission/dialog waits: something new"},
		{"a hook's words stand", byHook, liverule.View{Call: call}, waiting(adapter.WaitingPermission, 12), ""},
		{"a question its transcript put", working, liverule.View{Call: question}, waiting(adapter.WaitingInput, 12), "stuck/permission/question Which colour? [Red / Blue]"},
		{"a question in words at last", liveAsks, liverule.View{Call: question}, waiting(adapter.WaitingInput, 12), "stuck/permission/question Which colour? [Red / Blue]"},
		{"a question a hook put stands", hookAsks, liverule.View{}, waiting(adapter.WaitingInput, 12), ""},
		{"the call, once known", asking, liverule.View{Call: call}, waiting(adapter.WaitingPermission, 12), "stuck/permission/Bash Bash: touch x"},
		{"the same words again", asking, liverule.View{}, waiting(adapter.WaitingPermission, 12), ""},
		{"a stopped session asks (a woken turn)", stopped, liverule.View{Call: call}, waiting(adapter.WaitingPermission, 12), "stuck/permission/Bash Bash: touch x"},
		{"a wait from before the stop", stopped, liverule.View{Call: call}, waiting(adapter.WaitingPermission, 9), ""},
		{"a turn's end", working, liverule.View{Prev: busy, Tail: turnTail}, idle(adapter.LiveIdle, 12), "stuck/stopped/ hi there"},
		{"a turn's end, a task in the background", working, liverule.View{Prev: busy, Tail: turnTail}, idle(adapter.LiveShell, 12), "stuck/stopped/ hi there"},
		{"idle at the start", working, liverule.View{}, idle(adapter.LiveIdle, 12), ""},
		{"first seen at its prompt after a turn", working, liverule.View{Tail: turnTail}, idle(adapter.LiveIdle, 12), "stuck/stopped/ hi there (backup)"},
		{"first seen with no turn yet", working, liverule.View{Tail: &adapter.TranscriptLine{Conversation: true, State: adapter.TailWorking}}, idle(adapter.LiveIdle, 12), ""},
		{"busy, hooks will say who", stopped, liverule.View{Hooked: true}, idle(adapter.LiveBusy, 12), "unstuck// by unknown"},
		{"busy, no hooks: the turn's end will say who", stopped, liverule.View{}, idle(adapter.LiveBusy, 12), "unstuck// by unknown"},
		{"a turn a task woke ends", working, liverule.View{Prev: busy, Tail: turnTail, TurnBy: adapter.ByOther}, idle(adapter.LiveIdle, 12), "stuck/stopped/ hi there by other"},
		{"a turn its operator's prompt began ends", working, liverule.View{Prev: busy, Tail: turnTail, TurnBy: adapter.ByHuman, Hooked: true}, idle(adapter.LiveIdle, 12), "stuck/stopped/ hi there by human"},
		{"without hooks, a turn no one says who began is its operator's", working, liverule.View{Prev: busy, Tail: turnTail}, idle(adapter.LiveIdle, 12), "stuck/stopped/ hi there by human"},
		{"with hooks, the prompt's hook said who", working, liverule.View{Prev: busy, Tail: turnTail, Hooked: true}, idle(adapter.LiveIdle, 12), "stuck/stopped/ hi there by "},
		{"a dialog answered", byHook, liverule.View{Hooked: true}, idle(adapter.LiveBusy, 12), "unstuck// by human"},
		{"a dialog answered, its turn over before busy was read", byHook, liverule.View{Hooked: true, Tail: turnTail}, idle(adapter.LiveIdle, 12), "stuck/stopped/ hi there"},
		{"a dialog dismissed: the turn's end is from before it", byHook, liverule.View{Hooked: true, Tail: oldTail}, idle(adapter.LiveIdle, 12), "stuck/stopped/refused refused with Esc: Bash: make"},
		{"a dialog dismissed: an interrupt marker", byHook, liverule.View{Hooked: true, Tail: interrupted}, idle(adapter.LiveIdle, 12), "stuck/stopped/refused refused with Esc: Bash: make"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.v
			v.Words = claudeWords
			ev, ok := liverule.Event(tt.s, v, tt.st)
			got := ""
			if ok {
				got = fmt.Sprintf("%s/%s/%s %s", ev.Kind, ev.Reason, ev.Detail, ev.Summary)
				if ev.Kind == adapter.KindUnstuck {
					got = fmt.Sprintf("%s/%s/%s by %s", ev.Kind, ev.Reason, ev.Detail, ev.By)
				}
				if ev.Kind == adapter.KindStuck && ev.Reason == adapter.ReasonStopped && strings.Contains(tt.want, " by ") {
					got += " by " + ev.By
				}
				if ev.Backup {
					got += " (backup)"
				}
				if err := ev.Validate(); err != nil || ev.At.Before(tt.st.At) {
					t.Fatalf("event %+v (validate: %v)", ev, err)
				}
			}
			head, words, _ := strings.Cut(tt.want, " ")
			gotHead, gotWords, _ := strings.Cut(got, " ")
			backup := strings.HasSuffix(tt.want, "(backup)") != strings.HasSuffix(got, "(backup)")
			if head != gotHead || !strings.Contains(gotWords, words) || backup || (ok && ev.Kind == adapter.KindUnstuck && got != tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
