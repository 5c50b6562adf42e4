package telegram_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
)

// fakeHosts is a hub's other hosts as the relay sees them: items set by the test, answers
// recorded and refused as an unreachable host's.
type fakeHosts struct {
	mu          sync.Mutex
	items       []wire.Item
	unreachable bool
	answers     []string // prompt id, nonce, choice
	subs        []chan struct{}
}

func (f *fakeHosts) Items() []wire.Item {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wire.Item(nil), f.items...)
}

func (f *fakeHosts) Unreachable(host string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return host == "devbox" && f.unreachable
}

func (f *fakeHosts) Answer(_ context.Context, id string, a wire.Answer) (wire.Delivered, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, id+" "+a.Nonce+" "+a.Choice)
	return wire.Delivered{}, &wire.PromptRefusal{Reason: wire.RefusedUnreachable, Message: "the host devbox is unreachable since 10:00:00"}
}

func (f *fakeHosts) Subscribe() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan struct{}, 1)
	f.subs = append(f.subs, ch)
	return ch
}

// set changes the items and reachability, and signals the relay.
func (f *fakeHosts) set(items []wire.Item, unreachable bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items, f.unreachable = items, unreachable
	for _, ch := range f.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// TestAnotherHostsPromptWaitsForItsHost: on a hub, another host's permission reaches the
// chat named for its host, with buttons whose data carry the hub's id and no nonce of the
// host's; its place is as the host said (nothing looked up here). While its host is
// unreachable its message stays open, even once the hub no longer has the item (a restart);
// an answer goes to Hosts.Answer without a nonce, and its refusal is told. When the host is
// back without the item, the message closes.
func TestAnotherHostsPromptWaitsForItsHost(t *testing.T) {
	hs := &fakeHosts{}
	w := newWorldWith(t, func(w *world) { w.hosts = hs })
	item := wire.Item{SessionID: "s-remote", Host: "devbox", Pane: "%3", Cwd: "/srv/checkout/webapp", Reason: "permission",
		Since: time.Now(), Ready: true, Prompt: &wire.Prompt{ID: "devbox/p0123456789abcdef", Kind: wire.KindPermission,
			Question: "make deploy", Choices: []wire.Choice{{Key: "allow", Label: "Allow"}, {Key: "deny", Label: "Deny"}},
			ExpiresAt: time.Now().Add(time.Hour)}}
	hs.set([]wire.Item{item}, false)
	m := w.message("the remote prompt's message", 10*time.Second, func(m faketelegram.Message) bool {
		return strings.Contains(m.Text, "make deploy")
	})
	if !strings.Contains(m.Text, "webapp") || !strings.Contains(m.Text, "tmux %3 · on devbox") {
		t.Fatalf("the remote prompt's message: %q, want webapp, tmux %%3 · on devbox", m.Text)
	}
	allow := keyFor(t, m, "allow")
	if allow != "a:devbox/p0123456789abcdef:-:allow" {
		t.Fatalf("Allow's data: %q", allow)
	}

	// Unreachable, and the hub lost the item (as after its restart): the message stays.
	stale := item
	stale.Stale = true
	hs.set([]wire.Item{stale}, true)
	hs.set(nil, true)
	_, cb := w.bot.Tap(operator, chat, m.ID, allow)
	if a := w.callbackAnswer(cb); !strings.HasPrefix(a.Text, "The host devbox is unreachable since") {
		t.Fatalf("the tap with the host unreachable was answered %q", a.Text)
	}
	hs.mu.Lock()
	got := strings.Join(hs.answers, "|")
	hs.mu.Unlock()
	if got != "devbox/p0123456789abcdef  allow" {
		t.Fatalf("answers given to the hosts: %q, want one Allow of devbox/p0123456789abcdef without a nonce", got)
	}
	// A barrier: a local prompt that comes and goes after the hub lost the item. The pass
	// that sends its message saw the hub without the item, and ended before the pass that
	// closes it: by then the remote message would have been closed.
	pane, _ := w.env.NewReaderPane(t, "work", t.TempDir(), "Continue? (y/n) ")
	p := w.stuck("s-local", pane, "", yesNo)
	lm := w.message("the local prompt's message", 5*time.Second, forPrompt(p))
	w.unstuck("s-local")
	w.message("the local message closed", 5*time.Second, func(x faketelegram.Message) bool { return x.ID == lm.ID && x.Edits > 0 })
	if cur, _ := w.bot.Message(m.ID); cur.Edits != 0 || len(cur.Keys()) != 2 {
		t.Fatalf("the unreachable host's prompt's message was edited: %q %q", cur.Text, cur.Keys())
	}

	// Back, without the item: closed.
	hs.set(nil, false)
	if err := w.bot.Wait(10*time.Second, func() bool {
		cur, _ := w.bot.Message(m.ID)
		return strings.Contains(cur.Text, "No longer waiting") && len(cur.Keys()) == 0
	}); err != nil {
		cur, _ := w.bot.Message(m.ID)
		t.Fatalf("the message once its host is back without the item: %q %q", cur.Text, cur.Keys())
	}
}
