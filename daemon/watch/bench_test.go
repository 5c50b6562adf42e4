package watch_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/enginetest"
	"github.com/trailboss/trailboss/daemon/transcript"
	"github.com/trailboss/trailboss/daemon/watch"
)

// fixtureLines returns the lines of the real Claude Code transcripts in the adapter's
// testdata, in file order, each with its newline.
func fixtureLines(b *testing.B) [][]byte {
	b.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "adapter", "claude", "testdata", "transcripts", "*.jsonl"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no transcript fixtures: %v", err)
	}
	sort.Strings(paths)
	var lines [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if len(l) > 1 && l[len(l)-1] == '\n' {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// realJSONL returns at least size bytes of whole transcript lines, ending with an
// assistant text line (a session waiting for its human).
func realJSONL(b *testing.B, size int) []byte {
	b.Helper()
	lines := fixtureLines(b)
	var out []byte
	for i := 0; len(out) < size; i++ {
		out = append(out, lines[i%len(lines)]...)
	}
	last := fmt.Sprintf(`{"type":"assistant","isSidechain":false,"timestamp":%q,"message":{"role":"assistant","stop_reason":null,"content":[{"type":"text","text":"Done. Should I push?"}]}}`+"\n",
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format("2006-01-02T15:04:05.000Z"))
	return append(out, last...)
}

// BenchmarkSweepUnchanged is one sweep round over 1,000 known transcripts (in 20 project
// folders, watched as the daemon watches them) when none of them changed: a stat each, and
// not one byte read. It reports the round's p50 and p99 in ms and the transcript bytes read
// during all the timed rounds (the budget is 50 ms and 0 bytes).
func BenchmarkSweepUnchanged(b *testing.B) {
	const n = 1000
	e := benchEngine(b)
	lines := fixtureLines(b)
	dir := b.TempDir()
	start := time.Now().Add(-time.Hour)
	for i := 0; i < n; i++ {
		folder := filepath.Join(dir, fmt.Sprintf("project-%02d", i%20))
		if err := os.MkdirAll(folder, 0o700); err != nil {
			b.Fatal(err)
		}
		// Transcripts of a few KB to a few hundred KB, as real sessions have.
		var data []byte
		for j := 0; j < 5+(i*37)%400; j++ {
			data = append(data, lines[(i*7+j)%len(lines)]...)
		}
		path := filepath.Join(folder, fmt.Sprintf("session-%04d.jsonl", i))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		ev := adapter.Event{Harness: "claude", SessionID: fmt.Sprintf("s%04d", i), Kind: adapter.KindStuck,
			Reason: adapter.ReasonStopped, TranscriptPath: path, Cwd: folder, At: start.Add(time.Duration(i) * time.Millisecond)}
		if _, err := e.Ingest(context.Background(), ev); err != nil {
			b.Fatal(err)
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	r := (&watch.Reconciler{Engine: e, Readers: readers, Sweep: time.Hour, Settle: time.Second, Watch: true, Log: discard}).Ready(w)
	ctx := context.Background()
	r.RoundNow(ctx, true) // the first look at each transcript: its tail
	if err := e.FlushPositions(ctx); err != nil {
		b.Fatal(err)
	}
	for _, s := range e.Snapshot() {
		if s.Offset == 0 {
			b.Fatalf("session %s: its transcript was not read on the first look", s.ID)
		}
	}
	var samples []time.Duration
	before := transcript.BytesRead()
	for b.Loop() {
		t0 := time.Now()
		r.RoundNow(ctx, true)
		if err := e.FlushPositions(ctx); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
	}
	b.ReportMetric(percentileMS(samples, 50), "p50-ms")
	b.ReportMetric(percentileMS(samples, 99), "p99-ms")
	b.ReportMetric(percentileMS(samples, 100), "max-ms")
	b.ReportMetric(float64(transcript.BytesRead()-before), "bytes-read")
}

// BenchmarkRecoverTail is the daemon's first look at the transcript of a session it has
// never read (a session registered, or found, while it was down): a 1 MB transcript and a
// 2 GB one (sparse, with the same 1 MB of real JSONL lines at its end). The first look
// reads only the tail, so the two must cost about the same: it reports each one's p50 in
// ms, the bytes each look read, and the ratio of the p50s (the budget is 1.5).
func BenchmarkRecoverTail(b *testing.B) {
	tail := realJSONL(b, 1<<20)
	dir := b.TempDir()
	small := filepath.Join(dir, "small.jsonl")
	if err := os.WriteFile(small, tail, 0o600); err != nil {
		b.Fatal(err)
	}
	big := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(big)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.WriteAt(tail, 2<<30-int64(len(tail))); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}

	e := benchEngine(b)
	ctx := context.Background()
	r := (&watch.Reconciler{Engine: e, Readers: readers, Sweep: time.Hour, Settle: time.Second, Log: discard}).Ready(nil)
	now := time.Now()
	for id, path := range map[string]string{"small": small, "big": big} {
		ev := adapter.Event{Harness: "claude", SessionID: id, Kind: adapter.KindStuck, Reason: adapter.ReasonStopped,
			TranscriptPath: path, At: now}
		if _, err := e.Ingest(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	// firstLook reconciles session id as if its transcript had never been read, and
	// returns how long it took and how many bytes it read.
	firstLook := func(id string) (time.Duration, int64) {
		s, ok := e.Session(id)
		if !ok {
			b.Fatalf("session %s is gone", id)
		}
		s.Offset, s.TailAt = 0, time.Time{}
		before := transcript.BytesRead()
		t0 := time.Now()
		r.ReconcileNow(ctx, s)
		took := time.Since(t0)
		if got, _ := e.Session(id); got.Offset != int64(len(tail)) && got.Offset != 2<<30 {
			b.Fatalf("session %s: read up to %d, want the end of its transcript", id, got.Offset)
		}
		return took, transcript.BytesRead() - before
	}
	var smallT, bigT []time.Duration
	var smallB, bigB int64
	for i := 0; b.Loop(); i++ {
		// In turns, so that neither always runs on the caches the other warmed.
		for j := range 2 {
			if (i+j)%2 == 0 {
				t, n := firstLook("small")
				smallT, smallB = append(smallT, t), n
			} else {
				t, n := firstLook("big")
				bigT, bigB = append(bigT, t), n
			}
		}
	}
	p50s, p50b := percentileMS(smallT, 50), percentileMS(bigT, 50)
	b.ReportMetric(p50s, "1MB-p50-ms")
	b.ReportMetric(p50b, "2GB-p50-ms")
	b.ReportMetric(percentileMS(bigT, 99), "2GB-p99-ms")
	b.ReportMetric(float64(smallB), "1MB-bytes")
	b.ReportMetric(float64(bigB), "2GB-bytes")
	if p50s > 0 {
		b.ReportMetric(p50b/p50s, "ratio")
	}
}

// BenchmarkLongLine is the reconcile loop reading a line of 400 KB (2.1.332 records each API
// request's parameters in its transcript) that is written in 8 pieces, with a read after
// each piece as fsnotify wakes one, then the assistant line after it. Each op is one such
// line. It reports the p50, p99 and max in ms of the reads of one line, and the bytes read
// per byte written (the budget is 1.1: a line is read once).
func BenchmarkLongLine(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	r := (&watch.Reconciler{Engine: e, Readers: readers, Sweep: time.Hour, Settle: time.Second, Log: discard}).Ready(nil)
	path := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, realJSONL(b, 64<<10), 0o600); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	ev := adapter.Event{Harness: "claude", SessionID: "s", Kind: adapter.KindStart, TranscriptPath: path, At: start}
	if _, err := e.Ingest(ctx, ev); err != nil {
		b.Fatal(err)
	}
	reconcile := func() {
		s, _ := e.Session("s")
		r.ReconcileNow(ctx, s)
	}
	reconcile() // the first look
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	const pieces = 8
	var samples []time.Duration
	var written int64
	before := transcript.BytesRead()
	for i := 0; b.Loop(); i++ {
		at := start.Add(time.Duration(i+1) * time.Second).UTC().Format(time.RFC3339Nano)
		line := `{"type":"api-request","timestamp":"` + at + `","params":{"system":"` + strings.Repeat("s", 400<<10) + `"}}` + "\n" +
			`{"type":"assistant","timestamp":"` + at + `","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}` + "\n"
		var took time.Duration
		for p := range pieces {
			if _, err := f.WriteString(line[p*len(line)/pieces : (p+1)*len(line)/pieces]); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			reconcile()
			took += time.Since(t0)
		}
		written += int64(len(line))
		samples = append(samples, took)
	}
	if s, _ := e.Session("s"); s.Offset != size(b, path) {
		b.Fatalf("read up to %d of %d", s.Offset, size(b, path))
	}
	b.ReportMetric(percentileMS(samples, 50), "p50-ms")
	b.ReportMetric(percentileMS(samples, 99), "p99-ms")
	b.ReportMetric(percentileMS(samples, 100), "max-ms")
	b.ReportMetric(float64(transcript.BytesRead()-before)/float64(written), "read/written")
}

func benchEngine(b *testing.B) *daemon.Engine {
	e, _ := enginetest.Open(b, daemon.NewEngine)
	return e
}

func percentileMS(samples []time.Duration, p float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return float64(s[max(0, min(i, len(s)-1))]) / float64(time.Millisecond)
}
