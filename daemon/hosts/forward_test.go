package hosts

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

func TestPromptIDsAreNamedByTheirHost(t *testing.T) {
	for id, want := range map[string][3]any{
		"devbox/p0123456789abcdef": {"devbox", "p0123456789abcdef", true},
		"p0123456789abcdef":        {"", "p0123456789abcdef", false},
		"/p0123456789abcdef":       {"", "p0123456789abcdef", false},
	} {
		host, remote, ok := SplitPrompt(id)
		if host != want[0] || remote != want[1] || ok != want[2] {
			t.Errorf("SplitPrompt(%q) = %q %q %v, want %v", id, host, remote, ok, want)
		}
	}
	if id := Namespaced("devbox", "p0123456789abcdef"); id != "devbox/p0123456789abcdef" {
		t.Errorf("Namespaced = %q", id)
	}
}

// A host's update keeps its items' prompts, named host/id, without touching the records
// the update came with.
func TestAHostsPromptsAreKeptNamespaced(t *testing.T) {
	c := NewConn(Config{Name: "devbox"}, t.TempDir(), "dev", slog.New(slog.NewTextHandler(io.Discard, nil)))
	p := &wire.Prompt{ID: "p0123456789abcdef", Kind: wire.KindFreeText}
	closed := &wire.ClosedPrompt{ID: "p00000000000000ff", Status: "answered"}
	upd := wire.QueueUpdate{ServerTime: time.Now(), Items: []wire.Item{
		{SessionID: "s1", Prompt: p}, {SessionID: "s2", PromptClosed: closed}}}
	c.apply(upd, time.Now(), time.Millisecond, true)
	got := c.snapshot().Items
	if len(got) != 2 || got[0].Prompt == nil || got[0].Prompt.ID != "devbox/p0123456789abcdef" ||
		got[1].PromptClosed == nil || got[1].PromptClosed.ID != "devbox/p00000000000000ff" {
		t.Fatalf("the host's items: %+v", got)
	}
	if p.ID != "p0123456789abcdef" || closed.ID != "p00000000000000ff" {
		t.Fatal("the update's own records were renamed")
	}
	s := &Set{conns: []*Conn{c}}
	if h := s.HostOf("s2"); h != "devbox" {
		t.Errorf("HostOf(s2) = %q, want devbox", h)
	}
	if h := s.HostOf("nope"); h != "" {
		t.Errorf("HostOf(nope) = %q, want none", h)
	}
}

// TestAddressOfReadsSSHsOwnConfig: the probe knocks where ssh -G says ssh connects, and
// nowhere through a proxy.
func TestAddressOfReadsSSHsOwnConfig(t *testing.T) {
	for g, want := range map[string]string{
		"user me\nhostname 127.0.0.1\nport 2222\naddressfamily any\n": "127.0.0.1:2222",
		"hostname ::1\nport 22\n":                                     "[::1]:22",
		"hostname devbox\nport 22\nproxyjump bastion\n":               "",
		"hostname devbox\nport 22\nproxycommand nc %h %p\n":           "",
		"hostname devbox\nport 22\nproxycommand none\n":               "devbox:22",
		"port 22\n": "",
	} {
		if got := addressOf([]byte(g)); got != want {
			t.Errorf("addressOf(%q) = %q, want %q", g, got, want)
		}
	}
}
