package popup

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wire"
)

// BenchmarkFirstFrame measures what stands between the key press and the first frame of
// a popup over 500 stuck sessions, as the CLI does it: GET /v1/queue through the real
// client from a loopback HTTP server (500 items of JSON), list-panes (a stub: one tmux
// call, about a millisecond on a real server), the git branch of each folder, New, and
// View at 100×30. The budget is 80 ms.
func BenchmarkFirstFrame(b *testing.B) {
	d, tm := manyItems(500)
	body, err := json.Marshal(wire.Queue{Items: d.items})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer srv.Close()
	state := b.TempDir()
	if err := os.WriteFile(filepath.Join(state, statedir.TokenFile), []byte("token\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	c, err := client.New(strings.TrimPrefix(srv.URL, "http://"), state, 2*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	st := asciiStyles()
	b.ResetTimer()
	for b.Loop() {
		s := Load(context.Background(), c, tm)
		if s.Err != nil || len(s.Items) != 500 {
			b.Fatalf("load: %v, %d items", s.Err, len(s.Items))
		}
		m := New(Options{Daemon: c, Tmux: tm, Socket: "/s", Styles: st, Width: 100, Height: 30, First: &s,
			Now: func() time.Time { return clock }})
		if v := m.View(); !strings.Contains(v, "› 1 ") {
			b.Fatalf("first frame:\n%s", v)
		}
	}
}

// BenchmarkFrame is one redraw of a popup over 500 items (each key press and refresh).
func BenchmarkFrame(b *testing.B) {
	d, tm := manyItems(500)
	s := Load(context.Background(), d, tm)
	m := New(Options{Daemon: d, Tmux: tm, Socket: "/s", Styles: asciiStyles(), Width: 100, Height: 30, First: &s,
		Now: func() time.Time { return clock }})
	for b.Loop() {
		_ = m.View()
	}
}
