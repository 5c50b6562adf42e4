package popup

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
)

var update = flag.Bool("update", false, "rewrite the golden screens in testdata")

// goldenModel is the fixture at width×height whose folders are real git checkouts (one
// detached), so that branches show. edit, when not nil, changes the queue first.
func goldenModel(t *testing.T, width, height int, edit func([]client.Item)) Model {
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
	if edit != nil {
		edit(d.items)
	}
	s := Load(context.Background(), d, tm)
	m := New(Options{Daemon: d, Tmux: tm, Socket: "/s", Styles: asciiStyles(), Width: width, Height: height,
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
	for _, size := range [][2]int{{80, 24}, {100, 30}, {200, 50}} {
		name := fmt.Sprintf("list_%dx%d.golden", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			m := goldenModel(t, size[0], size[1], nil)
			v := m.View()
			checkGolden(t, name, v)
			checkFrame(t, v, size[0], size[1])
		})
	}
}

// checkFrame fails unless the frame v fills width×height exactly as a terminal shows it:
// height lines, none wider than width, the title first.
func checkFrame(t *testing.T, v string, width, height int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) != height {
		t.Errorf("%d lines, want %d", len(lines), height)
	}
	if !strings.HasPrefix(lines[0], "Trail Boss") {
		t.Errorf("the first line is %q, not the title", lines[0])
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > width {
			t.Errorf("a line is wider than %d: %q", width, l)
		}
	}
}

func TestGoldenFilteredSecondRow(t *testing.T) {
	m, _ := press(t, goldenModel(t, 100, 30, nil), "j", "/", "s", "t", "o", "p")
	checkGolden(t, "filter_100x30.golden", m.View())
}

// The filter on a session name: the one match keeps its number, 3, and the title stays.
func TestGoldenFilteredBySession(t *testing.T) {
	m, _ := press(t, goldenModel(t, 80, 24, nil), "/", "o", "p", "s")
	v := m.View()
	checkGolden(t, "filter_80x24.golden", v)
	checkFrame(t, v, 80, 24)
}

// Only cooling items: they are listed, the count does not call them stuck.
func TestGoldenOnlyCooling(t *testing.T) {
	m := goldenModel(t, 80, 24, func(items []client.Item) {
		for i := range items {
			until := clock.Add(time.Duration(10+20*i) * time.Second)
			items[i].Ready, items[i].CooldownUntil = false, &until
		}
	})
	v := m.View()
	checkGolden(t, "cooling_80x24.golden", v)
	checkFrame(t, v, 80, 24)
}

func TestGoldenHelp(t *testing.T) {
	m, _ := press(t, goldenModel(t, 100, 30, nil), "?")
	checkGolden(t, "help_100x30.golden", m.View())
}

// Items with prompts (withPrompts), at 80×24: the selected one's prompt under the preview
// with its keys, the answer line opened for a menu and for a reply, and a refusal said on
// the row and in the status line.
func TestGoldenPrompts(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
		err  error
	}{
		{"prompt_permission_80x24.golden", nil, nil},
		{"prompt_menu_80x24.golden", []string{"j", "j", "j", "r"}, nil},
		{"prompt_reply_80x24.golden", []string{"j", "r", "f", "o", "l", "l", "o", "w"}, nil},
		{"prompt_refused_80x24.golden", []string{"a"}, &client.AnswerRefusedError{Reason: wire.RefusedExpired}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := goldenModel(t, 80, 24, withPrompts)
			m.daemon.(*stubDaemon).answerErr = tc.err
			m, _ = press(t, m, tc.keys...)
			v := m.View()
			checkGolden(t, tc.name, v)
			checkFrame(t, v, 80, 24)
		})
	}
}
