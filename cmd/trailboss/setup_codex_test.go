package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/hooks/install"
)

// applyCodex plans the Codex change of path and writes it, failing the test on an error.
func applyCodex(t *testing.T, path string, undo bool) (*install.Change, []string) {
	t.Helper()
	c, notes, err := planCodexFile(path, "trailboss", undo)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(); err != nil {
		t.Fatal(err)
	}
	return c, notes
}

func TestCodexSetupCreatesAndRemovesAMissingConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "codex", "config.toml")
	c, notes := applyCodex(t, path, false)
	if c.Unchanged || !strings.Contains(c.Said, "notify and hooks added") || len(notes) != 2 ||
		!strings.Contains(notes[1], "daemon_auto_start = false") {
		t.Fatalf("install said %q, notes %q", c.Said, notes)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config: %v, %v", fi, err)
	}
	if b, err := os.ReadFile(path + install.BackupSuffix); err != nil || len(b) != 0 {
		t.Fatalf("backup of a missing file: %q, %v (want an empty one)", b, err)
	}
	c, _ = applyCodex(t, path, true)
	if !strings.Contains(c.Said, "setup had created it") {
		t.Fatalf("undo said %q", c.Said)
	}
	for _, p := range []string{path, path + install.BackupSuffix} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after undo", p)
		}
	}
}

// When Codex wrote to the file after setup, undo cannot restore the backup's bytes: it
// takes out Trail Boss's lines and keeps Codex's.
func TestCodexUndoKeepsWhatCodexWroteSince(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	orig := "model = \"o3\"\n\n[tui]\nnotifications = true\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	applyCodex(t, path, false)
	b, _ := os.ReadFile(path)
	later := string(b) + "\n[projects.\"/src/new\"]\ntrust_level = \"trusted\"\n"
	if err := os.WriteFile(path, []byte(later), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := applyCodex(t, path, true)
	if !strings.Contains(c.Said, "took out Trail Boss's lines, kept everything else") {
		t.Fatalf("undo said %q", c.Said)
	}
	got, _ := os.ReadFile(path)
	if want := orig + "\n[projects.\"/src/new\"]\ntrust_level = \"trusted\"\n"; string(got) != want {
		t.Fatalf("after undo:\n%s\nwant\n%s", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want the file's own 0644", fi.Mode().Perm())
	}
	if _, err := os.Stat(path + install.BackupSuffix); !os.IsNotExist(err) {
		t.Errorf("the backup is still there")
	}
}

func TestCodexSetupRefusesABrokenConfigAndChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	broken := "model = \"o3\"\n[tui\n"
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := planCodexFile(path, "trailboss", false)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != broken {
		t.Fatalf("the file changed: %q", b)
	}
}

func TestCodexConfigPath(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := codexConfigPath(getenv, "/home/u"); got != "/home/u/.codex/config.toml" {
		t.Errorf("default: %s", got)
	}
	env["CODEX_HOME"] = "/srv/codex"
	if got := codexConfigPath(getenv, "/home/u"); got != "/srv/codex/config.toml" {
		t.Errorf("CODEX_HOME: %s", got)
	}
}
