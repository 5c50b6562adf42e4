package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/hooks/install"
)

func TestSettingsPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got, _ := settingsPath("", env(nil), "/h"); got != "/h/.claude/settings.json" {
		t.Errorf("default: %s", got)
	}
	if got, _ := settingsPath("", env(map[string]string{"CLAUDE_CONFIG_DIR": "/c"}), "/h"); got != "/c/settings.json" {
		t.Errorf("CLAUDE_CONFIG_DIR: %s", got)
	}
	dir := t.TempDir()
	if got, _ := settingsPath(dir, env(map[string]string{"CLAUDE_CONFIG_DIR": "/c"}), "/h"); got != filepath.Join(dir, ".claude", "settings.json") {
		t.Errorf("--project: %s", got)
	}
	if _, err := settingsPath(filepath.Join(dir, "nope"), env(nil), "/h"); !errors.Is(err, errUsage) {
		t.Errorf("--project of a missing folder: %v", err)
	}
}

func TestTmuxConfPath(t *testing.T) {
	home := t.TempDir()
	xdg := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return xdg
		}
		return ""
	}
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := tmuxConfPath(getenv, home); got != filepath.Join(home, ".tmux.conf") {
		t.Errorf("none exists: %s", got)
	}
	write(filepath.Join(home, ".config", "tmux", "tmux.conf"))
	if got := tmuxConfPath(getenv, home); got != filepath.Join(home, ".config", "tmux", "tmux.conf") {
		t.Errorf("~/.config one: %s", got)
	}
	write(filepath.Join(xdg, "tmux", "tmux.conf"))
	if got := tmuxConfPath(getenv, home); got != filepath.Join(xdg, "tmux", "tmux.conf") {
		t.Errorf("XDG one: %s", got)
	}
	write(filepath.Join(home, ".tmux.conf"))
	if got := tmuxConfPath(getenv, home); got != filepath.Join(home, ".tmux.conf") {
		t.Errorf("~/.tmux.conf wins: %s", got)
	}
}

// applyClaude plans and writes one step of setup's Claude part, as runSetup does.
func applyClaude(t *testing.T, path string, undo bool) *install.Change {
	t.Helper()
	c, err := install.PlanClaude(path, "trailboss emit", undo)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClaudeBackupAndUndo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	orig := []byte("{\n  \"model\": \"opus\",\n  \"env\": {\"A\": \"1\"}\n}\n")
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	applyClaude(t, path, false)
	if b, _ := os.ReadFile(path + install.BackupSuffix); !bytes.Equal(b, orig) {
		t.Fatalf("backup = %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the original 0600", fi.Mode().Perm())
	}
	if c := applyClaude(t, path, false); !c.Unchanged {
		t.Error("second install changed something")
	}

	// The user edits the settings in between: undo keeps the edit, and drops the backup.
	installed, _ := os.ReadFile(path)
	edited := bytes.Replace(installed, []byte(`"model": "opus"`), []byte(`"model": "sonnet"`), 1)
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	applyClaude(t, path, true)
	got, _ := os.ReadFile(path)
	if want := bytes.Replace(orig, []byte("opus"), []byte("sonnet"), 1); !bytes.Equal(got, want) {
		t.Errorf("undo after an edit:\n%s\nwant\n%s", got, want)
	}
	if fileExists(path + install.BackupSuffix) {
		t.Error("the backup is still there")
	}
	if len(install.Installed(got, "trailboss emit")) != 0 {
		t.Error("hooks left")
	}
}

func TestClaudeUndoRestoresBytes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	// Formatting that Uninstall alone would not give back: an empty object spelt "{ }".
	orig := []byte("{\"hooks\": { }, \"x\": [1,2]}")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	applyClaude(t, path, false)
	if c := applyClaude(t, path, true); !strings.Contains(c.Said, "byte for byte") {
		t.Errorf("said %q", c.Said)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Errorf("got %q, want %q", got, orig)
	}
}

func TestClaudeFreshFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "settings.json")
	applyClaude(t, path, false)
	if b, err := os.ReadFile(path + install.BackupSuffix); err != nil || len(b) != 0 {
		t.Fatalf("want an empty backup (no file before): %q %v", b, err)
	}
	applyClaude(t, path, true)
	if fileExists(path) || fileExists(path+install.BackupSuffix) {
		t.Error("undo of a file setup created should remove it and the backup")
	}
	// Nothing to undo: nothing happens.
	if c := applyClaude(t, path, true); !c.Unchanged {
		t.Error("undo without a file changed something")
	}
}

func TestClaudeMalformedChangesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	bad := []byte("{\n  \"model\": \"opus\"\n  \"env\": {}\n}\n")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, undo := range []bool{false, true} {
		_, err := install.PlanClaude(path, "trailboss emit", undo)
		if err == nil || !strings.Contains(err.Error(), "line 3, column 3") || !strings.Contains(err.Error(), path) {
			t.Errorf("undo=%v: %v", undo, err)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, bad) || fileExists(path+install.BackupSuffix) {
		t.Error("a malformed file was touched")
	}
}

func TestWriteAtomicFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "settings.json")
	link := filepath.Join(dir, "claude", "settings.json")
	for _, d := range []string{filepath.Dir(target), filepath.Dir(link)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(target, []byte(`{"model": "opus"}`), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	applyClaude(t, link, false)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file")
	}
	b, _ := os.ReadFile(target)
	if len(install.Installed(b, "trailboss emit")) == 0 {
		t.Errorf("the target was not written: %s", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(target))
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
}

func TestClaudeUndoWithOnlyABackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path+install.BackupSuffix, []byte(`{"model": "opus"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := applyClaude(t, path, true)
	if fileExists(path) {
		t.Error("undo created a settings file")
	}
	if fileExists(path+install.BackupSuffix) || !strings.Contains(c.Said, "leftover") {
		t.Errorf("the leftover backup stays (said %q)", c.Said)
	}
}
