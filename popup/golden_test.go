package popup

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden screens in testdata")

// goldenModel is the fixture at 100×30 whose folders are real git checkouts (one detached),
// so that branches show.
func goldenModel(t *testing.T) Model {
	t.Helper()
	d, tm := fixture()
	root := t.TempDir()
	heads := map[string]string{
		"api":   "ref: refs/heads/main\n",
		"web":   "ref: refs/heads/dark-mode\n",
		"infra": "3f9c2a1d0b7e4c6a8f1e2d3c4b5a69788796a5b4\n", // detached
		"docs":  "",                                           // no repository
	}
	for i := range d.items {
		name := filepath.Base(d.items[i].Cwd)
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		if heads[name] != "" {
			if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte(heads[name]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d.items[i].Cwd = dir
	}
	s := Load(context.Background(), d, tm)
	m := New(Options{Daemon: d, Tmux: tm, Socket: "/s", Styles: asciiStyles(), Width: 100, Height: 30,
		First: &s, Now: func() time.Time { return clock }, Refresh: time.Millisecond})
	m, _ = pump(t, m, m.Init())
	return m
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./popup -run Golden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("screen differs from %s (go test ./popup -run Golden -update rewrites it)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

func TestGoldenList(t *testing.T) {
	m := goldenModel(t)
	checkGolden(t, "list_100x30.golden", m.View())
}

func TestGoldenFilteredSecondRow(t *testing.T) {
	m, _ := press(t, goldenModel(t), "j", "/", "s", "t", "o", "p")
	checkGolden(t, "filter_100x30.golden", m.View())
}

func TestGoldenHelp(t *testing.T) {
	m, _ := press(t, goldenModel(t), "?")
	checkGolden(t, "help_100x30.golden", m.View())
}
