package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		return claude.LiveState{SessionID: "S", Status: status, At: at(sec)}
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
	busy := claude.LiveState{SessionID: "S", Status: claude.LiveBusy}
	waiting := func(what string, sec float64) claude.LiveState {
		return claude.LiveState{SessionID: "S", Status: claude.LiveWaiting, WaitingFor: what, At: at(sec)}
	}
	idle := func(status string, sec float64) claude.LiveState {
		return claude.LiveState{SessionID: "S", Status: status, At: at(sec)}
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

// writeState writes a state file as Claude Code does, whole, for pid.
func writeState(t *testing.T, dir string, pid int, session, status string, when time.Time) {
	t.Helper()
	body := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/w","version":"2.1.197","kind":"interactive","status":%q,"updatedAt":%d,"statusUpdatedAt":%d}`,
		pid, session, status, when.UnixMilli(), when.UnixMilli())
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", pid)), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLiveStatesRun drives the real loop over a configuration folder found from a
// session's transcript path (not the daemon's own), with and without file watching: an
// approval takes the item out, an Esc relabels it, and a reused pid file that now names
// another session does not touch the first.
func TestLiveStatesRun(t *testing.T) {
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			e, _ := newEngine(t)
			cfg := t.TempDir()
			states := filepath.Join(cfg, "sessions")
			if err := os.MkdirAll(states, 0o700); err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			for i, id := range []string{"A", "B"} {
				ev := event(id, adapter.KindStuck, now.Add(-time.Second), "%"+fmt.Sprint(i+1))
				ev.Reason, ev.Summary = adapter.ReasonPermission, "Bash: sleep 8"
				ev.TranscriptPath = filepath.Join(cfg, "projects", "-w", id+".jsonl")
				ingest(t, e, ev)
			}
			l := &LiveStates{Engine: e, Sweep: 50 * time.Millisecond, Watch: watch, Log: discard}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- l.Run(ctx) }()
			defer func() { cancel(); <-done }()
			waitSession := func(id, what string, cond func(queue.Session) bool) {
				t.Helper()
				deadline := time.Now().Add(3 * time.Second)
				for {
					s, _ := e.Session(id)
					if cond(s) {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("timed out waiting for %s: %+v", what, s)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			// pid 100 runs A: approved.
			writeState(t, states, 100, "A", claude.LiveBusy, now)
			waitSession("A", "the approval to take A out", func(s queue.Session) bool { return !s.Stuck })
			// pid 100 is reused by B's process, which the human dismisses with Esc.
			writeState(t, states, 100, "B", claude.LiveIdle, now.Add(time.Millisecond))
			waitSession("B", "the Esc to relabel B", func(s queue.Session) bool {
				return s.Stuck && s.Detail == DetailRefused && s.Reason == adapter.ReasonStopped
			})
			if a, _ := e.Session("A"); a.Stuck {
				t.Fatalf("A was touched by B's state: %+v", a)
			}
			// B's process exits: it removes its file, and B ends.
			if err := os.Remove(filepath.Join(states, "100.json")); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(3 * time.Second)
			for {
				if _, live := e.Session("B"); !live {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("B did not end when its state file was removed")
				}
				time.Sleep(5 * time.Millisecond)
			}
			if _, live := e.Session("A"); !live {
				t.Fatal("A ended with B's process")
			}
		})
	}
}

// TestAnsweredDialogWhoseTurnEndedTakesAPlaceOfItsOwn: a dialog answered and a turn over
// so fast that the busy between was never read (seen under stress -c 2: a plan approved,
// the fake model's reply at once) is a new stop, in a place of its own; not an Esc.
func TestAnsweredDialogWhoseTurnEndedTakesAPlaceOfItsOwn(t *testing.T) {
	e, _ := newEngine(t)
	cfg := t.TempDir()
	states, projects := filepath.Join(cfg, "sessions"), filepath.Join(cfg, "projects", "-w")
	for _, dir := range []string{states, projects} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	asked := time.Now().Add(-2 * time.Second).Truncate(time.Millisecond)
	ev := event("A", adapter.KindStuck, asked, "%1")
	ev.Reason, ev.Detail, ev.Summary = adapter.ReasonPermission, "plan", "plan: 1. Read the code"
	ev.TranscriptPath = filepath.Join(projects, "A.jsonl")
	ingest(t, e, ev)
	ended := asked.Add(time.Second)
	line := fmt.Sprintf(`{"type":"assistant","timestamp":%q,"message":{"content":[{"type":"text","text":"done: the plan is in"}],"stop_reason":"end_turn"}}`+"\n",
		ended.UTC().Format(time.RFC3339Nano))
	if err := os.WriteFile(ev.TranscriptPath, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	idleAt := ended.Add(10 * time.Millisecond)
	writeState(t, states, 100, "A", claude.LiveIdle, idleAt)

	l := &LiveStates{Engine: e, Sweep: 50 * time.Millisecond, Log: discard}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(3 * time.Second)
	for {
		s, _ := e.Session("A")
		if s.Stuck && s.Reason == adapter.ReasonStopped {
			if s.Detail == DetailRefused || s.Summary != "done: the plan is in" || !s.Since.Equal(idleAt) {
				t.Fatalf("the answered dialog's turn end: %+v, want a stop with its words since %v", s, idleAt)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the turn's end was not queued: %+v", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
