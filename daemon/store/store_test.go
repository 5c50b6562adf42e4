package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
)

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSaveLoadRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	s := open(t, path)
	since := time.Date(2026, 11, 21, 9, 0, 0, 123456789, time.UTC)
	want := queue.Session{ID: "a", Harness: "claude", Pane: "%3", TmuxSocket: "/tmp/s", Cwd: "/src",
		TranscriptPath: "/t.jsonl", Stuck: true, Reason: "permission", Detail: "Bash", Summary: "Bash: ls",
		Since: since, Rank: since.UnixNano(), CooldownUntil: since.Add(time.Minute),
		LastEventAt: since, PaneAt: since, Offset: 42, TailAt: since, FileID: 1<<63 + 7, Mark: 1<<64 - 1,
		Program: adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 300, AgentStart: 1<<40 + 5}}
	ended := queue.Session{ID: "b", Ended: true, LastEventAt: since}
	if err := s.SaveSessions(ctx, []queue.Session{want, ended}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	got, err := open(t, path).LoadSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("loaded %+v\nwant %+v", got, want)
	}
}

func TestOpenIsInWALMode(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.db"))
	var mode string
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q %v", mode, err)
	}
}

func TestOpenRejectsACorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(path, []byte("this is not a database, just some text that is long enough"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
}
