package hot

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
)

func TestOnlyLoopbackAddressesAreDialled(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:4000": "127.0.0.1:4000",
		"[::1]:4000":     "[::1]:4000",
		"localhost:4000": "127.0.0.1:4000 [::1]:4000",
		"127.0.0.2:1":    "127.0.0.2:1",
	} {
		got, err := loopbackAddrs(addr)
		var s []string
		for _, a := range got {
			s = append(s, a.String())
		}
		if err != nil || strings.Join(s, " ") != want {
			t.Errorf("loopbackAddrs(%q) = %v, %v; want %s", addr, s, err, want)
		}
	}
	for _, addr := range []string{"192.168.1.1:4000", "example.com:4000", "127.0.0.1", "127.0.0.1:x", "127.0.0.1:70000", ":4000"} {
		if got, err := loopbackAddrs(addr); err == nil {
			t.Errorf("loopbackAddrs(%q) = %v, want an error: a token goes to loopback only", addr, got)
		}
	}
}

// listenTCP listens on network's loopback address and echoes one line per connection.
func listenTCP(t *testing.T, network, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer conn.Close(); io.Copy(conn, conn) }()
		}
	}()
	return ln
}

func TestConnectReachesAListenerOfThisUser(t *testing.T) {
	ln := listenTCP(t, "tcp4", "127.0.0.1:0")
	f, err := Target{Addr: ln.Addr().String()}.Connect(context.Background())
	if err != nil {
		t.Fatalf("Connect to our own listener: %v", err)
	}
	defer f.Close()
	if _, err := f.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	f.SetReadDeadline(time.Now().Add(5 * time.Second)) // the socket is the poller's: deadlines work
	buf := make([]byte, 4)
	if _, err := io.ReadFull(f, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("read %q, %v; want the echo", buf, err)
	}
}

func TestLocalhostReachesADaemonOnIPv6(t *testing.T) {
	ln := listenTCP(t, "tcp6", "[::1]:0")
	port := ln.Addr().(*net.TCPAddr).Port
	f, err := Target{Addr: net.JoinHostPort("localhost", strconv.Itoa(port))}.Connect(context.Background())
	if err != nil {
		t.Fatalf("Connect to localhost, listened on at [::1] only: %v", err)
	}
	f.Close()
}

func TestNothingListeningIsRefusedAtOnce(t *testing.T) {
	ln := listenTCP(t, "tcp4", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	start := time.Now()
	_, err := Target{Addr: addr}.Connect(context.Background())
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("Connect to a closed port: %v, want connection refused", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("a refused connection took %v", d)
	}
	_, err = Target{Socket: privateDir(t) + "/none"}.Connect(context.Background())
	if !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("Connect to a socket that does not exist: %v, want no such file", err)
	}
}

// TestFindTakesTheSocketWhenThereIsOne: with an address given, the state directory's socket
// is still the way to the daemon while there is one; TCP only when none is there (nothing,
// a file that is not a socket, a symlink to one), and the socket alone with no address.
func TestFindTakesTheSocketWhenThereIsOne(t *testing.T) {
	dir := t.TempDir()
	if _, err := statedir.EnsureToken(dir); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, statedir.SocketFile)
	const addr = "127.0.0.1:4001"
	check := func(what, addr, wantAddr, wantSocket string) {
		t.Helper()
		got, err := Find(addr, dir)
		if err != nil || got.Addr != wantAddr || got.Socket != wantSocket || got.Token == "" {
			t.Errorf("%s: Find(%q) = %+v, %v; want Addr %q Socket %q and the token", what, addr, got, err, wantAddr, wantSocket)
		}
	}
	check("no socket", addr, addr, "")
	check("no socket, no address", "", "", sock)
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	check("a file in the socket's place", addr, addr, "")
	os.Remove(sock)
	elsewhere := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Symlink(elsewhere, sock); err != nil {
		t.Fatal(err)
	}
	check("a symlink to a socket", addr, addr, "")
	os.Remove(sock)
	ln2, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	check("the socket", addr, "", sock)
	check("the socket, no address", "", "", sock)
}
