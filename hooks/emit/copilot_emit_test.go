package emit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter/copilot"
	"github.com/trailboss/trailboss/daemon/wire"
)

// A permissionRequest payload as the real Copilot CLI 1.0.102 sent it
// (adapter/copilot/testdata/real).
const copilotPermission = `{"hookName":"permissionRequest","sessionId":"s1","timestamp":1796308459724,"cwd":"/w","toolName":"bash","toolInput":{"command":"touch x"},"permissionSuggestions":[]}`

// copilotEmit runs EmitCopilot for event and payload against d in the background.
func copilotEmit(t *testing.T, d *holdingDaemon, event, payload string, hold bool) (*lockedBuffer, func(limit time.Duration) error) {
	t.Helper()
	e := emitter(t, d.addr(), strings.NewReader(payload), EmitTimeout-EmitReserve)
	e.Hold = hold
	out := &lockedBuffer{}
	e.Stdout = out
	done := make(chan error, 1)
	go func() { done <- e.EmitCopilot(context.Background(), event) }()
	return out, func(limit time.Duration) error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(limit):
			t.Fatalf("EmitCopilot still running after %v", limit)
			return nil
		}
	}
}

// TestCopilotHeldPermissionPrintsTheDecision: a held permissionRequest prints Copilot's
// behaviour for the answer given for its own call, once.
func TestCopilotHeldPermissionPrintsTheDecision(t *testing.T) {
	for _, tt := range []struct{ choice, want string }{
		{"allow", `{"behavior":"allow"}`},
		{"deny", `{"behavior":"deny","message":"Denied by the user through Trail Boss."}`},
	} {
		d := newHoldingDaemon(t, holdFor(10*time.Minute))
		out, wait := copilotEmit(t, d, copilot.PermissionRequest, copilotPermission, true)
		d.nextWait(t)
		d.answers <- answeredWith(tt.choice, "", "")
		if err := wait(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(out.String()); got != tt.want {
			t.Errorf("%s: printed %q, want %q", tt.choice, got, tt.want)
		}
	}
}

// TestCopilotAnswerForAnotherCallPrintsNothing: an answer whose record names another call
// decides nothing; Copilot then shows its dialog.
func TestCopilotAnswerForAnotherCallPrintsNothing(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, wait := copilotEmit(t, d, copilot.PermissionRequest, copilotPermission, true)
	d.nextWait(t)
	w := answeredWith("allow", "", "")
	w.Subject = copilot.Subject("bash", json.RawMessage(`{"command":"rm -rf /"}`))
	d.answers <- w
	if err := wait(5 * time.Second); err == nil || !strings.Contains(err.Error(), "another tool call") {
		t.Errorf("err = %v, want another tool call", err)
	}
	if out.String() != "" {
		t.Errorf("printed %q for another call's answer", out.String())
	}
}

// TestCopilotNotHeldPrintsNothing: without holding on, a permissionRequest never asks to
// hold and prints nothing, and the daemon makes no permission of it.
func TestCopilotNotHeldPrintsNothing(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, wait := copilotEmit(t, d, copilot.PermissionRequest, copilotPermission, false)
	if err := wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" {
		t.Errorf("printed %q", out.String())
	}
	posts, waits := d.counts()
	if posts != 1 || waits != 0 {
		t.Fatalf("posts %d, waits %d; want one post and no wait", posts, waits)
	}
	d.mu.Lock()
	r := d.posts[0]
	d.mu.Unlock()
	if r.Header.Get(wire.HeaderCanHold) != "" || r.URL.Path != "/v1/hooks/copilot" {
		t.Errorf("post %s with can-hold %q", r.URL.Path, r.Header.Get(wire.HeaderCanHold))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.subject != "" {
		t.Errorf("the daemon made a held permission of a hook that does not hold (subject %q)", d.subject)
	}
}
