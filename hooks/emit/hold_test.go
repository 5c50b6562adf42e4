package emit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/adapter/copilot"
	"github.com/trailboss/trailboss/adapter/opencode"
	"github.com/trailboss/trailboss/daemon/wire"
)

const (
	bashRequest = `{"session_id":"S","cwd":"/src","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"touch x","description":"Create x"}}` + "\n"
	planRequest = `{"session_id":"S","hook_event_name":"PermissionRequest","tool_name":"ExitPlanMode","tool_input":{"plan":"1. Add a greeting file\n2. Say hi"}}` + "\n"
	preToolUse  = `{"session_id":"S","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"t1","tool_input":{"questions":[]}}` + "\n"
)

// askRequest is the PermissionRequest the real Claude Code 2.1.197 sent for an
// AskUserQuestion (fixtures/real/claude-2.1.197).
func askRequest(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "PermissionRequest-AskUserQuestion.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// holdingDaemon is a fake daemon that tells a PermissionRequest hook to hold for prompt
// "p1" and answers its waits with what the test sends on answers (each wait takes one),
// or "pending" when the wait's timeout passes first.
type holdingDaemon struct {
	srv     *httptest.Server
	hold    *wire.Hold
	answers chan wire.PromptWait
	waiting chan time.Duration // each wait's timeout, as it arrives
	slow    time.Duration      // how long it takes before it answers a post, as a loaded machine might

	mu      sync.Mutex
	posts   []*http.Request
	waits   []*http.Request
	subject string // of the tool call last posted: what the record it holds for asks
}

// noSubject, as an answer's Subject, has the fake daemon send none, as a daemon older than
// the hook does; an answer with Subject "" gets the posted request's, as the real one's.
const noSubject = "(none)"

func newHoldingDaemon(t *testing.T, hold *wire.Hold) *holdingDaemon {
	t.Helper()
	d := &holdingDaemon{hold: hold, answers: make(chan wire.PromptWait, 8), waiting: make(chan time.Duration, 64)}
	d.srv = httptest.NewServer(d)
	t.Cleanup(d.srv.Close)
	return d
}

func (d *holdingDaemon) addr() string { return strings.TrimPrefix(d.srv.URL, "http://") }

func (d *holdingDaemon) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	d.mu.Lock()
	if r.Method == http.MethodPost {
		d.posts = append(d.posts, r.Clone(context.Background()))
	} else {
		d.waits = append(d.waits, r.Clone(context.Background()))
	}
	d.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && (r.URL.Path == "/v1/hooks/claude" || r.URL.Path == "/v1/hooks/codex" || r.URL.Path == "/v1/hooks/opencode" || r.URL.Path == "/v1/hooks/copilot"):
		body, _ := io.ReadAll(r.Body)
		if req := permissionRequestOf(body); req != nil {
			d.mu.Lock()
			d.subject = claude.Subject(req.ToolName, req.ToolInput)
			d.mu.Unlock()
		}
		if p, err := opencode.DecodePayload(body); err == nil && r.URL.Path == "/v1/hooks/opencode" {
			d.mu.Lock()
			d.subject = p.Properties.ID // what adapter/opencode makes the record's subject
			d.mu.Unlock()
		}
		if h, err := copilot.DecodeHook(body); err == nil && r.URL.Path == "/v1/hooks/copilot" {
			if evs, err := h.Events(adapter.Meta{EmittedAt: time.Now()}); err == nil && evs[0].Ask != nil {
				d.mu.Lock()
				d.subject = evs[0].Ask.Subject // what adapter/copilot makes the record's subject
				d.mu.Unlock()
			}
		}
		time.Sleep(d.slow)
		ack := wire.HookAck{OK: true}
		if r.Header.Get(wire.HeaderCanHold) == "1" || r.URL.Path == "/v1/hooks/codex" {
			ack.Hold = d.hold // a daemon that would hold even a Codex hook: the hook must not
		}
		_ = json.NewEncoder(w).Encode(ack)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/prompts/p1/wait":
		timeout, err := time.ParseDuration(r.URL.Query().Get("timeout"))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		d.waiting <- timeout
		select {
		case ans := <-d.answers:
			d.mu.Lock()
			switch ans.Subject {
			case "":
				ans.Subject = d.subject
			case noSubject:
				ans.Subject = ""
			}
			d.mu.Unlock()
			_ = json.NewEncoder(w).Encode(ans)
		case <-time.After(timeout):
			_ = json.NewEncoder(w).Encode(wire.PromptWait{Status: wire.PromptPending})
		case <-r.Context().Done():
		}
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"not found"}`))
	}
}

func (d *holdingDaemon) counts() (posts, waits int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.posts), len(d.waits)
}

// nextWait waits for the hook's next wait to reach the daemon and returns its timeout.
func (d *holdingDaemon) nextWait(t *testing.T) time.Duration {
	t.Helper()
	select {
	case timeout := <-d.waiting:
		return timeout
	case <-time.After(5 * time.Second):
		t.Fatal("the hook never asked the daemon for its answer")
		return 0
	}
}

// heldEmit runs Emit for payload against d in the background; it returns the hook's
// stdout and a function that waits for Emit (failing the test after limit) and returns
// when it returned and its error.
func heldEmit(t *testing.T, d *holdingDaemon, payload string) (*lockedBuffer, *Emitter, func(limit time.Duration) (time.Time, error)) {
	t.Helper()
	e := emitter(t, d.addr(), strings.NewReader(payload), EmitTimeout-EmitReserve)
	e.Hold = true // this user's config turns holding on
	out := &lockedBuffer{}
	e.Stdout = out
	done := make(chan error, 1)
	var at time.Time
	var mu sync.Mutex
	go func() {
		err := e.Emit(context.Background())
		mu.Lock()
		at = time.Now()
		mu.Unlock()
		done <- err
	}()
	return out, e, func(limit time.Duration) (time.Time, error) {
		t.Helper()
		select {
		case err := <-done:
			mu.Lock()
			defer mu.Unlock()
			return at, err
		case <-time.After(limit):
			t.Fatalf("Emit still holding after %v", limit)
			return time.Time{}, nil
		}
	}
}

// lockedBuffer is a hook's stdout that the test may read while Emit runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func holdFor(ttl time.Duration) *wire.Hold {
	return &wire.Hold{PromptID: "p1", ExpiresAt: time.Now().Add(ttl)}
}

func answeredWith(choice, label, text string) wire.PromptWait {
	return wire.PromptWait{Status: wire.PromptAnswered, Answer: &wire.GivenAnswer{Choice: choice, Label: label, Text: text}}
}

func TestHeldPermissionPrintsAllowOnceAnswered(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, e, wait := heldEmit(t, d, bashRequest)

	// The daemon says "pending" twice (its long polls ran out) before the answer comes.
	if timeout := d.nextWait(t); timeout != HoldPoll {
		t.Fatalf("the hook waits %v at a time, want %v", timeout, HoldPoll)
	}
	d.answers <- wire.PromptWait{Status: wire.PromptPending}
	d.nextWait(t)
	d.answers <- wire.PromptWait{Status: wire.PromptPending}
	d.nextWait(t)
	if out.String() != "" {
		t.Fatalf("printed %q before any answer", out.String())
	}
	d.answers <- answeredWith("allow", "Allow", "")
	if _, err := wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` + "\n"
	if out.String() != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.posts) != 1 || d.posts[0].Header.Get(wire.HeaderCanHold) != "1" {
		t.Fatalf("posts %d, the first with %s %q: want one saying the hook can hold", len(d.posts), wire.HeaderCanHold, d.posts[0].Header.Get(wire.HeaderCanHold))
	}
	if len(d.waits) != 3 || d.waits[0].Header.Get("Authorization") == "" {
		t.Fatalf("%d waits (want 3), authorised: %q", len(d.waits), d.waits[0].Header.Get("Authorization"))
	}
	if len(spooled(t, e.StateDir)) != 0 {
		t.Fatal("an acknowledged event was spooled")
	}
}

func TestHeldPermissionDeniedIsTheTerminalsNo(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, _, wait := heldEmit(t, d, bashRequest)
	d.nextWait(t)
	d.answers <- answeredWith("deny", "Deny", "")
	if _, err := wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	var got hookOutput
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("printed %q (%v), want one line of JSON", out.String(), err)
	}
	dec := got.HookSpecificOutput.Decision
	if got.HookSpecificOutput.HookEventName != "PermissionRequest" || dec.Behavior != "deny" || !dec.Interrupt ||
		!strings.Contains(dec.Message, "refused") || !strings.Contains(dec.Message, "Trail Boss") || dec.UpdatedInput != nil {
		t.Fatalf("printed %s, want deny with interrupt and a message saying the operator refused through Trail Boss", out.String())
	}
}

func TestHeldQuestionAnswersWithTheChosenOption(t *testing.T) {
	payload := askRequest(t)
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, _, wait := heldEmit(t, d, payload)
	d.nextWait(t)
	d.answers <- answeredWith("2", "Blue", "")
	if _, err := wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	var got struct {
		HookSpecificOutput struct {
			HookEventName string
			Decision      struct {
				Behavior     string
				UpdatedInput map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("printed %q: %v", out.String(), err)
	}
	var req struct {
		ToolInput map[string]any `json:"tool_input"`
	}
	if err := json.Unmarshal([]byte(payload), &req); err != nil {
		t.Fatal(err)
	}
	want := req.ToolInput
	want["answers"] = map[string]any{"Which color do you prefer?": "Blue"}
	dec := got.HookSpecificOutput.Decision
	if got.HookSpecificOutput.HookEventName != "PermissionRequest" || dec.Behavior != "allow" || !jsonSame(t, dec.UpdatedInput, want) {
		t.Fatalf("printed %s\nwant allow with updatedInput %v", out.String(), want)
	}
}

func jsonSame(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ja, jb) // maps marshal with sorted keys
}

// The terminal answered first: the daemon withdraws the prompt, and the hook, still
// waiting, exits at once printing nothing.
func TestHeldPermissionWithdrawnExitsAtOnceSilently(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, _, wait := heldEmit(t, d, bashRequest)
	d.nextWait(t)
	withdrawn := time.Now()
	d.answers <- wire.PromptWait{Status: wire.PromptWithdrawn}
	at, err := wait(5 * time.Second)
	if err != nil {
		t.Fatalf("withdrawn: %v, want a quiet nil (nothing failed)", err)
	}
	if took := at.Sub(withdrawn); took > 100*time.Millisecond {
		t.Errorf("the hook exited %v after the prompt was withdrawn, want within 100 ms", took)
	}
	if out.String() != "" {
		t.Fatalf("printed %q after a withdrawal, want nothing", out.String())
	}
}

func TestHeldPermissionEndsSilentlyWhenThePromptDoesNotWaitAnyMore(t *testing.T) {
	for _, status := range []string{wire.PromptExpired, wire.PromptFailed, "some-later-status"} {
		t.Run(status, func(t *testing.T) {
			d := newHoldingDaemon(t, holdFor(10*time.Minute))
			out, _, wait := heldEmit(t, d, bashRequest)
			d.nextWait(t)
			d.answers <- wire.PromptWait{Status: status}
			if _, err := wait(5 * time.Second); err != nil || out.String() != "" {
				t.Fatalf("%s: err %v, printed %q; want nil and nothing", status, err, out.String())
			}
		})
	}
}

// A daemon that never answers: the hook asks no longer than the prompt's expires_at, then
// exits printing nothing.
func TestHeldPermissionGivesUpAtExpiresAt(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(700*time.Millisecond))
	start := time.Now()
	out, _, wait := heldEmit(t, d, bashRequest)
	if timeout := d.nextWait(t); timeout > 700*time.Millisecond {
		t.Fatalf("the hook's first wait is %v, past the prompt's expires_at", timeout)
	}
	at, err := wait(5 * time.Second)
	if err != nil || out.String() != "" {
		t.Fatalf("err %v, printed %q; want nil and nothing", err, out.String())
	}
	if took := at.Sub(start); took < 600*time.Millisecond || took > 1500*time.Millisecond {
		t.Fatalf("the hook gave up after %v, want about 700 ms (the prompt's expires_at)", took)
	}
}

// The daemon goes away while the hook holds: it exits printing nothing and says why in
// its error (for emit.log).
func TestHeldPermissionDaemonGoneMeansNothingPrinted(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, _, wait := heldEmit(t, d, bashRequest)
	d.nextWait(t)
	gone := time.Now()
	// As a daemon that exits: nothing listens any more, and its connections close.
	d.srv.Listener.Close()
	d.srv.CloseClientConnections()
	at, err := wait(5 * time.Second)
	if err == nil || !strings.Contains(err.Error(), "hold for prompt p1") || !strings.Contains(err.Error(), "wait at daemon") {
		t.Fatalf("daemon gone: %v, want an error saying the wait failed", err)
	}
	if took := at.Sub(gone); took > time.Second {
		t.Errorf("the hook exited %v after the daemon went away, want at once", took)
	}
	if out.String() != "" {
		t.Fatalf("printed %q with the daemon gone, want nothing", out.String())
	}
}

func TestHeldPermissionUnknownPromptMeansNothingPrinted(t *testing.T) {
	d := newHoldingDaemon(t, &wire.Hold{PromptID: "p-unknown", ExpiresAt: time.Now().Add(time.Minute)})
	out, _, wait := heldEmit(t, d, bashRequest)
	_, err := wait(5 * time.Second)
	if err == nil || !strings.Contains(err.Error(), "404") || out.String() != "" {
		t.Fatalf("unknown prompt: err %v, printed %q; want a 404 error and nothing printed", err, out.String())
	}
}

// An answer that decides nothing for the request (a menu key for a Bash command) is not
// turned into a decision: nothing is printed, and the error says why.
func TestHeldPermissionAnswerThatDecidesNothingPrintsNothing(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, _, wait := heldEmit(t, d, bashRequest)
	d.nextWait(t)
	d.answers <- answeredWith("2", "Yes, and don't ask again", "")
	_, err := wait(5 * time.Second)
	if !errors.Is(err, errNoDecision) || out.String() != "" {
		t.Fatalf("err %v, printed %q; want errNoDecision and nothing printed", err, out.String())
	}
}

// One hold, one prompt: an answer is printed only for the tool call the record asks about.
// A record of another call (a second PermissionRequest of the session), or a daemon that
// does not say which call its record is for, decides nothing: the hook prints nothing and
// the dialog stays for the keyboard.
func TestHeldPermissionDecidesOnlyItsOwnToolCall(t *testing.T) {
	other := claude.Subject("Bash", json.RawMessage(`{"command":"touch y","description":"Create y"}`))
	for _, tt := range []struct {
		name    string
		subject string
		want    string // in the error
	}{
		{"another tool call's record", other, "another tool call"},
		{"a daemon that does not say", noSubject, "did not say which tool call"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := newHoldingDaemon(t, holdFor(10*time.Minute))
			out, _, wait := heldEmit(t, d, bashRequest)
			d.nextWait(t)
			ans := answeredWith("allow", "Allow", "")
			ans.Subject = tt.subject
			d.answers <- ans
			_, err := wait(5 * time.Second)
			if err == nil || !strings.Contains(err.Error(), tt.want) || out.String() != "" {
				t.Fatalf("err %v, printed %q; want an error saying %q and nothing printed", err, out.String(), tt.want)
			}
		})
	}
}

// On a busy machine the daemon may take longer than a hook's budget to take a
// PermissionRequest. One that can hold still holds (its dialog is on screen meanwhile, so
// waiting slows nobody), and the answer still reaches Claude Code; any other event keeps
// its budget and is spooled.
func TestHoldablePermissionWaitsOutASlowDaemon(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	d.slow = 3 * EmitTimeout
	out, _, wait := heldEmit(t, d, bashRequest)
	d.nextWait(t)
	d.answers <- answeredWith("allow", "Allow", "")
	if _, err := wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"behavior":"allow"`) {
		t.Fatalf("printed %q; want the allow decision", out.String())
	}

	e := emitter(t, d.addr(), strings.NewReader(preToolUse), EmitTimeout-EmitReserve)
	e.Hold = true
	start := time.Now()
	if err := e.Emit(context.Background()); err == nil {
		t.Fatal("a PreToolUse the daemon took too long for reported no error; want it spooled")
	}
	// Its request gave up at its budget, not at the holdable one's (a loaded machine adds
	// some to the spool's write, so the bound is between the two).
	if took := time.Since(start); took >= HoldAckTimeout/2 {
		t.Fatalf("the PreToolUse took %v, want about its %v budget, far from %v", took, EmitTimeout, HoldAckTimeout)
	}
	if left := spooled(t, e.StateDir); len(left) != 1 {
		t.Fatalf("%d spooled events; want the PreToolUse alone", len(left))
	}
}

// With holding off the daemon's answer names no prompt: the hook returns within its
// budget, as every hook did before holding, printing nothing.
func TestPermissionNotHeldReturnsWithinTheBudget(t *testing.T) {
	d := newHoldingDaemon(t, nil)
	out, _, wait := heldEmit(t, d, bashRequest)
	start := time.Now()
	at, err := wait(2 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if took := at.Sub(start); took >= EmitTimeout {
		t.Fatalf("took %v, want within the %v budget", took, EmitTimeout)
	}
	posts, waits := d.counts()
	if out.String() != "" || posts != 1 || waits != 0 {
		t.Fatalf("printed %q, %d posts, %d waits; want nothing printed, one post, no wait", out.String(), posts, waits)
	}
	if d.posts[0].Header.Get(wire.HeaderCanHold) != "1" {
		t.Fatal("the PermissionRequest did not say it can hold")
	}
}

// Without holding on in this user's config, a PermissionRequest does not say it can hold
// and does not wait, even for a daemon (or a program posing as one) that answers with a
// hold: it prints nothing and returns within its budget.
func TestPermissionNeverHoldsWhenLocalConfigSaysNo(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	e := emitter(t, d.addr(), strings.NewReader(bashRequest), EmitTimeout-EmitReserve)
	var out bytes.Buffer
	e.Stdout = &out
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second) // a hold would last this long
	defer cancel()
	start := time.Now()
	err := e.Emit(ctx)
	if took := time.Since(start); took >= EmitTimeout {
		t.Fatalf("took %v, want within the %v budget", took, EmitTimeout)
	}
	posts, waits := d.counts()
	if err != nil || out.Len() != 0 || posts != 1 || waits != 0 {
		t.Fatalf("err %v, printed %q, %d posts, %d waits; want nothing printed, one post, no wait", err, out.String(), posts, waits)
	}
	if d.posts[0].Header.Get(wire.HeaderCanHold) != "" {
		t.Fatal("the PermissionRequest said it can hold though holding is off here")
	}
}

// Only a PermissionRequest holds: a PreToolUse (it comes before the dialog is shown) and a
// Codex hook (it would block Codex's own prompt) neither say they can nor wait, even for a
// daemon that answers with a hold.
func TestOnlyClaudePermissionRequestsHold(t *testing.T) {
	d := newHoldingDaemon(t, holdFor(10*time.Minute))
	out, _, wait := heldEmit(t, d, preToolUse)
	if _, err := wait(2 * time.Second); err != nil || out.String() != "" {
		t.Fatalf("PreToolUse: err %v, printed %q", err, out.String())
	}
	codexRequest := `{"session_id":"T","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`
	e := emitter(t, d.addr(), strings.NewReader(codexRequest), EmitTimeout-EmitReserve)
	e.Stdout = out
	start := time.Now()
	if err := e.EmitCodex(context.Background(), nil); err != nil || out.String() != "" {
		t.Fatalf("Codex PermissionRequest: err %v, printed %q", err, out.String())
	}
	if took := time.Since(start); took >= EmitTimeout {
		t.Fatalf("the Codex hook took %v", took)
	}
	posts, waits := d.counts()
	if posts != 2 || waits != 0 {
		t.Fatalf("%d posts, %d waits; want 2 posts and no wait", posts, waits)
	}
	for _, r := range d.posts {
		if r.Header.Get(wire.HeaderCanHold) != "" {
			t.Fatalf("%s said it can hold", r.URL.Path)
		}
	}
}

// A 2xx answer that cannot be read means the daemon took the event: it is not spooled
// (that would queue it twice), and the hook returns printing nothing.
func TestPermissionUnreadableAnswerIsNotSpooled(t *testing.T) {
	rc := &recorder{code: http.StatusOK, reply: "ok"}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), strings.NewReader(bashRequest), time.Second)
	e.Hold = true
	var out bytes.Buffer
	e.Stdout = &out
	err := e.Emit(context.Background())
	if err == nil || !strings.Contains(err.Error(), "could not be read") {
		t.Fatalf("Emit: %v, want an error saying the answer could not be read", err)
	}
	if n := len(spooled(t, e.StateDir)); n != 0 || out.Len() != 0 {
		t.Fatalf("%d spooled, printed %q; want neither", n, out.String())
	}
}

// requestOf is a PermissionRequest for tool with input, as permissionRequestOf decodes one.
func requestOf(tool, input string) *permissionRequest {
	return &permissionRequest{claude.Payload{HookPayload: adapter.HookPayload{HookEventName: "PermissionRequest",
		ToolName: tool, ToolInput: json.RawMessage(input)}}}
}

func TestDecisionFor(t *testing.T) {
	ask := `{"questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}],"multiSelect":false}],"note":"<kept>"}`
	askReq := requestOf(askUserQuestion, ask)
	bash := requestOf("Bash", `{"command":"ls"}`)
	plan := requestOf("ExitPlanMode", `{"plan":"1. x","planFilePath":"/h/.claude/plans/p.md"}`)
	allow := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` + "\n"
	deny := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"` + DenyMessage + `","interrupt":true}}}` + "\n"
	answer := func(a string) string {
		return `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"answers":{"Which colour?":"` + a + `"},"note":"<kept>","questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}],"multiSelect":false}]}}}}` + "\n"
	}
	cases := []struct {
		name string
		req  *permissionRequest
		a    *wire.GivenAnswer
		want string // "" for errNoDecision
	}{
		{"a tool allowed", bash, &wire.GivenAnswer{Choice: "allow", Label: "Allow"}, allow},
		{"a tool denied", bash, &wire.GivenAnswer{Choice: "deny"}, deny},
		{"a plan approved, its input handed back", plan, &wire.GivenAnswer{Choice: "allow"},
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"plan":"1. x","planFilePath":"/h/.claude/plans/p.md"}}}}` + "\n"},
		{"a plan refused", plan, &wire.GivenAnswer{Choice: "deny"}, deny},
		{"a question by its label", askReq, &wire.GivenAnswer{Choice: "2", Label: "Blue"}, answer("Blue")},
		{"a question by the key alone", askReq, &wire.GivenAnswer{Choice: "1"}, answer("Red")},
		{"a label that is no option: the key's option", askReq, &wire.GivenAnswer{Choice: "2", Label: "2. Blue"}, answer("Blue")},
		{"a question answered in words (Other)", askReq, &wire.GivenAnswer{Text: "Green, please"}, answer("Green, please")},
		{"a question refused", askReq, &wire.GivenAnswer{Choice: "deny"}, deny},
		{"a key past the options", askReq, &wire.GivenAnswer{Choice: "3"}, ""},
		{"allow is no option of a question", askReq, &wire.GivenAnswer{Choice: "allow"}, ""},
		{"a menu key for a tool", bash, &wire.GivenAnswer{Choice: "1"}, ""},
		{"text for a tool", bash, &wire.GivenAnswer{Text: "yes"}, ""},
		{"no answer", bash, nil, ""},
		{"a question with no questions", requestOf(askUserQuestion, `{"questions":[]}`), &wire.GivenAnswer{Choice: "1"}, ""},
		{"a question whose input is no object", requestOf(askUserQuestion, `"x"`), &wire.GivenAnswer{Choice: "1"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decisionFor(c.req, c.a)
			if c.want == "" {
				if !errors.Is(err, errNoDecision) {
					t.Fatalf("got %q, %v; want errNoDecision", got, err)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Fatalf("got  %s (%v)\nwant %s", got, err, c.want)
			}
		})
	}
}

func TestPermissionRequestOf(t *testing.T) {
	for body, want := range map[string]string{
		bashRequest: "Bash",
		planRequest: "ExitPlanMode",
		preToolUse:  "",
		payload:     "",
		`{`:         "",
		`[]`:        "",
	} {
		r := permissionRequestOf([]byte(body))
		if (r == nil) != (want == "") || (r != nil && r.ToolName != want) {
			t.Errorf("permissionRequestOf(%.40q) = %+v, want tool %q", body, r, want)
		}
	}
}

// slowReader gives its payload only after a delay, as a hook's stdin does on a machine so
// loaded that the hook barely runs.
type slowReader struct {
	delay time.Duration
	r     io.Reader
	once  sync.Once
}

func (s *slowReader) Read(p []byte) (int, error) {
	s.once.Do(func() { time.Sleep(s.delay) })
	return s.r.Read(p)
}

// A payload that comes later than the daemon's whole budget is still sent: reading it has a
// budget of its own. (Sharing the 300 ms, such an event was lost: neither sent nor spooled.)
func TestAPayloadReadLateIsStillSent(t *testing.T) {
	d := newHoldingDaemon(t, nil)
	e := emitter(t, d.addr(), &slowReader{delay: 2 * EmitTimeout, r: strings.NewReader(preToolUse)}, EmitTimeout-EmitReserve)
	if err := e.Emit(context.Background()); err != nil {
		t.Fatalf("a payload read %v late: %v; want it sent", 2*EmitTimeout, err)
	}
	if posts, _ := d.counts(); posts != 1 {
		t.Fatalf("%d posts; want the late payload posted once", posts)
	}
	if left := spooled(t, e.StateDir); len(left) != 0 {
		t.Fatalf("%d spooled events; want none: the daemon took it", len(left))
	}
}
