package emit

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const codexNotifyPayload = `{"type":"agent-turn-complete","thread-id":"T","turn-id":"1","cwd":"/src","input-messages":[],"last-assistant-message":"done"}`

func TestEmitCodexPostsTheArgumentWithThePaneToTheCodexRoute(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), strings.NewReader("stdin is not read when the payload is an argument"), 2*time.Second)
	e.Getenv = envOf(map[string]string{"TMUX_PANE": "%9", "TMUX": "/tmp/tbx-emit/default,4242,0"})
	at := time.Date(2026, 11, 21, 9, 0, 0, 7, time.UTC)
	e.Now = func() time.Time { return at }
	if err := e.EmitCodex(context.Background(), []byte(codexNotifyPayload)); err != nil {
		t.Fatal(err)
	}
	if rc.count() != 1 {
		t.Fatalf("%d requests, want 1", rc.count())
	}
	req, body := rc.requests[0], string(rc.bodies[0])
	if req.URL.Path != "/v1/hooks/codex" || body != codexNotifyPayload || req.Header.Get("X-Tmux-Pane") != "%9" ||
		req.Header.Get("X-Tmux") != "/tmp/tbx-emit/default,4242,0" ||
		req.Header.Get("X-Trailboss-Emitted-At") != at.Format(time.RFC3339Nano) {
		t.Fatalf("sent %s %s with %v", req.URL.Path, body, req.Header)
	}
}

func TestEmitCodexReadsStdinWithoutAnArgument(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	hook := `{"session_id":"T","hook_event_name":"UserPromptSubmit","prompt":"go"}`
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), strings.NewReader(hook), 2*time.Second)
	if err := e.EmitCodex(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if rc.count() != 1 || string(rc.bodies[0]) != hook || rc.requests[0].URL.Path != "/v1/hooks/codex" {
		t.Fatalf("sent %q", rc.bodies)
	}
}

func TestEmitCodexSpoolsForTheCodexAdapter(t *testing.T) {
	e := emitter(t, freeAddr(t), nil, EmitTimeout)
	e.Getenv = envOf(map[string]string{"TMUX_PANE": "%9", "TMUX": "/tmp/s,1,0"})
	err := e.EmitCodex(context.Background(), []byte(codexNotifyPayload))
	if err == nil || !strings.Contains(err.Error(), "kept in the spool") {
		t.Fatalf("EmitCodex to a daemon that is down: %v, want it spooled", err)
	}
	got := spooled(t, e.StateDir)
	if len(got) != 1 || got[0].Harness != "codex" || !sameJSON(t, got[0].Body, []byte(codexNotifyPayload)) || got[0].Pane != "%9" {
		t.Fatalf("spooled %+v", got)
	}
}

// Under Codex's shared app-server the pane in the environment is whichever TUI started it:
// the payload is read (Codex writes it to the hook's stdin) but neither sent nor spooled.
func TestEmitCodexUnderTheSharedAppServerSendsNothing(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	was := codexAppServer
	t.Cleanup(func() { codexAppServer = was })
	codexAppServer = func() int { return 4242 }

	hook := `{"session_id":"T","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`
	stdin := strings.NewReader(hook)
	e := emitter(t, strings.TrimPrefix(srv.URL, "http://"), stdin, 2*time.Second)
	e.Getenv = envOf(map[string]string{"TMUX_PANE": "%1", "TMUX": "/tmp/tbx-emit/default,4242,0"})
	err := e.EmitCodex(context.Background(), nil)
	if !errors.Is(err, ErrSharedAppServer) || !strings.Contains(err.Error(), "pid 4242") {
		t.Fatalf("EmitCodex = %v, want ErrSharedAppServer naming the app-server", err)
	}
	if rc.count() != 0 || len(spooled(t, e.StateDir)) != 0 || stdin.Len() != 0 {
		t.Fatalf("sent %d, spooled %d, left %d bytes of stdin unread", rc.count(), len(spooled(t, e.StateDir)), stdin.Len())
	}

	// Outside tmux there is no pane to get wrong: the payload goes as it is.
	e.Getenv = envOf(nil)
	if err := e.EmitCodex(context.Background(), []byte(codexNotifyPayload)); err != nil || rc.count() != 1 {
		t.Fatalf("outside tmux: %v, %d requests", err, rc.count())
	}
}

func TestIsCodexAppServer(t *testing.T) {
	for argv, want := range map[string]bool{
		"/home/u/.codex/packages/app-server-daemon/releases/0.169.0-x86_64-unknown-linux-musl/bin/codex app-server --listen unix:// --analytics-default-enabled --managed-daemon": true,
		"codex app-server daemon pid-update-loop":       true,
		"codex-x86_64-unknown-linux-musl app-server":    true,
		"/x/vendor/x86_64-unknown-linux-musl/bin/codex": false, // a TUI
		"node /x/node_modules/.bin/codex":               false,
		"codex exec say hi":                             false,
		"/usr/bin/app-server codex":                     false,
		"sh -c trailboss emit --codex":                  false,
	} {
		if got := IsCodexAppServer(strings.Fields(argv)); got != want {
			t.Errorf("IsCodexAppServer(%q) = %v, want %v", argv, got, want)
		}
	}
}
