package httpapi_test

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/hosts"
	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/wire"
)

// oneHost is a hub's other host holding remote, a stub of package hosts' Set.
type oneHost struct {
	remote []wire.Item
	jumps  []wire.HostJump
}

func (h *oneHost) Queue(local []wire.Item) []wire.Item {
	return hosts.Merge([]hosts.HostQueue{{Items: local}, {Items: h.remote}})
}
func (h *oneHost) Ordered(local []wire.Item) iter.Seq[wire.Item] {
	return slices.Values(h.Queue(local))
}
func (h *oneHost) Counts() (int, int, []string) { return len(h.remote), 0, nil }
func (h *oneHost) States() []wire.Host          { return nil }
func (h *oneHost) Jump(_ context.Context, host, socket, pane string) error {
	h.jumps = append(h.jumps, wire.HostJump{Host: host, Socket: socket, Pane: pane})
	return nil
}
func (h *oneHost) Forward(context.Context, string, hosts.Request) (hosts.Response, error) {
	return hosts.Response{}, hosts.ErrUnknownHost
}
func (h *oneHost) HostOf(string) string { return "" }
func (h *oneHost) Await(context.Context, string, time.Duration, func(wire.Item, bool) bool, string) bool {
	return false
}

// TestHubNextReachesAnotherHostsPane: on a hub, /v1/next may answer another host's item,
// whatever tmux server the caller is on, and the caller's pane is passed over only among
// this machine's own items: another host's %1 is not the caller's %1.
func TestHubNextReachesAnotherHostsPane(t *testing.T) {
	f := newAPI(t)
	h := &oneHost{remote: []wire.Item{{SessionID: "far", Host: "devbox", Pane: "%1", TmuxSocket: "/there/s",
		Ready: true, Since: time.Now().Add(time.Hour), Attach: "ssh -t devbox trailboss attach"}}}
	core := &daemon.Core{Engine: f.engine, Log: discard, Ingest: &daemon.Ingestor{Engine: f.engine, Log: discard,
		Now: func() time.Time { return f.now }, SocketExists: func(path string) bool { return path == testSocket }}}
	f.h = (&httpapi.Server{Core: core, Token: testToken, Version: "v-test", Log: discard, Hosts: h}).Handler()
	mustStatus(t, f.hook(hookBody("near", "Stop", `"last_assistant_message":"done?"`), "%1"), http.StatusOK)
	if items := f.engine.Items(); len(items) != 1 || !items[0].Ready {
		t.Fatalf("this machine's queue: %+v, want its one item ready", items)
	}
	next := func(q string) wire.Item {
		t.Helper()
		rec := f.do(http.MethodGet, wire.RouteNext+q, nil)
		mustStatus(t, rec, http.StatusOK)
		var it wire.Item
		if err := json.Unmarshal(rec.Body.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		return it
	}
	if it := next("?socket=" + testSocket); it.SessionID != "near" {
		t.Fatalf("next from elsewhere on this server: %s, want this machine's older item", it.SessionID)
	}
	if it := next("?socket=" + testSocket + "&pane=%251"); it.SessionID != "far" || it.Host != "devbox" || it.Attach == "" {
		t.Fatalf("next from this machine's %%1: %+v, want devbox's item on its own %%1, with its attach command", it)
	}
	if it := next("?socket=/another/server"); it.SessionID != "far" {
		t.Fatalf("next from another tmux server of this machine: %s, want devbox's item", it.SessionID)
	}

	rec := f.do(http.MethodPost, wire.RouteHostJump, strings.NewReader(`{"host":"devbox","socket":"/there/s","pane":"%1"}`))
	mustStatus(t, rec, http.StatusOK)
	if len(h.jumps) != 1 || h.jumps[0] != (wire.HostJump{Host: "devbox", Socket: "/there/s", Pane: "%1"}) {
		t.Fatalf("jumps forwarded: %+v, want the one asked", h.jumps)
	}
	rec = f.do(http.MethodPost, wire.RouteHostJump, strings.NewReader(`{"host":"devbox","socket":"/there/s","pane":"1; rm"}`))
	mustStatus(t, rec, http.StatusBadRequest)
	if len(h.jumps) != 1 {
		t.Fatalf("a jump to a pane that is not a pane id was forwarded: %+v", h.jumps)
	}
}

// TestJumpPanesOnAHub: the panes the jump key goes to without a process are those jump
// itself would land on here: this machine's older item on the caller's server, then, from
// its pane, none when the next is another host's (the key asks the daemon, which moves the
// client over ssh); nothing at all when another host's item is the head, or for a tmux
// server with no item of its own.
func TestJumpPanesOnAHub(t *testing.T) {
	f := newAPI(t)
	// devbox's tmux server has the same socket path as this one's (the default one often
	// does): its item is still not on this server.
	h := &oneHost{remote: []wire.Item{{SessionID: "far", Host: "devbox", Pane: "%7", TmuxSocket: testSocket,
		Ready: true, Since: f.now.Add(time.Hour)}}}
	core := &daemon.Core{Engine: f.engine, Log: discard, Ingest: &daemon.Ingestor{Engine: f.engine, Log: discard,
		Now: func() time.Time { return f.now }, SocketExists: func(path string) bool { return path == testSocket }}}
	api := &httpapi.Server{Core: core, Token: testToken, Version: "v-test", Log: discard, Hosts: h}
	f.h = api.Handler()
	mustStatus(t, f.hook(hookBody("near", "Stop", `"last_assistant_message":"done?"`), "%1"), http.StatusOK)
	if head, next := api.JumpPanes(testSocket); head != "%1" || next != "" {
		t.Errorf("JumpPanes(this server) = %q, %q; want %%1 and nothing (devbox's item is next)", head, next)
	}
	if head, next := api.JumpPanes("/another/server"); head != "" || next != "" {
		t.Errorf("JumpPanes(another server) = %q, %q; want nothing (devbox's item is its head)", head, next)
	}
	h.remote[0].Since = f.now.Add(-time.Hour) // devbox's item is older: the head
	if head, next := api.JumpPanes(testSocket); head != "" || next != "" {
		t.Errorf("JumpPanes with devbox's item at the head = %q, %q; want nothing", head, next)
	}
}
