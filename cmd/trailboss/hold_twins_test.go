package main

// One hold, one prompt (issue 18, item 6): two PermissionRequests of one session posted at
// the same moment — Claude Code runs tool calls in parallel — are each told to hold the
// prompt record their own event opened, never the same one, and one answer decides only
// the tool call its record asks about. Real parts: the real daemon, the real `trailboss
// emit` as the hook, a private tmux server for the session's pane.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// twinRounds is how many times each half runs: the mix-up it guards against was seen in 7
// runs of 20.
const twinRounds = 20

// holdingWorld is a real daemon that holds permissions, and the place of one tmux pane.
type holdingWorld struct {
	d          *liveDaemon
	api        *client.Client
	env        []string // for a hook running in the pane
	pane, tmux string
}

// newHoldingWorld starts the daemon with daemonArgs.
func newHoldingWorld(t *testing.T, daemonArgs ...string) *holdingWorld {
	t.Helper()
	tm := tmuxtest.New(t)
	pane := tm.NewPane(t, "twins")
	pid := strings.TrimSpace(tm.Tmux(t, "display-message", "-p", "#{pid}"))
	tmuxEnv := tm.Socket + "," + pid + ",0"
	w := newTransportWorld(t, "[delivery]\nenabled = true\nhold_permissions = true\n")
	d := launchDaemon(t, "trailboss", w.stateDir, w.env, daemonArgs...)
	return &holdingWorld{d: d, api: d.api(t), pane: pane, tmux: tmuxEnv,
		env: withEnv(w.env, "TMUX="+tmuxEnv, "TMUX_PANE="+pane)}
}

// bashPermission is the PermissionRequest Claude Code sends for `command` in session.
func bashPermission(session, command string) []byte {
	return bashPermissionIn(session, command, "")
}

// bashPermissionIn is bashPermission of a session whose transcript is at transcript.
func bashPermissionIn(session, command, transcript string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": transcript, "cwd": "/src",
		"permission_mode": "default", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
		"tool_input": map[string]any{"command": command, "description": "Run " + command}})
	return b
}

// subjectOf is what a prompt record opened by payload asks about.
func subjectOf(t *testing.T, payload []byte) string {
	t.Helper()
	var req struct {
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if err := json.Unmarshal(payload, &req); err != nil {
		t.Fatal(err)
	}
	return claude.Subject(req.ToolName, req.ToolInput)
}

// events returns how many hook payloads the daemon has applied.
func (w *holdingWorld) events(t *testing.T) int64 {
	t.Helper()
	st, err := w.api.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Events
}

// answerHeld answers prompt id, which a hook was just told to hold, through that hook.
// The queue shows a record a moment before its hook is told to hold it; an answer in that
// moment goes by keys, and the pane here, a shell, shows no dialog: it is refused (changed,
// or pane_moved: a shell, not the agent) and nothing is typed. So it is asked again until
// the hook takes it.
func (w *holdingWorld) answerHeld(t *testing.T, id string, a wire.Answer) (wire.Delivered, error) {
	t.Helper()
	var got wire.Delivered
	var err error
	waitUntil(t, "an answer to go through the holding hook", 10*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		got, err = w.api.Answer(ctx, id, a)
		var refused *client.AnswerRefusedError
		return !errors.As(err, &refused) || (refused.Reason != wire.RefusedChanged && refused.Reason != wire.RefusedPaneMoved)
	})
	return got, err
}

// pendingPrompt returns the pending prompt of session's queue item, or nil.
func (w *holdingWorld) pendingPrompt(t *testing.T, session string) *wire.Prompt {
	t.Helper()
	items, err := w.api.Queue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.SessionID == session {
			return it.Prompt
		}
	}
	return nil
}

// TestTwoPermissionsOfOneSessionHoldTheirOwnPrompts posts two holdable PermissionRequests
// of one session at once, as the hook does, 20 times: each hold names the record of its
// own tool call, so the two are never the same record.
func TestTwoPermissionsOfOneSessionHoldTheirOwnPrompts(t *testing.T) {
	w := newHoldingWorld(t)
	headers := map[string]string{"X-Tmux-Pane": w.pane, "X-Tmux": w.tmux, wire.HeaderCanHold: "1"}
	both := 0
	for round := range twinRounds {
		session := fmt.Sprintf("twins-%d", round)
		payloads := [2][]byte{bashPermission(session, fmt.Sprintf("touch a-%d", round)),
			bashPermission(session, fmt.Sprintf("touch b-%d", round))}
		var acks [2]wire.HookAck
		var errs [2]error
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range payloads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = w.api.PostFor(context.Background(), "/v1/hooks/claude", payloads[i], headers, &acks[i])
			}()
		}
		close(start)
		wg.Wait()
		held := 0
		for i := range payloads {
			if errs[i] != nil {
				t.Fatalf("round %d: post %d: %v", round, i, errs[i])
			}
			h := acks[i].Hold
			if h == nil {
				continue // its event came second in time and changed nothing: not held
			}
			held++
			// The record it holds asks about its own call: the wait says so.
			got, err := w.api.WaitPrompt(context.Background(), h.PromptID, time.Millisecond)
			if err != nil {
				t.Fatalf("round %d: wait for %s: %v", round, h.PromptID, err)
			}
			if got.Subject != subjectOf(t, payloads[i]) {
				t.Errorf("round %d: the request for %q was told to hold %s, which asks about another tool call (%s)",
					round, "touch "+string(rune('a'+i)), h.PromptID, got.Subject)
			}
		}
		if held == 0 {
			t.Fatalf("round %d: neither PermissionRequest was held: %+v", round, acks)
		}
		if a, b := acks[0].Hold, acks[1].Hold; a != nil && b != nil && a.PromptID == b.PromptID {
			t.Fatalf("round %d: both PermissionRequests were told to hold prompt %s: one answer would decide both", round, a.PromptID)
		}
		if held == 2 {
			both++
		}
	}
	t.Logf("%d of %d rounds had both requests held, each for its own prompt", both, twinRounds)
}

// TestOneAnswerDecidesOnlyItsOwnPermission runs the real hook twice at once for two tool
// calls of one session, 20 times, and answers the prompt the queue shows with allow: the
// hook of that very call prints the allow, the other prints nothing (its dialog is left to
// the keyboard), and both exit.
func TestOneAnswerDecidesOnlyItsOwnPermission(t *testing.T) {
	w := newHoldingWorld(t)
	for round := range twinRounds {
		session := fmt.Sprintf("pair-%d", round)
		commands := [2]string{fmt.Sprintf("touch a-%d", round), fmt.Sprintf("touch b-%d", round)}
		before := w.events(t)
		var outs [2]bytes.Buffer
		var cmds [2]*exec.Cmd
		for i, c := range commands {
			cmds[i] = exec.Command("trailboss", "emit")
			cmds[i].Env = w.env
			cmds[i].Stdin = bytes.NewReader(bashPermission(session, c))
			cmds[i].Stdout = &outs[i]
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan int, 2)
		for i := range cmds {
			go func() {
				_ = cmds[i].Wait()
				done <- i
			}()
		}
		// Both events applied: the prompt the queue shows now is the one to answer.
		waitUntil(t, "both PermissionRequests to be applied", 10*time.Second, func() bool { return w.events(t) >= before+2 })
		p := w.pendingPrompt(t, session)
		if p == nil {
			t.Fatalf("round %d: no pending prompt for %s", round, session)
		}
		own := -1
		for i, c := range commands {
			if strings.Contains(p.Question, c) {
				own = i
			}
		}
		if own < 0 {
			t.Fatalf("round %d: the prompt asks %q, neither command", round, p.Question)
		}
		got, err := w.answerHeld(t, p.ID, wire.Answer{Choice: "allow"})
		if err != nil || !got.Delivered || got.Via != wire.ViaHook {
			t.Fatalf("round %d: allow %q: %+v, %v; want delivered through its hook", round, commands[own], got, err)
		}
		for range cmds {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				for _, c := range cmds {
					_ = c.Process.Kill()
				}
				t.Fatalf("round %d: a hook still holds 10 s after the answer (printed %q and %q)", round, outs[0].String(), outs[1].String())
			}
		}
		for i := range cmds {
			printed := outs[i].String()
			switch {
			case i == own && !strings.Contains(printed, `"behavior":"allow"`):
				t.Errorf("round %d: the hook of %q, whose prompt was allowed, printed %q", round, commands[i], printed)
			case i != own && printed != "":
				t.Errorf("round %d: the hook of %q printed %q for the answer to %q: one answer decided two tool calls",
					round, commands[i], printed, commands[own])
			}
		}
		if t.Failed() {
			t.Logf("emit.log: %s", readEmitLog(w.d.stateDir))
			t.FailNow()
		}
	}
}

// readEmitLog returns what the hooks of stateDir logged.
func readEmitLog(stateDir string) string {
	b, _ := os.ReadFile(filepath.Join(stateDir, statedir.EmitLog))
	return string(b)
}
