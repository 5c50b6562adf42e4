package watch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/queue"
)

func TestLiveEvent(t *testing.T) {
	onDialog := queue.Session{ID: "S", Harness: claude.Harness, Stuck: true, Reason: adapter.ReasonPermission,
		Summary: "Bash: sleep 8", Since: at(10), LastEventAt: at(10)}
	stopped := onDialog
	stopped.Reason, stopped.Summary = adapter.ReasonStopped, "All done."
	working := queue.Session{ID: "S", Harness: claude.Harness, LastEventAt: at(10)}
	codex := onDialog
	codex.Harness = "codex"
	state := func(status string, sec float64) claude.LiveState {
		return claude.LiveState{Harness: claude.Harness, SessionID: "S", Status: status, At: at(sec)}
	}
	tests := []struct {
		name string
		s    queue.Session
		st   claude.LiveState
		want string // "unstuck", "refused" or "" for nothing
	}{
		{"approved: busy after the dialog opened", onDialog, state(claude.LiveBusy, 12), "unstuck"},
		{"busy from before the dialog", onDialog, state(claude.LiveBusy, 9), ""},
		{"busy at the very moment it got stuck", onDialog, state(claude.LiveBusy, 10), ""},
		{"Esc at the dialog: idle after it opened", onDialog, state(claude.LiveIdle, 12), "refused"},
		{"the dialog itself", onDialog, state(claude.LiveWaiting, 10.1), ""},
		{"a stopped session goes idle: nothing new", stopped, state(claude.LiveIdle, 12), ""},
		{"a stopped session goes busy: its human typed", stopped, state(claude.LiveBusy, 12), "unstuck"},
		{"a working session: hooks and transcript tell", working, state(claude.LiveIdle, 12), ""},
		{"an unknown status of a newer version", onDialog, state("thinking", 12), ""},
		{"not a Claude Code session", codex, state(claude.LiveBusy, 12), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := liveEvent(tt.s, liveView{prev: state(claude.LiveIdle, 1)}, tt.st)
			got := ""
			switch {
			case ok && ev.Kind == adapter.KindUnstuck:
				got = "unstuck"
			case ok && ev.Kind == adapter.KindStuck && ev.Detail == DetailRefused:
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
	working := queue.Session{ID: "S", Harness: claude.Harness, LastEventAt: at(10)}
	stopped := queue.Session{ID: "S", Harness: claude.Harness, Stuck: true, Reason: adapter.ReasonStopped, Summary: "hi",
		Since: at(10), LastEventAt: at(10)}
	byHook := queue.Session{ID: "S", Harness: claude.Harness, Stuck: true, Reason: adapter.ReasonPermission, Detail: "Bash",
		Summary: "Bash: make", Since: at(10), LastEventAt: at(10)}
	asking := byHook
	asking.Detail, asking.Summary = DetailAsking, "Claude Code asks permission; no hook said for what: see its pane"
	call := claude.PendingCall("toolu_1", "Bash", "auto", []byte(`{"command":"touch x"}`))
	question := claude.PendingCall("toolu_2", "AskUserQuestion", "auto",
		[]byte(`{"questions":[{"question":"Which colour?","options":[{"label":"Red"},{"label":"Blue"}]}]}`))
	liveAsks := byHook
	liveAsks.Detail, liveAsks.Summary = claude.DetailQuestion, liveQuestion
	hookAsks := byHook
	hookAsks.Detail, hookAsks.Summary = claude.DetailQuestion, "Which colour? [Red / Blue]"
	busy := claude.LiveState{Harness: claude.Harness, SessionID: "S", Status: claude.LiveBusy}
	waiting := func(what string, sec float64) claude.LiveState {
		return claude.LiveState{Harness: claude.Harness, SessionID: "S", Status: claude.LiveWaiting, WaitingFor: what, At: at(sec)}
	}
	idle := func(status string, sec float64) claude.LiveState {
		return claude.LiveState{Harness: claude.Harness, SessionID: "S", Status: status, At: at(sec)}
	}
	turnTail := &claude.Line{Conversation: true, State: claude.TailWaiting, Text: "hi there", At: at(11)}
	oldTail := &claude.Line{Conversation: true, State: claude.TailWaiting, Text: "hi there", At: at(9)}
	interrupted := &claude.Line{Conversation: true, State: claude.TailWaiting, Interrupt: true, Detail: claude.DetailInterrupted, At: at(11)}
	tests := []struct {
		name string
		s    queue.Session
		v    liveView
		st   claude.LiveState
		want string // kind/reason/detail/by and the summary's words, or "" for nothing
	}{
		{"a permission with its call", working, liveView{call: call}, waiting(claude.WaitingPermission, 12), "stuck/permission/Bash Bash: touch x"},
		{"a permission no one named", working, liveView{}, waiting(claude.WaitingPermission, 12), "stuck/permission/asking see its pane"},
		{"a question no hook put", working, liveView{}, waiting(claude.WaitingInput, 12), "stuck/permission/question a question"},
		{"the auto-mode offer", working, liveView{call: call}, waiting(claude.WaitingDialog, 12), "stuck/permission/dialog auto mode can't check actions"},
		{"a dialog of another kind", working, liveView{}, waiting("something new", 12), "stuck/permission/dialog waits: something new"},
		{"a hook's words stand", byHook, liveView{call: call}, waiting(claude.WaitingPermission, 12), ""},
		{"a question its transcript put", working, liveView{call: question}, waiting(claude.WaitingInput, 12), "stuck/permission/question Which colour? [Red / Blue]"},
		{"a question in words at last", liveAsks, liveView{call: question}, waiting(claude.WaitingInput, 12), "stuck/permission/question Which colour? [Red / Blue]"},
		{"a question a hook put stands", hookAsks, liveView{}, waiting(claude.WaitingInput, 12), ""},
		{"the call, once known", asking, liveView{call: call}, waiting(claude.WaitingPermission, 12), "stuck/permission/Bash Bash: touch x"},
		{"the same words again", asking, liveView{}, waiting(claude.WaitingPermission, 12), ""},
		{"a stopped session asks (a woken turn)", stopped, liveView{call: call}, waiting(claude.WaitingPermission, 12), "stuck/permission/Bash Bash: touch x"},
		{"a wait from before the stop", stopped, liveView{call: call}, waiting(claude.WaitingPermission, 9), ""},
		{"a turn's end", working, liveView{prev: busy, tail: turnTail}, idle(claude.LiveIdle, 12), "stuck/stopped/ hi there"},
		{"a turn's end, a task in the background", working, liveView{prev: busy, tail: turnTail}, idle(claude.LiveShell, 12), "stuck/stopped/ hi there"},
		{"idle at the start", working, liveView{}, idle(claude.LiveIdle, 12), ""},
		{"first seen at its prompt after a turn", working, liveView{tail: turnTail}, idle(claude.LiveIdle, 12), "stuck/stopped/ hi there (backup)"},
		{"first seen with no turn yet", working, liveView{tail: &claude.Line{Conversation: true, State: claude.TailWorking}}, idle(claude.LiveIdle, 12), ""},
		{"busy, hooks will say who", stopped, liveView{hooked: true}, idle(claude.LiveBusy, 12), "unstuck// by unknown"},
		{"busy, no hooks: the turn's end will say who", stopped, liveView{}, idle(claude.LiveBusy, 12), "unstuck// by unknown"},
		{"a turn a task woke ends", working, liveView{prev: busy, tail: turnTail, turnBy: adapter.ByOther}, idle(claude.LiveIdle, 12), "stuck/stopped/ hi there by other"},
		{"a turn its operator's prompt began ends", working, liveView{prev: busy, tail: turnTail, turnBy: adapter.ByHuman, hooked: true}, idle(claude.LiveIdle, 12), "stuck/stopped/ hi there by human"},
		{"without hooks, a turn no one says who began is its operator's", working, liveView{prev: busy, tail: turnTail}, idle(claude.LiveIdle, 12), "stuck/stopped/ hi there by human"},
		{"with hooks, the prompt's hook said who", working, liveView{prev: busy, tail: turnTail, hooked: true}, idle(claude.LiveIdle, 12), "stuck/stopped/ hi there by "},
		{"a dialog answered", byHook, liveView{hooked: true}, idle(claude.LiveBusy, 12), "unstuck// by human"},
		{"a dialog answered, its turn over before busy was read", byHook, liveView{hooked: true, tail: turnTail}, idle(claude.LiveIdle, 12), "stuck/stopped/ hi there"},
		{"a dialog dismissed: the turn's end is from before it", byHook, liveView{hooked: true, tail: oldTail}, idle(claude.LiveIdle, 12), "stuck/stopped/refused refused with Esc: Bash: make"},
		{"a dialog dismissed: an interrupt marker", byHook, liveView{hooked: true, tail: interrupted}, idle(claude.LiveIdle, 12), "stuck/stopped/refused refused with Esc: Bash: make"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := liveEvent(tt.s, tt.v, tt.st)
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
