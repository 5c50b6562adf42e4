package popup

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/tmuxctl"
)

// Load names the git branch of each item's folder as it can be drawn: a HEAD may hold
// anything, and what reaches the screen has no control characters.
func TestLoadReadsEachFoldersBranchCleaned(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	must(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/evil\x1b[31m\n"), 0o644))
	d := &stubDaemon{items: []client.Item{{SessionID: "repo", Cwd: repo}, {SessionID: "plain", Cwd: root}}}
	s := Load(context.Background(), d, &stubTmux{})
	if want := map[string]string{repo: "evil[31m", root: ""}; !maps.Equal(s.Branches, want) {
		t.Errorf("Branches = %q, want %q", s.Branches, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"  two\n\nlines\t and  tabs ", "two lines and tabs"},
		{"red \x1b[31mtext\x1b[0m", "red [31mtext[0m"},
		{"bell\x07 and nul\x00", "bell and nul"},
	} {
		if got := sanitize(tc.in); got != tc.want {
			t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	got := sanitizeScreen("a\tb\x1b[1m\n\nc  \n\n\n")
	if want := []string{"a    b[1m", "", "c"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("sanitizeScreen = %q, want %q", got, want)
	}
}

func TestScrollOffset(t *testing.T) {
	for _, tc := range []struct{ off, cur, height, want int }{
		{0, 0, 5, 0}, {0, 4, 5, 0}, {0, 5, 5, 1}, {3, 2, 5, 2}, {3, 7, 5, 3}, {3, 8, 5, 4}, {2, 0, 0, 0},
	} {
		if got := scrollOffset(tc.off, tc.cur, tc.height); got != tc.want {
			t.Errorf("scrollOffset(%d, %d, %d) = %d, want %d", tc.off, tc.cur, tc.height, got, tc.want)
		}
	}
}

func TestWhereEachItemIs(t *testing.T) {
	s := Snapshot{
		Items: []client.Item{
			{SessionID: "here", Pane: "%1", TmuxSocket: "/s", Ready: true},
			{SessionID: "elsewhere", Pane: "%1", TmuxSocket: "/other", Ready: true},
			{SessionID: "gone", Pane: "%9", TmuxSocket: "/s", Ready: true},
			{SessionID: "nopane", Ready: true},
		},
		Panes: map[string]tmuxctl.Pane{"%1": {ID: "%1", SessionName: "work", WindowIndex: 3, CurrentPath: "/src/api"}},
	}
	want := map[string][2]string{
		"here":      {"work:3", ""},
		"elsewhere": {"other tmux", "its pane %1 is on another tmux server"},
		"gone":      {"gone", "its pane %9 is gone"},
		"nopane":    {"no pane", "it has no tmux pane"},
	}
	for _, r := range buildRows(s, "/s") {
		w := want[r.item.SessionID]
		if r.where != w[0] || r.jumpErr != w[1] {
			t.Errorf("%s: where %q, jumpErr %q; want %q, %q", r.item.SessionID, r.where, r.jumpErr, w[0], w[1])
		}
	}
	if r := buildRows(s, "/s")[0]; r.project != "api" {
		t.Errorf("project from the pane's folder when the item has none: %q", r.project)
	}
}
