package spool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteListInEmittedOrder(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for _, sec := range []int{3, 1, 2} {
		ev := Event{Harness: "claude", Pane: "%1", Tmux: "/s,1,0", EmittedAt: t0.Add(time.Duration(sec) * time.Second),
			Body: []byte(`{"session_id":"x"}`)}
		if err := Write(dir, ev); err != nil {
			t.Fatal(err)
		}
	}
	got, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d entries", len(got))
	}
	for i, e := range got {
		if e.Err != nil || !e.Event.EmittedAt.Equal(t0.Add(time.Duration(i+1)*time.Second)) ||
			string(e.Event.Body) != `{"session_id":"x"}` || e.Event.Pane != "%1" {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, Dir)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("spool dir mode %v %v", fi.Mode().Perm(), err)
	}
}

func TestWriteStopsAtMaxFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, Dir), 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < MaxFiles; i++ {
		if err := os.WriteFile(filepath.Join(dir, Dir, fmt.Sprintf("%04d.json", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(dir, Event{EmittedAt: time.Now()}); !errors.Is(err, ErrFull) {
		t.Fatalf("err = %v, want ErrFull", err)
	}
}

func TestListReportsUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, Dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, Dir, "0001.json"), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := List(dir)
	if err != nil || len(got) != 1 || got[0].Err == nil {
		t.Fatalf("got %+v, %v", got, err)
	}
	if got, err := List(t.TempDir()); err != nil || got != nil {
		t.Fatalf("no spool: %v %v", got, err)
	}
}
