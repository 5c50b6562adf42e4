package httpapi

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestOwnerOnlyServesItsUserAlone: of three waiting connections, one of another user and
// one whose user cannot be found out are closed as they are accepted, and Accept returns
// the third, the owner's; the two refusals are one log line.
func TestOwnerOnlyServesItsUserAlone(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	var mu sync.Mutex
	uidOf := map[int]int{} // a client's port → the uid the stub says
	ln := &ownerOnlyListener{Listener: inner, uid: 1000, log: slog.New(slog.NewTextHandler(&logged, nil)),
		ownerOf: func(c net.Conn) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			uid, ok := uidOf[c.RemoteAddr().(*net.TCPAddr).Port]
			if !ok || uid < 0 {
				return -1, errors.New("no such TCP socket")
			}
			return uid, nil
		}}
	defer ln.Close()
	var clients []net.Conn
	for _, uid := range []int{65534, -1, 1000} {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		mu.Lock()
		uidOf[c.LocalAddr().(*net.TCPAddr).Port] = uid
		mu.Unlock()
		clients = append(clients, c)
	}
	served, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer served.Close()
	if served.RemoteAddr().String() != clients[2].LocalAddr().String() {
		t.Fatalf("served %s, want the owner's connection from %s", served.RemoteAddr(), clients[2].LocalAddr())
	}
	for i, c := range clients[:2] {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("refused connection %d: read %d bytes, %v; want it closed at once", i, n, err)
		}
	}
	if lines := strings.Count(logged.String(), "\n"); lines != 1 || !strings.Contains(logged.String(), "uid 65534") {
		t.Errorf("log, want one line naming uid 65534:\n%s", logged.String())
	}
	ln.refused("127.0.0.1:1", 65534, nil) // within the minute: counted, not logged
	ln.mu.Lock()
	ln.lastLogged = time.Now().Add(-refusedLogEvery)
	ln.mu.Unlock()
	ln.refused("127.0.0.1:2", 65534, nil)
	if lines := strings.Split(strings.TrimSpace(logged.String()), "\n"); len(lines) != 2 || !strings.Contains(lines[1], "refused_before_unlogged=2") {
		t.Errorf("a minute later, want a second line counting the 2 not logged:\n%s", logged.String())
	}
}

// TestOwnerOnlyServesThisUserOverRealTCP: with the real owner check (the kernel's), this
// process's own connection is served, and one the check cannot place is not.
func TestOwnerOnlyServesThisUserOverRealTCP(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := OwnerOnly(inner, os.Getuid(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer ln.Close()
	c, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	served, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	served.Close()
	other := OwnerOnly(inner, os.Getuid()+1, slog.New(slog.NewTextHandler(io.Discard, nil)))
	c2, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	go func() {
		if s, err := other.Accept(); err == nil {
			t.Errorf("served %s, whose user is not the listener's", s.RemoteAddr())
			s.Close()
		}
	}()
	_ = c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c2.Read(make([]byte, 1)); n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a connection of this user to a listener of uid %d: read %d bytes, %v; want it closed", os.Getuid()+1, n, err)
	}
}
