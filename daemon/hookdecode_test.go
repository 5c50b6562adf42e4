package daemon

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/queue"
)

// countDecodes wraps harness's decoder so that the test can count how often a payload of it
// is decoded, and puts the real one back after the test.
func countDecodes(t *testing.T, harness string) *int {
	t.Helper()
	real := hookDecoders[harness]
	n := new(int)
	hookDecoders[harness] = func(body []byte) (hookPayload, error) {
		*n++
		return real(body)
	}
	t.Cleanup(func() { hookDecoders[harness] = real })
	return n
}

// TestHookIsDecodedOnceAndHoldsByWhatItSays: a hook's payload is decoded once on its way
// in, and whether it may hold is read from that value (issue 32: a Claude Code
// PermissionRequest was decoded again just to ask that). A PermissionRequest that can hold is
// held; a PreToolUse of the same question, stuck and asked by the hook too, is not (its
// dialog is not drawn yet), and neither is decoded twice.
func TestHookIsDecodedOnceAndHoldsByWhatItSays(t *testing.T) {
	decodes := countDecodes(t, claude.Harness)
	e, _ := newEngine(t)
	c := &Core{Engine: e, Log: discard, Holds: &Holds{}, HoldPermissions: true,
		Ingest: &Ingestor{Engine: e, Log: discard, Now: time.Now, SocketExists: func(p string) bool { return p == testSocket }}}
	question := `"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Which colour?","options":[{"label":"Red"},{"label":"Blue"}]}]}`
	for _, tt := range []struct {
		session, hook string
		held          bool
	}{
		{"s1", "PreToolUse", false},
		{"s2", "PermissionRequest", true},
	} {
		*decodes = 0
		ack, err := c.Hook(context.Background(), HookPost{Harness: claude.Harness, Payload: []byte(hookBody(tt.session, tt.hook, question)),
			Pane: "%1", Tmux: testSocket + ",4242,0", CanHold: true})
		if err != nil {
			t.Fatalf("%s: %v", tt.hook, err)
		}
		if *decodes != 1 {
			t.Errorf("%s: decoded %d times on its way in, want once", tt.hook, *decodes)
		}
		if (ack.Hold != nil) != tt.held {
			t.Errorf("%s: told to hold %+v, want held %v", tt.hook, ack.Hold, tt.held)
		}
		if !slices.ContainsFunc(e.Items(), func(it queue.Item) bool { return it.ID == tt.session }) {
			t.Errorf("%s: session %s not queued: %+v", tt.hook, tt.session, e.Items())
		}
	}
}

// The daemon's way in for a payload that holds, up to the events and whether it may hold:
// its allocs/op guard it being decoded once (issue 32).
func BenchmarkInboundClaudePermissionRequest(b *testing.B) {
	body := []byte(hookBody("s1", "PermissionRequest", `"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Which colour?","options":[{"label":"Red"},{"label":"Blue"}]}]}`))
	meta := adapter.Meta{Pane: "%1", Tmux: testSocket + ",1,0", EmittedAt: time.Now()}
	b.ReportAllocs()
	for range b.N {
		p, err := hookDecoders["claude"](body)
		if err != nil {
			b.Fatal(err)
		}
		evs, err := p.Events(meta)
		if err != nil || !p.Holdable() || len(evs) != 1 {
			b.Fatal(err)
		}
	}
}

func BenchmarkInboundOpenCodeQuestion(b *testing.B) {
	body := []byte(`{"type":"question.asked","properties":{"id":"que_1","sessionID":"ses_1","questions":[{"question":"Which colour do you want?","header":"Colour","options":[{"label":"Red","description":"the warm one"},{"label":"Blue","description":"the cool one"}]}]}}`)
	meta := adapter.Meta{Pane: "%1", Tmux: testSocket + ",1,0", EmittedAt: time.Now()}
	b.ReportAllocs()
	for range b.N {
		p, err := hookDecoders["opencode"](body)
		if err != nil {
			b.Fatal(err)
		}
		evs, err := p.Events(meta)
		if err != nil || !p.Holdable() || len(evs) != 1 {
			b.Fatal(err)
		}
	}
}
