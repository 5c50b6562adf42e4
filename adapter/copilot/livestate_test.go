package copilot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/trailboss/trailboss/adapter"
)

// TestReadAllOpenSessions: each session open-sessions-state.json lists whose folder a
// process locks is read with that process's pid; one without a lock, an id that could name
// another folder, and any other file of the folder are not.
func TestReadAllOpenSessions(t *testing.T) {
	home := t.TempDir()
	for id, lock := range map[string]string{"s1": "inuse.4242.lock", "s2": "", "s3": "inuse.7.lock"} {
		dir := filepath.Join(home, "session-state", id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if lock != "" {
			if err := os.WriteFile(filepath.Join(dir, lock), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	list := filepath.Join(home, OpenSessionsFile)
	body := `{"s1": {"openedAt": "x", "working": false}, "s2": {}, "s3": {"working": true}, "../s1": {}}`
	if err := os.WriteFile(list, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var src LiveStates
	got, err := src.ReadAll(list)
	if err != nil {
		t.Fatal(err)
	}
	want := []adapter.LiveState{
		{Harness: Harness, PID: 4242, SessionID: "s1", Status: adapter.LiveOpen},
		{Harness: Harness, PID: 7, SessionID: "s3", Status: adapter.LiveOpen},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if src.TranscriptPath(list+"#s1", got[0]) != filepath.Join(home, "session-state", "s1", "events.jsonl") {
		t.Errorf("transcript of s1: %q", src.TranscriptPath(list, got[0]))
	}
	if src.DirOf(filepath.Join(home, "session-state", "s1", "events.jsonl")) != home || src.DirOf("/x/y.jsonl") != "" {
		t.Errorf("DirOf")
	}
	if _, err := src.ReadAll(filepath.Join(home, "config.json")); err == nil {
		t.Errorf("another file of the folder was read as the open sessions")
	}
	if home2 := src.OwnDir(func(k string) string { return map[string]string{"HOME": "/u"}[k] }); home2 != "/u/.copilot" {
		t.Errorf("OwnDir %q", home2)
	}
}
