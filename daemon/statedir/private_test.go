package statedir

import (
	"errors"
	"io/fs"
	"net"
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

// The checks every client makes before it trusts the state directory, its token and its
// socket: what another user made, or could change, is refused with whose it is; the user's
// own private directory passes.
func TestClientsTrustOnlyTheUsersOwnPrivateFiles(t *testing.T) {
	own := privateDir(t)
	if err := os.WriteFile(filepath.Join(own, TokenFile), []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := ReadToken(own); err != nil || tok != "tok" {
		t.Fatalf("ReadToken of the user's own directory: %q %v", tok, err)
	}
	ownLink := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(own, ownLink); err != nil {
		t.Fatal(err)
	}
	if tok, err := ReadToken(ownLink); err != nil || tok != "tok" {
		t.Fatalf("ReadToken through the user's own link: %q %v", tok, err)
	}

	open := t.TempDir()
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(open, TokenFile), []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	readable := privateDir(t)
	if err := os.WriteFile(filepath.Join(readable, TokenFile), []byte("tok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(readable, TokenFile), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := privateDir(t)
	if err := os.Symlink(filepath.Join(own, TokenFile), filepath.Join(linked, TokenFile)); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, dir, want string }{
		{"a directory open to others", open, "is open to other users (mode 0755)"},
		{"a token others can read", readable, "can be read by other users (mode 0644)"},
		{"a token that is a link", linked, "is not a plain file (a symbolic link)"},
	}
	if os.Getuid() == 0 {
		// Another user's directory, token and link, as uid 65534 would leave them.
		theirs := privateDir(t)
		if err := os.WriteFile(filepath.Join(theirs, TokenFile), []byte("tok\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		chown(t, theirs, filepath.Join(theirs, TokenFile))
		theirToken := privateDir(t)
		if err := os.WriteFile(filepath.Join(theirToken, TokenFile), []byte("tok\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		chown(t, filepath.Join(theirToken, TokenFile))
		theirLink := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(own, theirLink); err != nil {
			t.Fatal(err)
		}
		chown(t, theirLink)
		myLinkToTheirs := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(theirs, myLinkToTheirs); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, []struct{ name, dir, want string }{
			{"another user's directory", theirs, "belongs to user id 65534, not to you (0): not sending anything to it; set TRAILBOSS_STATE_DIR to a directory of your own"},
			{"another user's token", theirToken, "the token file " + filepath.Join(theirToken, TokenFile) + " belongs to user id 65534"},
			{"another user's link to the user's own directory", theirLink, "is a link made by user id 65534, not by you (0)"},
			{"the user's link to another user's directory", myLinkToTheirs, "(" + theirs + ") belongs to user id 65534"},
		}...)
		if _, _, err := Ensure(theirLink); !errors.Is(err, ErrNotPrivate) {
			t.Errorf("Ensure of another user's link to the user's own directory: %v, want it refused (spool and emit.log go nowhere near it)", err)
		}
	} else {
		t.Log("not root: another user's files are not tried (CI runs as root)")
	}
	for _, c := range cases {
		tok, err := ReadToken(c.dir)
		var notYours *NotYoursError
		if !errors.As(err, &notYours) || !errors.Is(err, ErrNotPrivate) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ReadToken = %q, %v; want a *NotYoursError saying %q", c.name, tok, err, c.want)
		}
	}

	// The socket: the user's own passes; a link to it, or a plain file, does not.
	sock := filepath.Join(own, SocketFile)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := CheckSocket(sock); err != nil {
		t.Fatalf("CheckSocket of the user's own socket: %v", err)
	}
	sockLink := filepath.Join(linked, SocketFile)
	if err := os.Symlink(sock, sockLink); err != nil {
		t.Fatal(err)
	}
	if err := CheckSocket(sockLink); !errors.Is(err, ErrNotPrivate) || !strings.Contains(err.Error(), "is not a socket (a symbolic link)") {
		t.Errorf("CheckSocket of a link to a socket: %v, want it refused", err)
	}
	if err := CheckSocket(filepath.Join(open, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckSocket of nothing: %v, want not exist (the daemon is down)", err)
	}
	if os.Getuid() == 0 {
		chown(t, sock)
		if err := CheckSocket(sock); !errors.Is(err, ErrNotPrivate) || !strings.Contains(err.Error(), "belongs to user id 65534") {
			t.Errorf("CheckSocket of another user's socket: %v, want it refused", err)
		}
	}
}

// chown gives paths (not what a link leads to) to uid 65534, another user.
func chown(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Lchown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
}
