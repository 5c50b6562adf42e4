package hosts

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// TestAHostsPushIsDecodedAnItemOnce: each push of a host's whole queue gives the hub the
// same items as decoding it in full would (positions moved up after a removal, a changed
// item changed, a new one added, prompts named host/id, attach commands), while only the
// items that changed are decoded again.
func TestAHostsPushIsDecodedAnItemOnce(t *testing.T) {
	c := NewConn(Config{Name: "devbox", SSH: "devbox"}, t.TempDir(), "dev", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	item := func(n int) wire.Item {
		return wire.Item{SessionID: fmt.Sprintf("s%d", n), Harness: "claude", Pane: fmt.Sprintf("%%%d", n),
			TmuxSocket: "/tmp/tmux-1000/default", Reason: "stop", Summary: "Done?", Since: t0.Add(time.Duration(n) * time.Second),
			Ready: true, Prompt: &wire.Prompt{ID: fmt.Sprintf("p%016x", n), Kind: wire.KindFreeText}}
	}
	var queue []wire.Item
	for n := range 5 {
		queue = append(queue, item(n))
	}
	changed := item(3)
	changed.Summary, changed.Prompt = "Which port?", nil
	cooled := t0.Add(time.Minute)
	cooling := item(4)
	cooling.Ready, cooling.CooldownUntil = false, &cooled
	pushes := []struct {
		name    string
		queue   []wire.Item
		decoded int // items decoded from JSON for this push
	}{
		{"first", queue, 5},
		{"the same again", queue, 0},
		{"the head answered: every position moves", queue[1:], 0},
		{"one item changed", []wire.Item{queue[1], queue[2], changed, queue[4]}, 1},
		{"one added, one cooling", []wire.Item{queue[1], queue[2], changed, cooling, item(5)}, 2},
	}
	d := newItemDecoder(c.finish)
	for _, p := range pushes {
		// As the host's queueStream writes it: positions from 1, one JSON line.
		upd := wire.QueueUpdate{ServerTime: t0, Items: make([]wire.Item, len(p.queue))}
		for i, it := range p.queue {
			it.Position = i + 1
			upd.Items[i] = it
		}
		line, err := json.Marshal(upd)
		if err != nil {
			t.Fatal(err)
		}
		var pushed pushedUpdate
		if err := json.Unmarshal(line, &pushed); err != nil {
			t.Fatal(err)
		}
		before := d.decoded
		got, err := d.decode(pushed.Items)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		var full wire.QueueUpdate
		if err := json.Unmarshal(line, &full); err != nil {
			t.Fatal(err)
		}
		want := make([]wire.Item, len(full.Items))
		for i, it := range full.Items {
			want[i] = c.finish(it)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the hub's items\n%+v\nwant (decoded in full)\n%+v", p.name, got, want)
		}
		if n := d.decoded - before; n != p.decoded {
			t.Errorf("%s: %d items decoded, want %d", p.name, n, p.decoded)
		}
	}
	if got := c.finish(item(1)); got.Prompt.ID != "devbox/p0000000000000001" || got.Attach == "" || got.Host != "devbox" {
		t.Fatalf("a finished item: %+v", got)
	}
}

// TestAnItemLaidOutOtherwiseIsDecodedInFull: an item that does not start with its position
// (a host of another version) is read all the same, every time.
func TestAnItemLaidOutOtherwiseIsDecodedInFull(t *testing.T) {
	c := NewConn(Config{Name: "devbox"}, t.TempDir(), "dev", slog.New(slog.NewTextHandler(io.Discard, nil)))
	d := newItemDecoder(c.finish)
	raw := []json.RawMessage{json.RawMessage(`{"session_id":"s1","position":1,"ready":true}`)}
	for range 2 {
		got, err := d.decode(raw)
		if err != nil || len(got) != 1 || got[0].SessionID != "s1" || got[0].Position != 1 || got[0].Host != "devbox" {
			t.Fatalf("decoded %+v, %v", got, err)
		}
	}
	if d.decoded != 2 {
		t.Fatalf("%d decodes, want 2 (nothing remembered for it)", d.decoded)
	}
	if _, err := d.decode([]json.RawMessage{json.RawMessage(`{"position":1,"since":"yesterday"}`)}); err == nil {
		t.Fatal("an item whose time is not one was taken")
	}
}

// BenchmarkHostPush200: what one push of a host's 200-item queue costs the hub when one
// item changed (the common event): read the line, decode what changed, finish it, take it.
// "full" is the same push decoded in full, as before the items were remembered.
func BenchmarkHostPush200(b *testing.B) {
	c := NewConn(Config{Name: "devbox", SSH: "devbox"}, b.TempDir(), "dev", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t0 := time.Now()
	lines := make([][]byte, 2)
	for v := range lines {
		upd := wire.QueueUpdate{ServerTime: t0}
		for n := range 200 {
			it := wire.Item{Position: n + 1, SessionID: fmt.Sprintf("session-%04d", n), Harness: "claude",
				Pane: fmt.Sprintf("%%%d", n), TmuxSocket: "/tmp/tmux-1000/default", Reason: "stop",
				Summary: "Done. Should I open the pull request for the migration?", Cwd: "/work/project",
				TranscriptPath: "/home/u/.claude/projects/p/session.jsonl", Since: t0.Add(time.Duration(n) * time.Second), Ready: true}
			if n == 100 && v == 1 {
				it.Summary = "Which port?"
			}
			upd.Items = append(upd.Items, it)
		}
		var err error
		if lines[v], err = json.Marshal(upd); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("remembered", func(b *testing.B) {
		d := newItemDecoder(c.finish)
		for i := 0; b.Loop(); i++ {
			var upd pushedUpdate
			if err := json.Unmarshal(lines[i%2], &upd); err != nil {
				b.Fatal(err)
			}
			items, err := d.decode(upd.Items)
			if err != nil {
				b.Fatal(err)
			}
			c.take(upd.ServerTime, false, items, time.Now(), time.Millisecond, false)
		}
	})
	b.Run("full", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			var upd wire.QueueUpdate
			if err := json.Unmarshal(lines[i%2], &upd); err != nil {
				b.Fatal(err)
			}
			c.apply(upd, time.Now(), time.Millisecond, false)
		}
	})
}
