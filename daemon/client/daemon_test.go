package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/store"
)

// TestClientAgainstTheRealAPI checks that the client and the daemon agree on routes,
// auth and JSON: a field renamed on one side only fails here.
func TestClientAgainstTheRealAPI(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tok, err := statedir.EnsureToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(dir, statedir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.DiscardHandler)
	engine, err := daemon.NewEngine(ctx, st, time.Minute, log)
	if err != nil {
		t.Fatal(err)
	}
	api := &httpapi.Server{Token: tok, Version: "v", Log: log, Core: &daemon.Core{Engine: engine, Log: log,
		Ingest: &daemon.Ingestor{Engine: engine, Log: log, Now: time.Now}}}
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	c, err := client.New(strings.TrimPrefix(srv.URL, "http://"), dir, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}

	if _, found, err := c.Next(ctx, "", ""); err != nil || found {
		t.Fatalf("Next on an empty queue: found=%v %v", found, err)
	}
	since := time.Date(2026, 11, 21, 9, 0, 1, 0, time.UTC)
	for i, id := range []string{"A", "B"} {
		ev := adapter.Event{Harness: "claude", SessionID: id, Kind: adapter.KindStuck, Reason: adapter.ReasonPermission,
			Detail: "Bash", Summary: "Bash: make " + id, Pane: "%" + string(rune('5'+i)), TmuxSocket: "/tmp/s",
			Cwd: "/src", TranscriptPath: "/t/" + id + ".jsonl", At: since.Add(time.Duration(i) * time.Second)}
		if _, err := engine.Ingest(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}

	items, err := c.Queue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := client.Item{Position: 1, SessionID: "A", Harness: "claude", Pane: "%5", TmuxSocket: "/tmp/s",
		Reason: "permission", Detail: "Bash", Summary: "Bash: make A", Cwd: "/src", TranscriptPath: "/t/A.jsonl",
		Since: since, Ready: true}
	if len(items) == 2 && (items[0].Prompt == nil || items[0].Prompt.Kind != "permission") {
		t.Fatalf("Queue: the first item's prompt is %+v, want a permission", items[0].Prompt)
	}
	if len(items) == 2 {
		items[0].Prompt = nil
	}
	if len(items) != 2 || items[0] != want || items[1].SessionID != "B" || items[1].Position != 2 {
		t.Fatalf("Queue: %+v\nwant first %+v", items, want)
	}

	it, found, err := c.Next(ctx, "/tmp/s", "%5")
	if err != nil || !found || it.SessionID != "B" {
		t.Fatalf("Next from A's pane: %+v found=%v %v, want B", it, found, err)
	}
	it, found, err = c.Skip(ctx, "/tmp/s", "%5")
	if err != nil || !found || it.SessionID != "B" {
		t.Fatalf("Skip from A's pane: %+v found=%v %v, want head B", it, found, err)
	}
	status, err := c.Status(ctx)
	if err != nil || !reflect.DeepEqual(status, client.Status{Stuck: 2, Cooling: 1, Ready: 1}) {
		t.Fatalf("Status: %+v %v, want 2 stuck (1 cooling) 1 ready", status, err)
	}
	items, _ = c.Queue(ctx)
	if len(items) != 2 || items[1].SessionID != "A" || items[1].Ready || items[1].CooldownUntil == nil {
		t.Fatalf("Queue after skipping A: %+v", items)
	}

	// A bad argument comes back with the daemon's words.
	_, _, err = c.Next(ctx, "", "-t")
	if err == nil || errors.Is(err, client.ErrDown) || !strings.Contains(err.Error(), "not a tmux pane id") {
		t.Fatalf("Next with a bad pane: %v", err)
	}

	// A client with another token is refused, and told why.
	other := t.TempDir()
	if _, err := statedir.EnsureToken(other); err != nil {
		t.Fatal(err)
	}
	bad, err := client.New(strings.TrimPrefix(srv.URL, "http://"), other, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Status(ctx); err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "token") {
		t.Fatalf("Status with a wrong token: %v", err)
	}
}
