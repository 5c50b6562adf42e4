package procnet

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
)

func TestParseLine(t *testing.T) {
	if !littleEndian() {
		t.Skip("the lines below are as a little-endian kernel writes them")
	}
	for _, c := range []struct {
		line          string
		local, remote string
		state         uint64
		uid           int
	}{
		{"   0: 0100007F:0FA0 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 809269 2 0 100 0 0 10 0",
			"127.0.0.1:4000", "0.0.0.0:0", stateListen, 1000},
		{"   3: 0100007F:0FA0 0100007F:D431 01 00000000:00000000 00:00000000 00000000 65534        0 1 1 0",
			"127.0.0.1:4000", "127.0.0.1:54321", 1, 65534},
		{"   0: 00000000000000000000000001000000:0FA0 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0",
			"[::1]:4000", "[::]:0", stateListen, 0},
		{"   1: 0000000000000000FFFF00000100007F:0FA0 0000000000000000FFFF00000100007F:D431 01 00000000:00000000 00:00000000 00000000     7        0 2 1 0",
			"127.0.0.1:4000", "127.0.0.1:54321", 1, 7}, // IPv4 on an IPv6 socket
	} {
		s, ok := parseLine(c.line)
		if !ok || s.local.String() != c.local || s.remote.String() != c.remote || s.state != c.state || s.uid != c.uid {
			t.Errorf("parseLine(%q) = %+v %v, want %s %s state %x uid %d", c.line, s, ok, c.local, c.remote, c.state, c.uid)
		}
	}
	for _, bad := range []string{"", "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
		"   0: 0100007F 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1"} {
		if s, ok := parseLine(bad); ok {
			t.Errorf("parseLine(%q) = %+v, want not a socket", bad, s)
		}
	}
}

func littleEndian() bool {
	s, ok := parseLine("0: 0100007F:0001 00000000:0000 0A 0:0 0:0 0 0")
	return ok && s.local.Addr() == netip.MustParseAddr("127.0.0.1")
}

// TestOwnersOfRealSockets asks the kernel's tables about sockets this test holds.
func TestOwnersOfRealSockets(t *testing.T) {
	for _, network := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", network)
		if err != nil {
			t.Logf("%s: %v (no such loopback here)", network, err)
			continue
		}
		defer ln.Close()
		at := ln.Addr().(*net.TCPAddr).AddrPort()
		uid, err := ListenerOwner(at)
		if err != nil || uid != os.Getuid() {
			t.Fatalf("ListenerOwner(%s) = %d, %v; want %d", at, uid, err, os.Getuid())
		}
		conn, err := net.Dial("tcp", at.String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		client := conn.LocalAddr().(*net.TCPAddr).AddrPort()
		if uid, err := Owner(at, client); err != nil || uid != os.Getuid() {
			t.Fatalf("Owner(server end %s ↔ %s) = %d, %v; want %d", at, client, uid, err, os.Getuid())
		}
		ln.Close()
		if _, err := ListenerOwner(at); !errors.Is(err, ErrNotFound) {
			t.Fatalf("ListenerOwner(%s) after close: %v, want ErrNotFound", at, err)
		}
	}
}
