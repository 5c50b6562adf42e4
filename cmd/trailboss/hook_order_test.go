package main

// Hooks run in parallel and each takes its own time to get going: a hook is stamped when
// its process started, the order in which Claude Code fired them, not when it got round to
// running. Real parts: the real daemon and the real `trailboss emit`, run by a shell as
// Claude Code runs it.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A person's prompt whose hook is slow to get going (a busy machine: its shell started, the
// program not yet) does not take out of the queue the turn's end that Claude Code fired
// after it.
func TestAHookSlowToStartIsOrderedByItsStart(t *testing.T) {
	w := newTransportWorld(t, "")
	d := launchDaemon(t, "trailboss", w.stateDir, w.env)
	api := d.api(t)
	inQueue := func() bool {
		items, err := api.Queue(context.Background())
		return err == nil && queued(items, "slow-1")
	}

	// The hook's shell waits at a gate before it runs trailboss; exec keeps its process,
	// and so the moment it was started.
	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	prompt := exec.Command("sh", "-c", `read _ < "$GATE" && exec trailboss emit`)
	prompt.Env = append(w.env, "GATE="+gate)
	prompt.Stdin = bytes.NewReader([]byte(`{"session_id":"slow-1","hook_event_name":"UserPromptSubmit","cwd":"/src","transcript_path":"","prompt":"go"}`))
	var out bytes.Buffer
	prompt.Stdout, prompt.Stderr = &out, &out
	if err := prompt.Start(); err != nil {
		t.Fatal(err)
	}

	// Claude Code fires a turn's Stop at least a model's answer after its prompt; when a
	// process started is known to a hundredth of a second.
	time.Sleep(50 * time.Millisecond)
	stop := exec.Command("trailboss", "emit")
	stop.Env = w.env
	stop.Stdin = bytes.NewReader([]byte(`{"session_id":"slow-1","hook_event_name":"Stop","cwd":"/src","transcript_path":""}`))
	if b, err := stop.CombinedOutput(); err != nil || len(b) > 0 {
		t.Fatalf("the Stop hook: %v %q", err, b)
	}
	waitUntil(t, "the turn's end to be queued", 10*time.Second, inQueue)

	// Only now does the prompt's hook get going.
	if err := os.WriteFile(gate, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := prompt.Wait(); err != nil || out.Len() > 0 {
		t.Fatalf("the UserPromptSubmit hook: %v %q", err, out.String())
	}
	// The daemon answered the prompt's hook before it exited: what it did is done.
	if !inQueue() {
		t.Fatal("the prompt's hook, slow to start, took the turn's end that came after it out of the queue")
	}
}
