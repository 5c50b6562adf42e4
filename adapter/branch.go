package adapter

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// GitBranch returns the branch checked out in dir, the short commit of a detached HEAD, or
// "" when dir is not the top of a plain repository (a .git folder: worktrees and submodules,
// whose .git is a file, are left out). It reads .git/HEAD and runs no git, so that naming
// where a session runs (the popup's rows, the Telegram relay's messages) starts no process.
// The name is as HEAD spells it: a caller that draws it cleans it for its screen.
func GitBranch(dir string) string {
	gd := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(gd); err != nil || !fi.IsDir() {
		return ""
	}
	f, err := os.Open(filepath.Join(gd, "HEAD"))
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 512) // HEAD is one short line; never read more of something odd
	n, _ := f.Read(buf)
	return parseHead(buf[:n])
}

// parseHead returns the branch named by the content of a .git/HEAD, a detached HEAD's
// short commit, or "" for anything else.
func parseHead(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	s := strings.TrimSpace(string(line))
	if ref, ok := strings.CutPrefix(s, "ref:"); ok {
		ref = strings.TrimSpace(ref)
		if name, ok := strings.CutPrefix(ref, "refs/heads/"); ok && name != "" {
			return name
		}
		return ""
	}
	if len(s) >= 40 && strings.Trim(s, "0123456789abcdef") == "" {
		return s[:7]
	}
	return ""
}
