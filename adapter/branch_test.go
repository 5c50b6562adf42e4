package adapter

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseHead(t *testing.T) {
	for _, tc := range []struct{ head, want string }{
		{"ref: refs/heads/main\n", "main"},
		{"ref: refs/heads/feature/dark-mode\n", "feature/dark-mode"},
		{"ref:refs/heads/x", "x"},
		{"3f9c2a1d0b7e4c6a8f1e2d3c4b5a69788796a5b4\n", "3f9c2a1"},
		{"ref: refs/remotes/origin/main\n", ""},
		{"ref: refs/heads/\n", ""},
		{"ref: refs/heads/evil\x1b[31m\n", "evil\x1b[31m"}, // as HEAD spells it: cleaning it is the caller's
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
		if got := GitBranch(tc.dir); got != tc.want {
			t.Errorf("GitBranch(%s) = %q, want %q", tc.dir, got, tc.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
