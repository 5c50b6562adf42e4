package onstuck

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/queue"
)

// The session's words reach the command as environment only: a summary written to break
// out of a shell command runs nothing, and the daemon's secrets stay behind.
func TestOnStuckGetsTheSessionInItsEnvironmentAndNoSecrets(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	t.Setenv("TRAILBOSS_TELEGRAM_TOKEN", "123:secret")
	t.Setenv("ANTHROPIC_API_KEY", "sk-secret")
	r := &Runner{Command: "env > " + out, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = r.Run(ctx) }()
	pwned := filepath.Join(dir, "pwned")
	r.Enqueue(queue.Session{ID: "s1", Pane: "%3", Reason: "stop", Summary: "done; touch " + pwned + " $(touch " + pwned + ")"})

	var env string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(out)
		if env = string(b); strings.Contains(env, "TRAILBOSS_SUMMARY=") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("on_stuck did not run within 5 s")
		}
	}
	for _, want := range []string{"TRAILBOSS_SESSION=s1", "TRAILBOSS_PANE=%3", "TRAILBOSS_REASON=stop"} {
		if !strings.Contains(env, want) {
			t.Errorf("the command's environment lacks %s", want)
		}
	}
	for _, secret := range []string{"123:secret", "sk-secret"} {
		if strings.Contains(env, secret) {
			t.Errorf("the command was given a secret of the daemon's: %s", secret)
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("the summary's words ran as a command")
	}
}

// A burst beyond the backlog is dropped, never waited for: the engine calls Enqueue on its
// write path.
func TestEnqueueNeverBlocksTheEngine(t *testing.T) {
	r := &Runner{Command: "true", Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan struct{})
	go func() {
		for i := 0; i < backlog*3; i++ { // nobody runs them
			r.Enqueue(queue.Session{ID: "s"})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Enqueue blocked with no runner draining it")
	}
}
