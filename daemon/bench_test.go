package daemon_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/enginetest"
	"github.com/trailboss/trailboss/daemon/httpapi"
)

func benchEngine(b *testing.B) *daemon.Engine {
	e, _ := enginetest.Open(b, daemon.NewEngine)
	return e
}

// BenchmarkIngestDurable measures sustained ingest where each event is acknowledged only
// after it committed (synchronous=FULL), from 64 concurrent callers over 200 sessions:
// the figure behind "≥ 5,000 events/s, durable". Reported as events/s.
func BenchmarkIngestDurable(b *testing.B) {
	e := benchEngine(b)
	var n atomic.Int64
	start := time.Now()
	b.SetParallelism(32) // × GOMAXPROCS callers
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			ev := adapter.Event{Harness: "claude", SessionID: fmt.Sprintf("s%03d", i%200), Kind: adapter.KindStuck,
				Reason: adapter.ReasonStopped, Summary: "done?", At: start.Add(time.Duration(i))}
			if _, err := e.Ingest(context.Background(), ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkHookOverLoopback is the same through the real HTTP API on loopback, with 64
// concurrent clients posting hook payloads, each on a connection of its own, as each
// `trailboss emit` process opens one. The clients run in this process and share its CPUs
// with the server.
func BenchmarkHookOverLoopback(b *testing.B) {
	e := benchEngine(b)
	api := &httpapi.Server{Token: "tok", Log: daemon.Discard, Core: &daemon.Core{Engine: e, Log: daemon.Discard,
		Ingest: &daemon.Ingestor{Engine: e, Log: daemon.Discard, Now: time.Now, SocketExists: func(string) bool { return true }}}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: api.Handler()}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	url := "http://" + ln.Addr().String() + "/v1/hooks/claude"
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var n atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			body := fmt.Sprintf(`{"session_id":"s%03d","hook_event_name":"Stop","cwd":"/src","transcript_path":"","last_assistant_message":"done?"}`, i%200)
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
			req.Header.Set("Authorization", "Bearer tok")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkQueueRead is what status, next and the popup cost the daemon with 1,000
// sessions queued.
func BenchmarkQueueRead(b *testing.B) {
	e := benchEngine(b)
	start := time.Now()
	for i := 0; i < 1000; i++ {
		ev := adapter.Event{Harness: "claude", SessionID: fmt.Sprintf("s%04d", i), Kind: adapter.KindStuck,
			Reason: adapter.ReasonStopped, At: start.Add(time.Duration(i)), Pane: fmt.Sprintf("%%%d", i), TmuxSocket: "/s"}
		if _, err := e.Ingest(context.Background(), ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if stuck, _, _ := e.Status(); stuck != 1000 {
			b.Fatal(stuck)
		}
	}
}
