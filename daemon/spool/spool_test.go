package spool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listed returns the events in the spool of dir, in order.
func listed(t *testing.T, dir string) []Event {
	t.Helper()
	paths, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []Event
	for _, p := range paths {
		ev, err := Read(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, ev)
	}
	return out
}

func stop(session string, at time.Time, pad int) Event {
	return Event{Harness: "claude", EmittedAt: at,
		Body: []byte(fmt.Sprintf(`{"session_id":%q,"hook_event_name":"Stop","pad":%q}`, session, strings.Repeat("p", pad)))}
}

func TestWriteListInEmittedOrder(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for _, sec := range []int{3, 1, 2} {
		ev := Event{Harness: "claude", Pane: "%1", Tmux: "/s,1,0", EmittedAt: t0.Add(time.Duration(sec) * time.Second),
			Body: []byte(`{"session_id":"x"}`)}
		if _, err := Write(dir, ev); err != nil {
			t.Fatal(err)
		}
	}
	got := listed(t, dir)
	if len(got) != 3 {
		t.Fatalf("%d entries", len(got))
	}
	for i, e := range got {
		if !e.EmittedAt.Equal(t0.Add(time.Duration(i+1)*time.Second)) || string(e.Body) != `{"session_id":"x"}` || e.Pane != "%1" {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, Dir)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("spool dir mode %v %v", fi.Mode().Perm(), err)
	}
}

// TestAFullSpoolDropsTheOldestAndKeepsEachSessionsLatest: at its count or byte bound the
// spool makes room by dropping the oldest events, never the one being written, and the
// latest event of another session only when nothing older is left.
func TestAFullSpoolDropsTheOldestAndKeepsEachSessionsLatest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files int
		bytes int64
	}{{"by count", 5, 1 << 20}, {"by bytes", 1000, 5 * 1200}} {
		t.Run(tc.name, func(t *testing.T) {
			oldFiles, oldBytes := MaxFiles, MaxBytes
			MaxFiles, MaxBytes = tc.files, tc.bytes
			t.Cleanup(func() { MaxFiles, MaxBytes = oldFiles, oldBytes })
			dir := t.TempDir()
			t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
			// quiet's only event is the oldest; busy sends many after it.
			if _, err := Write(dir, stop("quiet", t0, 1000)); err != nil {
				t.Fatal(err)
			}
			dropped := 0
			for i := 1; i <= 12; i++ {
				n, err := Write(dir, stop("busy", t0.Add(time.Duration(i)*time.Second), 1000))
				if err != nil {
					t.Fatal(err)
				}
				dropped += n
				var size int64
				entries, _ := os.ReadDir(filepath.Join(dir, Dir))
				for _, e := range entries {
					fi, _ := e.Info()
					size += fi.Size()
				}
				if got := len(listed(t, dir)); got > tc.files || size > tc.bytes {
					t.Fatalf("after event %d the spool holds %d events, %d bytes: over its bounds", i, got, size)
				}
			}
			got := listed(t, dir)
			if got[0].EmittedAt != t0 || !strings.Contains(string(got[0].Body), `"quiet"`) {
				t.Errorf("quiet's only event was dropped: first is %s", got[0].Body)
			}
			if last := got[len(got)-1]; !last.EmittedAt.Equal(t0.Add(12 * time.Second)) {
				t.Errorf("the newest event is not kept: last is of %v", last.EmittedAt)
			}
			for i := 2; i < len(got); i++ {
				if !got[i].EmittedAt.Equal(got[i-1].EmittedAt.Add(time.Second)) {
					t.Errorf("busy's kept events are not its newest in a row: %v after %v", got[i].EmittedAt, got[i-1].EmittedAt)
				}
			}
			if dropped != 13-len(got) || dropped == 0 {
				t.Errorf("Write said it dropped %d, the spool holds %d of 13", dropped, len(got))
			}
		})
	}
}

func TestWriteRefusesAnEventTooBigToKeep(t *testing.T) {
	old := MaxBytes
	MaxBytes = 4096
	t.Cleanup(func() { MaxBytes = old })
	dir := t.TempDir()
	if _, err := Write(dir, stop("s", time.Now(), 2000)); err == nil || !strings.Contains(err.Error(), "too big") {
		t.Fatalf("Write of an event over a quarter of MaxBytes: %v", err)
	}
}

func TestReadReportsUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, Dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, Dir, "0001.json"), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	paths, err := List(dir)
	if err != nil || len(paths) != 1 {
		t.Fatalf("got %v, %v", paths, err)
	}
	if _, err := Read(paths[0]); err == nil {
		t.Fatal("Read of a file that is not JSON: no error")
	}
	if got, err := List(t.TempDir()); err != nil || got != nil {
		t.Fatalf("no spool: %v %v", got, err)
	}
}
