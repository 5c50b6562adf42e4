package watch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/liverule"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/watch"
)

// The session of the real Claude Code 2.1.332 fixtures (adapter/claude/testdata/real-2.1.332).
const realSession = "9daaa803-e33f-4f17-a269-9508ecbbe1ff"

// world2332 drives the engine as the daemon does with what the real Claude Code 2.1.332
// sent: its hook payloads (through the hook path) and its state files (through LiveStates),
// each at a time of the test's choosing.
type world2332 struct {
	t    *testing.T
	e    *daemon.Engine
	live *watch.LiveStates
}

func newWorld2332(t *testing.T) *world2332 {
	e, _ := newEngine(t)
	w := &world2332{t: t, e: e, live: &watch.LiveStates{Engine: e, Harness: adapter.HarnessClaude, Source: claudeLive, Transcripts: claudeTranscripts, Log: discard}}
	w.hookJSON(`{"session_id":"`+realSession+`","hook_event_name":"SessionStart","source":"startup"}`, 0)
	return w
}

// fixturePath2332 is the path of the recorded 2.1.332 fixture parts (adapter/claude's
// testdata).
func fixturePath2332(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "adapter", "claude", "testdata", "real-2.1.332"}, parts...)...)
}

func fixture2332(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixturePath2332(parts...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hook ingests the fixture hooks/<mode>/<name> as a hook that ran at sec.
func (w *world2332) hook(mode, name string, sec float64) {
	w.t.Helper()
	w.hookJSON(string(fixture2332(w.t, "hooks", mode, name)), sec)
}

func (w *world2332) hookJSON(body string, sec float64) {
	w.t.Helper()
	in := &daemon.Ingestor{Engine: w.e, Now: time.Now, Log: discard, SocketExists: func(string) bool { return true }}
	res, err := in.Hook(context.Background(), adapter.HarnessClaude, []byte(body), "%0", testSocket+",1,0", at(sec), daemon.Origin{})
	if err != nil || res.Ignored != "" {
		w.t.Fatalf("hook: %v (ignored: %q)", err, res.Ignored)
	}
}

// state applies the state file sessions/auto-mode/<name> as if written at sec.
func (w *world2332) state(name string, sec float64) {
	w.t.Helper()
	st, err := claudeLive.Read(fixturePath2332("sessions", "auto-mode", name))
	if err != nil {
		w.t.Fatal(err)
	}
	st.At = at(sec)
	w.live.TakeNow(context.Background(), "/nowhere/sessions/4069.json", st)
}

func (w *world2332) session() queue.Session {
	w.t.Helper()
	s, ok := w.e.Session(realSession)
	if !ok {
		w.t.Fatal("the session is gone")
	}
	return s
}

// wantQueued fails unless the session is queued for reason with detail, since sec, with a
// summary holding words.
func (w *world2332) wantQueued(what, reason, detail, words string, since float64) queue.Session {
	w.t.Helper()
	s := w.session()
	if !s.Stuck || s.Reason != reason || s.Detail != detail || !strings.Contains(s.Summary, words) || !s.Since.Equal(at(since)) {
		w.t.Fatalf("%s: %+v, want queued %s/%s %q since %v", what, s, reason, detail, words, at(since))
	}
	return s
}

func (w *world2332) wantOut(what string) {
	w.t.Helper()
	if s := w.session(); s.Stuck {
		w.t.Fatalf("%s: still queued: %+v", what, s)
	}
}

// wantRecord fails unless the session's pending prompt record asks allow or deny for
// question, as the harness claude, and returns it.
func (w *world2332) wantRecord(what, question string) queue.Prompt {
	w.t.Helper()
	p, ok := w.e.PendingPrompt(realSession)
	if !ok || p.Ask.Kind != adapter.AskPermission || p.Ask.Question != question || p.Harness != adapter.HarnessClaude ||
		len(p.Ask.Choices) != 2 || p.Ask.Choices[0].Key != "allow" || p.Ask.Choices[1].Key != "deny" || p.Ask.Subject == "" {
		w.t.Fatalf("%s: record %+v (pending %v), want allow/deny for %q", what, p, ok, question)
	}
	return p
}

func (w *world2332) wantNoRecord(what string) {
	w.t.Helper()
	if p, ok := w.e.PendingPrompt(realSession); ok {
		w.t.Fatalf("%s: a record takes answers: %+v", what, p)
	}
}

const touchCmd = "Bash: touch /tmp/scratch/touched-by-claude"

// TestAutoModePermissionWithItsCommand: the real auto-mode sequence, in both orders the
// PreToolUse and the state file can arrive in. A PreToolUse alone queues nothing; the
// dialog is queued with its command and a record that takes allow or deny, which no hook
// holds; the approval takes it out.
func TestAutoModePermissionWithItsCommand(t *testing.T) {
	t.Run("PreToolUse first", func(t *testing.T) {
		w := newWorld2332(t)
		w.hook("auto-mode", "UserPromptSubmit.json", 1)
		w.state("busy.json", 1.01)
		w.hook("auto-mode", "PreToolUse-Bash.json", 1.5)
		w.wantOut("a PreToolUse alone")
		w.state("waiting-permission.json", 1.55)
		w.wantQueued("the dialog", adapter.ReasonPermission, "Bash", touchCmd, 1.55)
		w.wantRecord("the dialog", touchCmd)
		w.state("busy-at-approval.json", 4)
		w.wantOut("the approval")
		w.hook("auto-mode", "PostToolUse-Bash.json", 4.3)
		w.wantOut("the command ran")
	})
	t.Run("state file first, its PreToolUse stamped later", func(t *testing.T) {
		w := newWorld2332(t)
		w.hook("auto-mode", "UserPromptSubmit.json", 1)
		w.state("busy.json", 1.01)
		w.state("waiting-permission.json", 1.5)
		w.wantQueued("the dialog before its call is known", adapter.ReasonPermission, liverule.DetailAsking, "see its pane", 1.5)
		w.wantNoRecord("a dialog whose command is not known (nothing is approved blind)")
		w.hook("auto-mode", "PreToolUse-Bash.json", 1.6)
		w.wantQueued("the dialog once its call is known", adapter.ReasonPermission, "Bash", touchCmd, 1.5)
		w.wantRecord("the dialog once its call is known", touchCmd)
		w.state("busy-at-approval.json", 4)
		w.wantOut("the approval")
	})
	t.Run("Esc", func(t *testing.T) {
		w := newWorld2332(t)
		w.hook("auto-mode", "UserPromptSubmit.json", 1)
		w.hook("auto-mode", "PreToolUse-Bash.json", 1.5)
		w.state("waiting-permission.json", 1.55)
		w.state("idle-at-start.json", 3)
		s := w.wantQueued("Esc at the dialog", adapter.ReasonStopped, liverule.DetailRefused, "touch /tmp/scratch/touched-by-claude", 1.55)
		if !strings.Contains(s.Summary, "waiting for your next message") {
			t.Fatalf("refused words: %q", s.Summary)
		}
	})
	t.Run("the prompt's hook after the PreToolUse, dated before it", func(t *testing.T) {
		// Hooks race: the prompt's hook, started first, came in after the PreToolUse
		// (under stress -c 2) and is dated before it. The call it came too late to open
		// is not over.
		w := newWorld2332(t)
		w.hook("auto-mode", "PreToolUse-Bash.json", 1.5)
		w.hook("auto-mode", "UserPromptSubmit.json", 1.4)
		w.state("waiting-permission.json", 1.55)
		w.wantQueued("the dialog", adapter.ReasonPermission, "Bash", touchCmd, 1.55)
		w.wantRecord("the dialog", touchCmd)
	})
	t.Run("the 6 s reminder without a state file", func(t *testing.T) {
		w := newWorld2332(t)
		w.hook("auto-mode", "UserPromptSubmit.json", 1)
		w.hook("auto-mode", "PreToolUse-Bash.json", 1.5)
		w.hook("auto-mode", "Notification-permission_prompt.json", 7.5)
		w.wantQueued("the reminder", adapter.ReasonPermission, "Bash", touchCmd, 7.5)
		w.wantRecord("the reminder", touchCmd)
	})
}

// hookMidway is the engine as LiveStates sees it, with a hook that runs once between a
// reading's decision and its apply: the moment a loaded machine lets a hook in.
type hookMidway struct {
	*daemon.Engine
	hook func()
}

func (h *hookMidway) midway() {
	if h.hook != nil {
		run := h.hook
		h.hook = nil
		run()
	}
}

func (h *hookMidway) Take(ctx context.Context, ev adapter.Event) error {
	h.midway()
	return h.Engine.Take(ctx, ev)
}

func (h *hookMidway) TakeIf(ctx context.Context, ev adapter.Event, basis queue.Session) error {
	h.midway()
	return h.Engine.TakeIf(ctx, ev, basis)
}

// TestADialogsCallThatComesWhileItsStateIsDecidedOn: stress run 16. The state file said a
// permission dialog was open, and LiveStates decided on it knowing no call ("asking"); the
// PreToolUse came in before that decision was applied and queued the dialog with its
// command and a record. The stale "asking" then replaced those words and withdrew the
// record, and the next pairing, of the same call, did not open it again: the operator
// saw the command and could not answer it. A decision made on a session that has changed
// since is made again.
func TestADialogsCallThatComesWhileItsStateIsDecidedOn(t *testing.T) {
	w := newWorld2332(t)
	w.hook("auto-mode", "UserPromptSubmit.json", 1)
	w.state("busy.json", 1.01)
	midway := &hookMidway{Engine: w.e, hook: func() { w.hook("auto-mode", "PreToolUse-Bash.json", 1.5) }}
	w.live.Engine = midway
	w.state("waiting-permission.json", 1.55)
	if midway.hook != nil {
		t.Fatal("the reading was not applied: the test did not run the race")
	}
	w.wantQueued("the dialog", adapter.ReasonPermission, "Bash", touchCmd, 1.55)
	w.wantRecord("the dialog", touchCmd)
}

// TestTwoDialogsInARow: the second dialog never shows the first's command, even when its
// state file comes before its PreToolUse and the first call's PostToolUse.
func TestTwoDialogsInARow(t *testing.T) {
	w := newWorld2332(t)
	w.hook("auto-mode", "UserPromptSubmit.json", 1)
	w.hook("auto-mode", "PreToolUse-Bash.json", 1.5)
	w.state("waiting-permission.json", 1.55)
	first := w.wantRecord("the first dialog", touchCmd)
	w.state("busy-at-approval.json", 3)
	w.wantOut("the first approval")
	w.state("waiting-permission.json", 3.4) // the second dialog; nothing said what for yet
	w.wantQueued("the second dialog", adapter.ReasonPermission, liverule.DetailAsking, "see its pane", 3.4)
	w.wantNoRecord("the second dialog before its call")
	w.hook("auto-mode", "PostToolUse-Bash.json", 3.3)
	second := strings.Replace(string(fixture2332(t, "hooks", "auto-mode", "PreToolUse-Bash.json")), "touched-by-claude", "second-of-two", 1)
	second = strings.Replace(second, "toolu_e80ebeb42ef54ba69c928ddf", "toolu_second", 1)
	w.hookJSON(second, 3.35)
	w.wantQueued("the second dialog", adapter.ReasonPermission, "Bash", "touch /tmp/scratch/second-of-two", 3.4)
	if p := w.wantRecord("the second dialog", "Bash: touch /tmp/scratch/second-of-two"); p.ID == first.ID {
		t.Fatal("the second dialog kept the first's record")
	}
	// A late PreToolUse of the first call (its hook slow to start) is not taken for it.
	w.hook("auto-mode", "PreToolUse-Bash.json", 3.5)
	w.wantRecord("after a late first PreToolUse", "Bash: touch /tmp/scratch/second-of-two")
}

// TestAutoModeOffer: "Auto mode can't check actions in this session" is queued while it is
// up, saying what it is, and answered in its pane; the dialog after it keeps its place.
func TestAutoModeOffer(t *testing.T) {
	w := newWorld2332(t)
	w.hook("auto-mode", "UserPromptSubmit.json", 1)
	w.hook("auto-mode", "PreToolUse-Bash.json", 1.5)
	w.state("waiting-end-offer.json", 1.6)
	s := w.wantQueued("the offer", adapter.ReasonPermission, liverule.DetailDialog, "auto mode can't check actions", 1.6)
	if !strings.Contains(s.Summary, touchCmd) {
		t.Fatalf("the offer does not say what waits behind it: %q", s.Summary)
	}
	w.wantNoRecord("the offer")
	w.hook("auto-mode", "Notification-agent_needs_input.json", 7.6)
	w.wantQueued("the offer's reminder", adapter.ReasonPermission, liverule.DetailDialog, "auto mode can't check actions", 1.6)
	w.wantNoRecord("the offer's reminder")
	w.state("waiting-permission-after-end-offer.json", 9)
	w.wantQueued("the dialog behind the offer", adapter.ReasonPermission, "Bash", touchCmd, 1.6)
	w.wantRecord("the dialog behind the offer", touchCmd)
}

// TestDefaultModeNothingTwice: with a PermissionRequest (default mode), the state file and
// the PreToolUse change nothing of what it queued: the same item, the same record (a hook
// may hold it), whatever the order.
func TestDefaultModeNothingTwice(t *testing.T) {
	for _, stateFirst := range []bool{false, true} {
		w := newWorld2332(t)
		write := func(name string, sec float64) {
			body := strings.ReplaceAll(string(fixture2332(t, "hooks", "default-mode", name)), "0f58aeb4-7123-4444-9ea2-54f3a470e14e", realSession)
			w.hookJSON(body, sec)
		}
		write("UserPromptSubmit.json", 1)
		write("PreToolUse-Write.json", 1.5)
		if stateFirst {
			w.state("waiting-permission.json", 1.55)
		}
		write("PermissionRequest-Write.json", 1.56)
		held := w.wantRecord("the PermissionRequest", "Write: /home/dev/work/hello.txt")
		w.state("waiting-permission.json", 1.6)
		w.hook("auto-mode", "Notification-permission_prompt.json", 7.6)
		if p := w.wantRecord("after the state file", "Write: /home/dev/work/hello.txt"); p.ID != held.ID {
			t.Fatalf("state first %v: the record was replaced: %s → %s", stateFirst, held.ID, p.ID)
		}
		if items := w.e.Items(); len(items) != 1 {
			t.Fatalf("%d items", len(items))
		}
		w.state("busy-at-approval.json", 9)
		w.wantOut("the approval")
	}
}

// TestQuestionKeepsItsWords: a question's state ("input needed") keeps the question its
// PreToolUse put, and a plan (waiting "permission prompt") its plan.
func TestQuestionKeepsItsWords(t *testing.T) {
	w := newWorld2332(t)
	w.hook("auto-mode", "UserPromptSubmit.json", 1)
	w.hook("auto-mode", "PreToolUse-AskUserQuestion.json", 1.5)
	w.state("waiting-question.json", 1.6)
	w.hook("auto-mode", "PermissionRequest-AskUserQuestion.json", 1.62)
	w.wantQueued("the question", adapter.ReasonPermission, adapter.DetailQuestion, "Which color do you prefer? [Red / Blue]", 1.5)
	w.state("busy.json", 3)
	w.wantOut("the answer")
	w.hook("auto-mode", "PreToolUse-ExitPlanMode.json", 5)
	w.state("waiting-plan.json", 5.1)
	w.wantQueued("the plan", adapter.ReasonPermission, adapter.DetailPlan, "plan: # Greeting plan", 5)
}

// TestTurnEndFromTheStateFile: idle after a turn is a stop, with the transcript's words; a
// session idle at its start waits for nobody.
func TestTurnEndFromTheStateFile(t *testing.T) {
	w := newWorld2332(t)
	w.state("idle-at-start.json", 0.5)
	w.wantOut("idle at the start")
	dir := t.TempDir()
	path := filepath.Join(dir, realSession+".jsonl")
	line := `{"type":"assistant","timestamp":"` + at(1.9).Format(time.RFC3339Nano) + `","message":{"role":"assistant","content":[{"type":"text","text":"hi there"}]}}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	ev := event(realSession, adapter.KindTouch, at(0.6), "%0")
	ev.TranscriptPath = path
	ingest(t, w.e, ev)
	w.state("busy.json", 1)
	w.state("idle-at-start.json", 2)
	w.wantQueued("the turn's end", adapter.ReasonStopped, "", "hi there", 2)
	w.hook("auto-mode", "Stop.json", 2.05)
	w.wantQueued("its Stop hook", adapter.ReasonStopped, "", "hi there", 2)
}

// TestWokenByABackgroundTask: a session a background task wakes leaves the queue while it
// works, whichever of its state file and its prompt's hook comes first, and stops again in
// the place of its first stop; a prompt its operator types gives it a new place.
func TestWokenByABackgroundTask(t *testing.T) {
	wake := func(w *world2332, sec float64) {
		body := fixture2332(t, "hooks", "extra", "UserPromptSubmit-task-notification.env.json")
		i, j := strings.Index(string(body), `"payload": `), strings.LastIndex(string(body), "}")
		w.hookJSON(string(body[i+len(`"payload": `):j]), sec)
	}
	for _, hookFirst := range []bool{false, true} {
		w := newWorld2332(t)
		w.hook("auto-mode", "UserPromptSubmit.json", 1)
		w.state("busy.json", 1.01)
		w.hook("auto-mode", "Stop.json", 2)
		w.state("shell-background-task.json", 2.01)
		w.wantQueued("the first stop", adapter.ReasonStopped, "", "hi there", 2)
		if hookFirst {
			wake(w, 6)
			w.state("busy.json", 6.01)
		} else {
			w.state("busy.json", 6)
			wake(w, 6.01)
		}
		w.wantOut("woken")
		w.hook("auto-mode", "Stop.json", 7)
		w.wantQueued("stopped again", adapter.ReasonStopped, "", "hi there", 2)
		// Its operator answers now: the next stop is a new wait.
		w.hook("auto-mode", "UserPromptSubmit.json", 9)
		w.state("busy.json", 9.01)
		w.wantOut("the operator's prompt")
		w.hook("auto-mode", "Stop.json", 10)
		w.wantQueued("the operator's turn's end", adapter.ReasonStopped, "", "hi there", 10)
	}
}

// TestAHookTakesTheRecordFromTheTranscript: a dialog whose call the transcript gave before
// any hook (a PreToolUse slow to come) has a record read from the transcript; the
// PermissionRequest that follows (default mode) makes the record its own, so that it can
// hold it for an answer from afar.
func TestAHookTakesTheRecordFromTheTranscript(t *testing.T) {
	w := newWorld2332(t)
	path := filepath.Join(t.TempDir(), realSession+".jsonl")
	line := `{"type":"assistant","timestamp":"` + at(1.4).Format(time.RFC3339Nano) + `","message":{"role":"assistant","content":[` +
		`{"type":"tool_use","id":"toolu_w","name":"Write","input":{"file_path":"/home/dev/work/hello.txt","content":"hello from fake claude\n"}}]}}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	ev := event(realSession, adapter.KindTouch, at(0.5), "%0")
	ev.TranscriptPath = path
	ingest(t, w.e, ev)
	w.state("waiting-permission.json", 1.5)
	read := w.wantRecord("the dialog, from the transcript", "Write: /home/dev/work/hello.txt")
	if read.Ask.From != adapter.AskFromTranscript {
		t.Fatalf("a record read from the transcript says it is from %q", read.Ask.From)
	}
	body := strings.ReplaceAll(string(fixture2332(t, "hooks", "default-mode", "PermissionRequest-Write.json")), "0f58aeb4-7123-4444-9ea2-54f3a470e14e", realSession)
	w.hookJSON(body, 1.6)
	own := w.wantRecord("after the PermissionRequest", "Write: /home/dev/work/hello.txt")
	// Its own, under the same id: a popup or phone already showing the record answers it.
	if own.ID != read.ID || own.Ask.From != adapter.AskFromHook || own.Status != queue.PromptPending {
		t.Fatalf("the PermissionRequest did not make the record its own, keeping its id: %+v (was %s)", own, read.ID)
	}
}
