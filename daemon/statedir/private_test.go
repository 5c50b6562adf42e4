package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnsureCreatesAPrivateDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "trailboss")
	tightened, created, err := Ensure(dir)
	if err != nil || tightened || !created {
		t.Fatalf("Ensure of a new directory: tightened=%v created=%v %v", tightened, created, err)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Fatalf("mode %v, want 0700", m)
	}
	if tightened, created, err := Ensure(dir); err != nil || tightened || created {
		t.Fatalf("Ensure again: tightened=%v created=%v %v, want nothing to do", tightened, created, err)
	}
}

func TestEnsureTightensAnOpenDirectoryAndPrivateFilesItsFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "spool"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{DBFile, DBFile + "-wal", "spool/1.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tightened, _, err := Ensure(dir)
	if err != nil || !tightened {
		t.Fatalf("Ensure of a 0755 directory: tightened=%v %v", tightened, err)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Fatalf("mode %v, want 0700", m)
	}
	n, err := PrivateFiles(dir)
	if err != nil || n != 4 {
		t.Fatalf("PrivateFiles: %d changed, %v; want 4 (three files and spool/)", n, err)
	}
	for _, name := range []string{DBFile, DBFile + "-wal", "spool/1.json"} {
		if m := mode(t, filepath.Join(dir, name)); m != 0o600 {
			t.Errorf("%s: mode %v, want 0600", name, m)
		}
	}
	if m := mode(t, filepath.Join(dir, "spool")); m != 0o700 {
		t.Errorf("spool/: mode %v, want 0700", m)
	}
}

func TestEnsureRefusesWhatIsNotTheUsersOwnDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Ensure(file); !errors.Is(err, ErrNotPrivate) || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Ensure of a file: %v", err)
	}
	// Another user's directory, and a symlink to one: TestDaemonRefusesAStateDirOfAnotherUser
	// in cmd/trailboss, with the real daemon and emit.
}
