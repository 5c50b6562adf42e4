package tmuxtest_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

func TestEnvIsIsolated(t *testing.T) {
	e := tmuxtest.New(t)
	if !strings.HasPrefix(e.Socket, e.Dir+string(filepath.Separator)) {
		t.Errorf("socket %q is not under %q", e.Socket, e.Dir)
	}
	if e.Server.Socket != e.Socket {
		t.Errorf("Server.Socket = %q, want %q", e.Server.Socket, e.Socket)
	}
	for _, kv := range e.Environ {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "TMUX" || k == "TMUX_PANE":
			t.Errorf("Environ sets %s", k)
		case k == "HOME" || k == "TMUX_TMPDIR" || strings.HasPrefix(k, "XDG_"):
			if !strings.HasPrefix(v, e.Dir) {
				t.Errorf("Environ: %s=%s is outside %s", k, v, e.Dir)
			}
		}
	}
	if !slices.ContainsFunc(e.Environ, func(kv string) bool { return strings.HasPrefix(kv, "HOME=") }) {
		t.Error("Environ has no HOME")
	}
	// The panes run in that environment too.
	pane := e.NewPane(t, "main", "sh", "-c", `echo "home=$HOME tmpdir=$TMUX_TMPDIR"; sleep 1000`)
	want := "home=" + filepath.Join(e.Dir, "home") + " tmpdir=" + filepath.Join(e.Dir, "tmp")
	e.WaitFor(t, "the pane to print its environment", 5*time.Second, func() bool {
		return strings.Contains(e.Tmux(t, "capture-pane", "-p", "-t", pane), want)
	})
	if got := e.Tmux(t, "display-message", "-p", "-t", "=main:", "#{window_width}x#{window_height}"); got != "200x50\n" {
		t.Errorf("session main is %q, want 200x50", got)
	}
}

func TestNewPaneCreatesMissingSession(t *testing.T) {
	e := tmuxtest.New(t)
	first := e.NewPane(t, "fresh")
	second := e.NewPane(t, "fresh", "sleep 1000")
	got := e.Tmux(t, "list-panes", "-s", "-t", "=fresh", "-F", "#{pane_id} #{window_index}")
	if want := first + " 0\n" + second + " 1\n"; got != want {
		t.Errorf("session fresh has panes %q, want %q", got, want)
	}
}

func TestAttach(t *testing.T) {
	e := tmuxtest.New(t)
	first := strings.TrimSpace(e.Tmux(t, "display-message", "-p", "-t", "=main:", "#{pane_id}"))
	var client string
	t.Run("attached", func(t *testing.T) {
		client = e.Attach(t, "main")
		if !strings.HasPrefix(client, "/dev/pts/") {
			t.Errorf("client name %q is not a pty", client)
		}
		got := e.Tmux(t, "list-clients", "-F", "#{client_name} #{client_session} #{client_width}x#{client_height} #{client_termname} #{client_utf8}")
		if want := client + " main 200x50 xterm-256color 1\n"; got != want {
			t.Errorf("list-clients = %q, want %q", got, want)
		}
		if got := e.ActivePane(t, client); got != first {
			t.Errorf("ActivePane = %s, want %s", got, first)
		}
		e.WaitFor(t, "the client to draw the status line", 5*time.Second, func() bool {
			return strings.Contains(e.Output(t, client), "[main]")
		})
	})
	// The subtest's cleanup detached the client and typed nothing into the pane.
	if got := e.Tmux(t, "list-clients"); got != "" {
		t.Errorf("clients left after cleanup: %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	panes, err := e.Server.ListPanes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(panes) != 1 || panes[0].ID != first || panes[0].Dead {
		t.Errorf("panes after detaching = %+v, want %s alive", panes, first)
	}
	if _, err := os.Stat(e.Dir); err != nil {
		t.Error(err)
	}
}

// A reader pane asks in its folder, records each line typed into it, and asks again with
// the next number.
func TestReaderPaneRecordsEachLine(t *testing.T) {
	e := tmuxtest.New(t)
	dir := t.TempDir()
	pane, file := e.NewReaderPane(t, "work", dir, "Name? ")
	if got := tmuxtest.ReadLines(t, file); got != nil {
		t.Fatalf("before any answer the pane read %q", got)
	}
	if got := strings.TrimSpace(e.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_current_path}")); got != dir {
		t.Errorf("the reader runs in %q, want %q", got, dir)
	}
	for _, answer := range []string{"ann", "bob"} {
		e.Tmux(t, "send-keys", "-t", pane, "-l", answer)
		e.Tmux(t, "send-keys", "-t", pane, "Enter")
	}
	e.WaitFor(t, "the third question", 5*time.Second, func() bool {
		return strings.Contains(e.Tmux(t, "capture-pane", "-p", "-t", pane), "(#3) Name?")
	})
	if got := tmuxtest.ReadLines(t, file); !slices.Equal(got, []string{"ann", "bob"}) {
		t.Errorf("the pane read %q, want ann and bob", got)
	}
}

// A key pane says on its FIFO when it has read an answer's first byte, and only then; after
// the Enter it reads the next answer.
func TestKeyPaneHearsEachAnswersFirstByte(t *testing.T) {
	e := tmuxtest.New(t)
	pane, heard := e.NewKeyPane(t, "main", "Pick one:\r\n1) alpha\r\nEnter choice: ")
	said := make(chan string)
	go func() {
		for {
			buf := make([]byte, 2)
			n, err := heard.Read(buf)
			if err != nil {
				return
			}
			said <- string(buf[:n])
		}
	}()
	hear := func(what string) {
		t.Helper()
		select {
		case s := <-said:
			if s != "x\n" {
				t.Errorf("the pane said %q for %s, want x and a line end", s, what)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the pane never said it read %s", what)
		}
	}
	select {
	case s := <-said:
		t.Fatalf("the pane said %q before anything was typed", s)
	case <-time.After(100 * time.Millisecond):
	}
	e.Tmux(t, "send-keys", "-t", pane, "-l", "1")
	hear("the first answer's key")
	e.Tmux(t, "send-keys", "-t", pane, "Enter")
	e.Tmux(t, "send-keys", "-t", pane, "-l", "2")
	hear("the second answer's key")
}

// ReadLines counts a line once its line end is written: a reader's file exists, empty,
// before its first line is written.
func TestReadLinesCountsFinishedLines(t *testing.T) {
	file := filepath.Join(t.TempDir(), "read")
	if got := tmuxtest.ReadLines(t, file); got != nil {
		t.Errorf("no file: %q, want none", got)
	}
	for _, tc := range []struct {
		content string
		want    []string
	}{
		{"", nil},
		{"half", nil},
		{"a\n", []string{"a"}},
		{"\n", []string{""}},
		{"a\nb", []string{"a"}},
		{"a\nb\n", []string{"a", "b"}},
	} {
		if err := os.WriteFile(file, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := tmuxtest.ReadLines(t, file); !slices.Equal(got, tc.want) {
			t.Errorf("ReadLines of %q = %q, want %q", tc.content, got, tc.want)
		}
	}
}
