package popup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/tmuxctl"
)

func TestParseHead(t *testing.T) {
	for _, tc := range []struct{ head, want string }{
		{"ref: refs/heads/main\n", "main"},
		{"ref: refs/heads/feature/dark-mode\n", "feature/dark-mode"},
		{"ref:refs/heads/x", "x"},
		{"3f9c2a1d0b7e4c6a8f1e2d3c4b5a69788796a5b4\n", "3f9c2a1"},
		{"ref: refs/remotes/origin/main\n", ""},
		{"ref: refs/heads/\n", ""},
		{"ref: refs/heads/evil\x1b[31m\n", "evil[31m"},
		{"not a head\n", ""},
		{"", ""},
	} {
		if got := parseHead([]byte(tc.head)); got != tc.want {
			t.Errorf("parseHead(%q) = %q, want %q", tc.head, got, tc.want)
		}
	}
}

func TestGitBranchReadsOnlyPlainRepositories(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, gitIsDir bool, head string) string {
		dir := filepath.Join(root, name)
		if gitIsDir {
			must(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte(head), 0o644))
		} else {
			must(t, os.MkdirAll(dir, 0o755))
			must(t, os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: /elsewhere/.git/worktrees/x\n"), 0o644))
		}
		return dir
	}
	for _, tc := range []struct{ dir, want string }{
		{mk("repo", true, "ref: refs/heads/main\n"), "main"},
		{mk("worktree", false, ""), ""},
		{filepath.Join(root, "missing"), ""},
		{root, ""},
	} {
		if got := gitBranch(tc.dir); got != tc.want {
			t.Errorf("gitBranch(%s) = %q, want %q", tc.dir, got, tc.want)
		}
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
