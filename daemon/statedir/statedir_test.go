package statedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestEnsureTokenCreatesAPrivateStableToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "trailboss")
	tok, err := EnsureToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(tok) {
		t.Fatalf("token %q is not 32 random bytes in hex", tok)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Errorf("state directory mode %v, want 0700", m)
	}
	if m := mode(t, filepath.Join(dir, TokenFile)); m != 0o600 {
		t.Errorf("token file mode %v, want 0600", m)
	}
	again, err := EnsureToken(dir)
	if err != nil || again != tok {
		t.Fatalf("second EnsureToken: %q %v, want the same token %q", again, err, tok)
	}
	read, err := ReadToken(dir)
	if err != nil || read != tok {
		t.Fatalf("ReadToken: %q %v, want %q", read, err, tok)
	}
	other, err := EnsureToken(t.TempDir())
	if err != nil || other == tok {
		t.Fatalf("a second state directory got token %q (%v): tokens must be random", other, err)
	}
}

func TestEnsureTokenConcurrentFirstUseAgrees(t *testing.T) {
	for round := 0; round < 20; round++ {
		dir := filepath.Join(t.TempDir(), "state")
		const n = 8
		toks, errs := make([]string, n), make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				toks[i], errs[i] = EnsureToken(dir)
			}()
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d: EnsureToken %d of %d started together: %v", round, i, n, errs[i])
			}
			if toks[i] != toks[0] || toks[i] == "" {
				t.Fatalf("round %d: tokens differ: %q vs %q", round, toks[i], toks[0])
			}
		}
	}
}

func TestEnsureTokenTightensAReadableTokenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TokenFile)
	if err := os.WriteFile(path, []byte("  existing-token \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // regardless of umask
		t.Fatal(err)
	}
	tok, err := EnsureToken(dir)
	if err != nil || tok != "existing-token" {
		t.Fatalf("EnsureToken: %q %v, want the existing token, trimmed", tok, err)
	}
	if m := mode(t, path); m != 0o600 {
		t.Fatalf("token file left at mode %v, want 0600", m)
	}
}

func TestReadTokenErrors(t *testing.T) {
	dir := privateDir(t)
	if _, err := ReadToken(dir); !errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("missing token: %v, want ErrNoToken naming %s", err, dir)
	}
	if err := os.WriteFile(filepath.Join(dir, TokenFile), []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadToken(dir); err == nil || errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("blank token file: %v, want an error saying it is empty", err)
	}
	if _, err := ReadToken(dir); !strings.Contains(err.Error(), "run trailboss stop, then trailboss start") {
		t.Fatalf("blank token file: %v, want the command that fixes it", err)
	}
	// The daemon, holding the lock, replaces a blank token file.
	tok, created, err := MakeToken(dir)
	read, rerr := ReadToken(dir)
	if err != nil || !created || tok == "" || rerr != nil || read != tok {
		t.Fatalf("MakeToken over a blank token file: %q created=%v %v, and the file reads %q %v", tok, created, err, read, rerr)
	}
}

func TestAbandonLeavesTheLastRecord(t *testing.T) {
	dir := t.TempDir()
	// A first start that fails leaves no lock file.
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Abandon(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed first start left its lock file: %v", err)
	}
	// A daemon ran here; a later start that fails keeps its record.
	l, err = Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Record("127.0.0.1:4100"); err != nil {
		t.Fatal(err)
	}
	l.Release()
	l, err = Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Abandon(); err != nil {
		t.Fatal(err)
	}
	if got := LastAddr(dir); got != "127.0.0.1:4100" {
		t.Fatalf("after a failed start LastAddr = %q, want the last daemon's 127.0.0.1:4100", got)
	}
}

func TestAcquireIsExclusiveAndNamesTheHolder(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Record("127.0.0.1:40000"); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, filepath.Join(dir, LockFile)); m != 0o600 {
		t.Errorf("lock file mode %v, want 0600", m)
	}

	second, err := Acquire(dir)
	if !errors.Is(err, ErrLocked) {
		if second != nil {
			second.Release()
		}
		t.Fatalf("second Acquire: %v, want ErrLocked", err)
	}
	holder := fmt.Sprintf("pid %d on 127.0.0.1:40000", os.Getpid())
	if !strings.Contains(err.Error(), holder) {
		t.Fatalf("error %q does not name the holder (%q)", err, holder)
	}

	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	third, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	defer third.Release()
	if err := third.Record("127.0.0.1:4002"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("pid %d on 127.0.0.1:4002\n", os.Getpid()); string(b) != want {
		t.Fatalf("lock file says %q, want %q (the new holder only, the old record gone)", b, want)
	}
}

func TestDefault(t *testing.T) {
	tests := []struct {
		name              string
		state, xdg, home  string
		want              string
		wantErrContaining string
	}{
		{"TRAILBOSS_STATE_DIR first", "/x/state", "/x/xdg", "/x/home", "/x/state", ""},
		{"then XDG_STATE_HOME", "", "/x/xdg", "/x/home", "/x/xdg/trailboss", ""},
		{"then HOME", "", "", "/x/home", "/x/home/.local/state/trailboss", ""},
		{"nothing set", "", "", "", "", "TRAILBOSS_STATE_DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TRAILBOSS_STATE_DIR", tt.state)
			t.Setenv("XDG_STATE_HOME", tt.xdg)
			t.Setenv("HOME", tt.home)
			got, err := Default()
			if tt.wantErrContaining != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrContaining) {
					t.Fatalf("Default() = %q, %v; want an error mentioning %s", got, err, tt.wantErrContaining)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Default() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// privateDir returns a new directory of this user's with mode 0700, as the daemon leaves its
// state directory (t.TempDir's is 0755, which clients refuse).
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A state directory too long for a unix socket's path is answered with a private directory
// of the user's own to use instead, made private by mkdir itself: never a shared one, where
// another user could make the socket first.
func TestSocketPathTooLongSuggestsAPrivateDirectory(t *testing.T) {
	long := "/" + strings.Repeat("d", 120)
	_, err := SocketPath(long)
	want := fmt.Sprintf("set TRAILBOSS_STATE_DIR to a short directory of your own, such as /tmp/trailboss-%d made with mkdir -m 700 (never a shared one)", os.Getuid())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("SocketPath of a %d-byte directory: %v; want it to say %q", len(long), err, want)
	}
}
