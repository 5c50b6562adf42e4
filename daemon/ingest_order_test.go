package daemon

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/lineage"
)

// TestAHookStartedEarlierIsDatedEarlier: Claude Code fires a prompt's hook, then, when a turn
// fails at once, its StopFailure; under load the first can start so slowly that it is
// stamped after the second. The order the agent started them in wins: the failure stays
// queued. A prompt started after the stop (a new turn) takes it out as before.
func TestAHookStartedEarlierIsDatedEarlier(t *testing.T) {
	e, _ := newEngine(t)
	send := hookSender(t, e, "claude")
	stamp := time.Now().Add(-time.Minute)
	prompt := hookBody("S", "UserPromptSubmit", `"prompt":"go"`)
	failure := hookBody("S", "StopFailure", `"error":"400 bad request"`)

	send(hookBody("S", "SessionStart", `"source":"startup"`), stamp, lineage.Spawn{Start: 100, PID: 10})
	send(failure, stamp.Add(10*time.Millisecond), lineage.Spawn{Start: 200, PID: 30})
	send(prompt, stamp.Add(13*time.Millisecond), lineage.Spawn{Start: 200, PID: 20}) // started first, stamped late
	if s := session(t, e, "S"); !s.Stuck || s.Detail != "error" {
		t.Fatalf("a prompt started before the failure took it out of the queue: %+v", s)
	}

	send(prompt, stamp.Add(2*time.Second), lineage.Spawn{Start: 300, PID: 40}) // the next turn
	if s := session(t, e, "S"); s.Stuck {
		t.Fatalf("a prompt started after the failure left it queued: %+v", s)
	}

	// Started by another process (not the agent that started the others), a hook's start
	// says nothing of its order: its stamp alone counts.
	send(failure, stamp.Add(3*time.Second), lineage.Spawn{Start: 400, PID: 60})
	send(prompt, stamp.Add(3*time.Second+time.Millisecond), lineage.Spawn{Start: 400, PID: 50, Parent: 7})
	if s := session(t, e, "S"); s.Stuck {
		t.Fatalf("a prompt started by another process, stamped after the failure, left it queued: %+v", s)
	}
}

// TestCodexHooksAreOrderedByTheirStampAlone: Codex's notify (its turn's end) and its hooks
// are started by two processes (the TUI, the app-server), so their starts do not order
// them: a turn's end stamped after a PostToolUse is queued, whichever was started first.
func TestCodexHooksAreOrderedByTheirStampAlone(t *testing.T) {
	e, _ := newEngine(t)
	send := hookSender(t, e, "codex")
	stamp := time.Now().Add(-time.Minute)
	send(`{"session_id":"T","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":"x"}`, stamp, lineage.Spawn{Start: 100, PID: 10})
	send(`{"session_id":"T","hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":"touch b"}}`,
		stamp.Add(10*time.Millisecond), lineage.Spawn{Start: 200, PID: 30})
	send(`{"type":"agent-turn-complete","thread-id":"T","turn-id":"u","cwd":"/w","client":"codex-tui","input-messages":["x"],"last-assistant-message":"ran it"}`,
		stamp.Add(12*time.Millisecond), lineage.Spawn{Start: 200, PID: 20})
	if s := session(t, e, "T"); !s.Stuck || s.Summary != "ran it" {
		t.Fatalf("Codex's turn end, started before a PostToolUse and stamped after it, was not queued: %+v", s)
	}
}

// hookSender returns a function that ingests a hook payload of harness from pane %1,
// stamped at and started at spawn, as the daemon takes one over its socket.
func hookSender(t *testing.T, e *Engine, harness string) func(body string, at time.Time, spawn lineage.Spawn) {
	in := &Ingestor{Engine: e, Log: discard, Now: time.Now, SocketExists: func(path string) bool { return path == testSocket }}
	return func(body string, at time.Time, spawn lineage.Spawn) {
		t.Helper()
		if _, err := in.Hook(context.Background(), harness, []byte(body), "%1", testSocket+",4242,0", at, Origin{Spawn: spawn}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestALateHookOfAnEndedCodexTurnIsDropped: Codex said a turn was complete (its notify);
// a hook of that same turn (a PostToolUse whose process started slowly on a loaded machine)
// arrives after it, stamped after it. It must not take the finished turn out of the queue.
// A hook of the next turn (the human's prompt) does, and a late repeat of the old turn's
// end does not queue the session again while it works.
func TestALateHookOfAnEndedCodexTurnIsDropped(t *testing.T) {
	e, _ := newEngine(t)
	send := hookSender(t, e, "codex")
	stamp := time.Now().Add(-time.Minute)
	none := lineage.Spawn{}
	postToolUse := `{"session_id":"T","turn_id":"t1","hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":"touch b"}}`
	turnEnd := `{"type":"agent-turn-complete","thread-id":"T","turn-id":"t1","cwd":"/w","client":"codex-tui","input-messages":["x"],"last-assistant-message":"ran it"}`

	send(`{"session_id":"T","turn_id":"t1","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":"x"}`, stamp, none)
	send(turnEnd, stamp.Add(10*time.Millisecond), none)
	send(postToolUse, stamp.Add(39*time.Millisecond), none) // its turn's own, 29 ms late
	if s := session(t, e, "T"); !s.Stuck || s.Summary != "ran it" {
		t.Fatalf("a PostToolUse of a turn already complete took it out of the queue: %+v", s)
	}

	send(`{"session_id":"T","turn_id":"t2","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":"go on"}`, stamp.Add(time.Second), none)
	if s := session(t, e, "T"); s.Stuck {
		t.Fatalf("the human's next prompt (a new turn) left it queued: %+v", s)
	}
	send(turnEnd, stamp.Add(2*time.Second), none) // the old turn's end, again
	if s := session(t, e, "T"); s.Stuck {
		t.Fatalf("a repeat of an old turn's end queued a session that works: %+v", s)
	}
	send(postToolUse, stamp.Add(3*time.Second), none)
	send(`{"type":"agent-turn-complete","thread-id":"T","turn-id":"t2","cwd":"/w","client":"codex-tui","input-messages":["x","go on"],"last-assistant-message":"done"}`,
		stamp.Add(4*time.Second), none)
	if s := session(t, e, "T"); !s.Stuck || s.Summary != "done" {
		t.Fatalf("the second turn's end was not queued: %+v", s)
	}
}

// TestAHookIsDatedWhenItsAgentStartedIt: Claude Code runs UserPromptSubmit async. Under
// load its hook process can first run after the turn it opened is over: the live state
// said idle (the turn's end) before the hook stamped its time. Dated when Claude Code
// started it, it is older news than that idle and leaves the stop queued. A hook started
// after the idle (the next prompt) still takes the session out.
func TestAHookIsDatedWhenItsAgentStartedIt(t *testing.T) {
	e, _ := newEngine(t)
	send := hookSender(t, e, "claude")
	ctx := context.Background()
	liveState := func(kind adapter.Kind, at time.Time) {
		t.Helper()
		ev := adapter.Event{Harness: "claude", SessionID: "S", Kind: kind, At: at}
		if kind == adapter.KindStuck {
			ev.Reason = adapter.ReasonStopped
		}
		if _, err := e.Ingest(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	hookProcess := func() lineage.Spawn { // a process started now, as Claude Code starts a hook
		t.Helper()
		cmd := exec.Command("sleep", "30")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		spawn, ok := lineage.Spawned(cmd.Process.Pid)
		if !ok {
			t.Fatal("cannot read the spawn of a child")
		}
		return spawn
	}
	prompt := hookBody("S", "UserPromptSubmit", `"prompt":"go on"`)

	send(hookBody("S", "Stop"), time.Now().Add(-2*time.Second), lineage.Spawn{})
	liveState(adapter.KindUnstuck, time.Now().Add(-time.Second)) // the answer went in: busy
	late := hookProcess()                                        // its UserPromptSubmit, started…
	time.Sleep(150 * time.Millisecond)                           // (real time must pass between the two spawns)
	idle := time.Now().Add(-50 * time.Millisecond)
	liveState(adapter.KindStuck, idle) // …the turn is over…
	send(prompt, time.Now(), late)     // …and only now does the hook run
	if s := session(t, e, "S"); !s.Stuck || !s.Since.Equal(idle) {
		t.Fatalf("a prompt's hook started before the turn's end took the stop out of the queue: %+v", s)
	}

	next := hookProcess()
	send(prompt, time.Now().Add(300*time.Millisecond), next)
	if s := session(t, e, "S"); s.Stuck {
		t.Fatalf("a prompt's hook started after the stop left it queued: %+v", s)
	}

	// A hook that says what the session waits for keeps its stamp: started as the live
	// state saw the same stop, it is the richer word and stays the later one.
	failure := hookProcess()
	time.Sleep(50 * time.Millisecond)
	liveState(adapter.KindStuck, time.Now())
	send(hookBody("S", "StopFailure", `"error":"400 bad request"`), time.Now().Add(100*time.Millisecond), failure)
	if s := session(t, e, "S"); !s.Stuck || s.Detail != "error" {
		t.Fatalf("a StopFailure started before the live state's stop lost its words to it: %+v", s)
	}
}

// TestACodexTurnEndIsNeverOlderThanItsOwnTurn: Codex's notify (the turn's end) can arrive
// after a PostToolUse of the same turn that was stamped later than it (two processes, both
// slow to start). The turn's end is the last word of its turn: the session is queued. A turn
// end that arrives after a later turn began (the human's next prompt) is old news and
// queues nothing.
func TestACodexTurnEndIsNeverOlderThanItsOwnTurn(t *testing.T) {
	e, _ := newEngine(t)
	send := hookSender(t, e, "codex")
	stamp := time.Now().Add(-time.Minute)
	none := lineage.Spawn{}
	turnEnd := func(turn, words string) string {
		return `{"type":"agent-turn-complete","thread-id":"T","turn-id":"` + turn + `","cwd":"/w","client":"codex-tui","input-messages":["x"],"last-assistant-message":"` + words + `"}`
	}

	send(`{"session_id":"T","turn_id":"t1","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":"x"}`, stamp, none)
	send(`{"session_id":"T","turn_id":"t1","hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":"touch b"}}`,
		stamp.Add(313*time.Millisecond), none)
	send(turnEnd("t1", "ran it"), stamp.Add(300*time.Millisecond), none) // stamped 13 ms before the PostToolUse, arrived after it
	if s := session(t, e, "T"); !s.Stuck || s.Summary != "ran it" {
		t.Fatalf("a turn's end that came after a later-stamped hook of its own turn was lost: %+v", s)
	}

	send(`{"session_id":"T","turn_id":"t2","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":"go on"}`, stamp.Add(2*time.Second), none)
	send(turnEnd("t3", "of another turn"), stamp.Add(time.Second), none) // older than the prompt, of no turn since
	if s := session(t, e, "T"); s.Stuck {
		t.Fatalf("a turn end stamped before the next turn's prompt queued the session that works: %+v", s)
	}
}
