package watch_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/enginetest"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/store"
)

// Test fixtures shared by the watchers' tests, which drive a real engine.

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// at returns t0 plus sec seconds (fractions allowed).
func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

const testSocket = "/tmp/tbx-test/s"

var discard = slog.New(slog.DiscardHandler)

// newEngine returns an Engine over a fresh store in a temp dir, and the store's path.
func newEngine(t testing.TB) (*daemon.Engine, string) { return enginetest.Open(t, daemon.NewEngine) }

// onDisk opens a second handle on the store at path and returns session id as committed,
// ended or not.
func onDisk(t *testing.T, path, id string) (queue.Session, bool) {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, found, err := st.LoadSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s, found
}

// event returns an event of session id at time when on pane (on testSocket; no socket
// when pane is "").
func event(id string, kind adapter.Kind, when time.Time, pane string) adapter.Event {
	ev := adapter.Event{Harness: "claude", SessionID: id, Kind: kind, At: when, Pane: pane}
	if pane != "" {
		ev.TmuxSocket = testSocket
	}
	if kind == adapter.KindStuck {
		ev.Reason, ev.Summary = adapter.ReasonStopped, "done?"
	}
	return ev
}

func ingest(t *testing.T, e *daemon.Engine, ev adapter.Event) bool {
	t.Helper()
	out, err := e.Ingest(context.Background(), ev)
	if err != nil {
		t.Fatalf("ingest %s %s: %v", ev.SessionID, ev.Kind, err)
	}
	return out.Changed
}

func itemIDs(items []queue.Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

// syncBuffer is a log sink that the watchers' goroutines and the test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func bufferLog() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, nil)), buf
}

func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The daemon's harnesses (its harnesses.go): their transcript readers, and Claude Code's
// transcript reader and live-state source, which the tests' fixtures are written for.
var (
	readers           = daemon.TranscriptReaders()
	claudeTranscripts = readers[adapter.HarnessClaude]
	claudeLive        = daemon.LiveStateSources()[adapter.HarnessClaude]
)
