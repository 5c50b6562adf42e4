package hot

// The daemon's unix socket is trusted only when it, its directory and the program that
// listens on it are the user's own (SECURITY.md "Transport"): a client sends another
// user's socket nothing.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
)

func TestMain(m *testing.M) {
	if path := os.Getenv("HOT_TEST_LISTEN"); path != "" {
		listenAndRecord(path, os.Getenv("HOT_TEST_RECORD"))
		return
	}
	os.Exit(m.Run())
}

// listenAndRecord is the test binary run as another user: it listens on the unix socket at
// path (mode 0666, as an impostor leaves it), writes record+".ready", and appends to record
// one line per connection with the number of bytes it was sent.
func listenAndRecord(path, record string) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if os.Chmod(path, 0o666) != nil || os.WriteFile(record+".ready", nil, 0o644) != nil {
		os.Exit(1)
	}
	for {
		conn, err := ln.Accept()
		if err != nil {
			os.Exit(1)
		}
		go func() {
			defer conn.Close()
			n, _ := io.Copy(io.Discard, conn)
			f, err := os.OpenFile(record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err == nil {
				fmt.Fprintf(f, "connection: %d bytes\n", n)
				f.Close()
			}
		}()
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

// The swap: another user's program listens on a socket file that passes every check on
// the files (it was made the user's own and put where the daemon's socket is). Only the
// peer's credentials, read after connect(), tell: Connect refuses it, the client says whose
// it is, and the listener is sent no byte.
func TestConnectSendsNothingToAListenerOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("SKIPPED: this test runs a listener as another user (uid 65534), which needs root; run the suite as root (CI does)")
	}
	theirs, err := os.MkdirTemp("", "tbhot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(theirs) })
	if err := os.Chmod(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(theirs, "listener")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	theirSock, record := filepath.Join(theirs, "s.sock"), filepath.Join(theirs, "record")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "HOT_TEST_LISTEN="+theirSock, "HOT_TEST_RECORD="+record)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFor(t, "the listener of uid 65534", func() bool { _, err := os.Stat(record + ".ready"); return err == nil })

	sock := filepath.Join(privateDir(t), statedir.SocketFile)
	if err := os.Lchown(theirSock, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(theirSock, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(theirSock, sock); err != nil {
		t.Fatal(err)
	}
	if err := CheckSocket(sock); err != nil {
		t.Fatalf("the swapped socket must pass the checks on the files, or this test proves nothing: %v", err)
	}

	_, err = Target{Socket: sock, Token: "tok"}.Connect(context.Background())
	var imp *ImpostorError
	want := "another user's program (uid 65534) listens on " + sock + " — not sending anything to it; "
	if !errors.As(err, &imp) || imp.UID != 65534 || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Connect to a socket whose listener is uid 65534: %v; want an *ImpostorError starting %q", err, want)
	}
	c := &Client{target: Target{Socket: sock, Token: "tok"}, timeout: 2 * time.Second}
	if _, err := c.Status(context.Background()); !errors.Is(err, ErrImpostor) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Status through that socket: %v; want the same refusal, not the daemon being down", err)
	}
	// It reached connect() both times (the peer check is what refused), and sent nothing.
	var got string
	waitFor(t, "the listener to record both connections", func() bool {
		b, _ := os.ReadFile(record)
		got = string(b)
		return strings.Count(got, "connection:") == 2
	})
	if got != "connection: 0 bytes\nconnection: 0 bytes\n" {
		t.Fatalf("the listener of uid 65534 recorded:\n%s\nwant two connections that were sent nothing", got)
	}
}

// A socket in a directory that is not private, or one that is a link, is not even
// connected to: Connect and every request say why, and the listener has nothing queued.
func TestConnectRefusesASocketThatIsNotTheUsersOwn(t *testing.T) {
	open := t.TempDir()
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(open, statedir.SocketFile)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	link := filepath.Join(privateDir(t), statedir.SocketFile)
	if err := os.Symlink(sock, link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		sock: "the state directory " + open + " is open to other users (mode 0755)",
		link: "the daemon's socket " + link + " is not a socket (a symbolic link)",
	} {
		_, err := Target{Socket: path, Token: "tok"}.Connect(context.Background())
		if !errors.Is(err, statedir.ErrNotPrivate) || !strings.Contains(err.Error(), want) {
			t.Errorf("Connect to %s: %v; want a refusal saying %q", path, err, want)
		}
		c := &Client{target: Target{Socket: path, Token: "tok"}, timeout: time.Second}
		if _, err := c.Status(context.Background()); !errors.Is(err, statedir.ErrNotPrivate) || errors.Is(err, ErrDown) {
			t.Errorf("Status through %s: %v; want the same refusal, not the daemon being down", path, err)
		}
	}
	// A connect() would be queued by now (a unix socket's completes at once).
	if err := ln.(*net.UnixListener).SetDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	if conn, err := ln.Accept(); err == nil {
		conn.Close()
		t.Fatal("a client connected to a socket it refused")
	}
}

// waitFor polls cond every 10 ms until it holds, failing after 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
