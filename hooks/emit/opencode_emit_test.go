package emit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/spool"
	"github.com/trailboss/trailboss/daemon/wire"
)

// Payloads of Trail Boss's OpenCode plugin, with OpenCode's properties as the real 1.18.33
// sent them (adapter/opencode/testdata).
const (
	openCodePermission = `{"type":"permission.asked","properties":{"id":"per_1","sessionID":"ses_1","permission":"bash","patterns":["touch x"],"metadata":{"command":"touch x"}},"at":1795612124004.5}`
	openCodeQuestion   = `{"type":"question.asked","properties":{"id":"que_1","sessionID":"ses_1","questions":[{"question":"Which colour do you want?","header":"Colour","options":[{"label":"Red","description":"the warm one"},{"label":"Blue","description":"the cool one"}]}]}}`
	openCodeIdle       = `{"type":"session.idle","properties":{"sessionID":"ses_1"},"text":"hi there","at":1795612124004.5}`
)

// openCodeEmit runs EmitOpenCode for payload against d in the background, holding on.
func openCodeEmit(t *testing.T, d *holdingDaemon, payload string, hold bool) (*lockedBuffer, func(limit time.Duration) error) {
	t.Helper()
	e := emitter(t, d.addr(), strings.NewReader(payload), EmitTimeout-EmitReserve)
	e.Hold = hold
	out := &lockedBuffer{}
	e.Stdout = out
	done := make(chan error, 1)
	go func() { done <- e.EmitOpenCode(context.Background()) }()
	return out, func(limit time.Duration) error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(limit):
			t.Fatalf("EmitOpenCode still running after %v", limit)
			return nil
		}
	}
}

func TestOpenCodePermissionAllowedPrintsOnce(t *testing.T) {
	for _, tt := range []struct{ choice, want string }{
		{"allow", `{"requestID":"per_1","reply":"once"}`},
		{"deny", `{"requestID":"per_1","reply":"reject"}`},
	} {
		d := newHoldingDaemon(t, holdFor(10*time.Minute))
		out, wait := openCodeEmit(t, d, openCodePermission, true)
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

func TestOpenCodeQuestionAnsweredPrintsTheLabel(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, wait := openCodeEmit(t, d, openCodeQuestion, true)
	d.nextWait(t)
	d.answers <- answeredWith("2", "Blue", "")
	if err := wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(out.String()), `{"requestID":"que_1","answers":[["Blue"]]}`; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// The keyboard answered first: the daemon withdrew the record, and the plugin is told
// nothing to reply.
func TestOpenCodeWithdrawnPrintsNothing(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, wait := openCodeEmit(t, d, openCodePermission, true)
	d.nextWait(t)
	d.answers <- wire.PromptWait{Status: wire.PromptWithdrawn}
	if err := wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" {
		t.Errorf("printed %q for a withdrawn prompt", out.String())
	}
}

// An answer to a record of another request replies nothing.
func TestOpenCodeAnswerOfAnotherRequestPrintsNothing(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, wait := openCodeEmit(t, d, openCodePermission, true)
	d.nextWait(t)
	ans := answeredWith("allow", "", "")
	ans.Subject = "per_2"
	d.answers <- ans
	if err := wait(5 * time.Second); err == nil || out.String() != "" {
		t.Errorf("printed %q, err %v; want nothing and an error", out.String(), err)
	}
}

// With delivery off (holding off in this user's config) the plugin only reports: nothing
// says it can hold, and nothing waits.
func TestOpenCodeWithoutHoldingOnlyReports(t *testing.T) {
	for _, payload := range []string{openCodePermission, openCodeIdle} {
		d := newHoldingDaemon(t, holdFor(10*time.Minute))
		out, wait := openCodeEmit(t, d, payload, payload == openCodeIdle)
		if err := wait(2 * time.Second); err != nil {
			t.Fatal(err)
		}
		posts, waits := d.counts()
		if posts != 1 || waits != 0 || out.String() != "" {
			t.Errorf("%s: %d posts, %d waits, printed %q; want it posted and nothing held", payload, posts, waits, out.String())
		}
		if d.posts[0].Header.Get(wire.HeaderCanHold) != "" {
			t.Errorf("%s: said it can hold", payload)
		}
	}
}

// The event is stamped with the plugin's clock, not emit's start: the plugin's processes
// start in parallel.
func TestOpenCodeStampedWithThePluginsTime(t *testing.T) {
	d := newHoldingDaemon(t, nil)
	e := emitter(t, d.addr(), strings.NewReader(openCodeIdle), EmitTimeout-EmitReserve)
	e.Now = func() time.Time { return time.UnixMilli(1795612124004).Add(30 * time.Millisecond) }
	if err := e.EmitOpenCode(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := d.posts[0].Header.Get("X-Trailboss-Emitted-At")
	if want := "2026-11-25T13:08:44.0045Z"; got != want {
		t.Errorf("emitted at %q, want the plugin's %q", got, want)
	}
}

// A daemon that is down costs at most the hook's budget, and the event waits in the spool.
func TestOpenCodeDaemonDownSpools(t *testing.T) {
	e := emitter(t, "127.0.0.1:1", strings.NewReader(openCodeIdle), EmitTimeout-EmitReserve)
	start := time.Now()
	err := e.EmitOpenCode(context.Background())
	if took := time.Since(start); took > EmitTimeout {
		t.Errorf("took %v with the daemon down, want at most %v", took, EmitTimeout)
	}
	if err == nil || !strings.Contains(err.Error(), SpooledNote) {
		t.Fatalf("err %v, want it spooled", err)
	}
	files, err := spool.List(e.StateDir)
	if err != nil || len(files) != 1 {
		t.Fatalf("spool: %v, %v; want one event", files, err)
	}
	if ev, err := spool.Read(files[0]); err != nil || ev.Harness != "opencode" || string(ev.Body) != openCodeIdle {
		t.Fatalf("spooled %+v, %v", ev, err)
	}
}

// The plugin saying it was loaded is written down for doctor, and not sent.
func TestOpenCodePluginLoadedIsWrittenForDoctor(t *testing.T) {
	d := newHoldingDaemon(t, nil)
	e := emitter(t, d.addr(), strings.NewReader(`{"type":"plugin.loaded","plugin":"abc123","pid":42,"at":1795612124004.5}`), EmitTimeout-EmitReserve)
	if err := e.EmitOpenCode(context.Background()); err != nil {
		t.Fatal(err)
	}
	if posts, _ := d.counts(); posts != 0 {
		t.Errorf("%d posts, want none", posts)
	}
	b, err := os.ReadFile(filepath.Join(e.StateDir, OpenCodePluginLoaded))
	if err != nil {
		t.Fatal(err)
	}
	var got LoadedPlugin
	if err := json.Unmarshal(b, &got); err != nil || got.Plugin != "abc123" || got.PID != 42 || got.At.IsZero() {
		t.Errorf("wrote %s (%v)", b, err)
	}
}
