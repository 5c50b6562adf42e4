package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/httpapi"
)

// openFDs returns how many file descriptors process pid has open.
func openFDs(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestIdleConnectionsCannotExhaustTheDaemon: a process that opens far more connections
// than the daemon serves at once, and sends nothing on them, gets at most httpapi.MaxConns
// of the real daemon's file descriptors, and the daemon still answers its health check.
//
// Over TCP, which another local user can reach when the operator asks for it (the socket is
// the owner's alone).
func TestIdleConnectionsCannotExhaustTheDaemon(t *testing.T) {
	d := startDaemon(t, "--addr", freeAddr(t))
	pid := d.cmd.Process.Pid
	base := openFDs(t, pid)
	const extra = 100
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range httpapi.MaxConns + extra {
		c, err := net.DialTimeout("tcp", d.addr, 2*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", len(conns), err)
		}
		conns = append(conns, c)
	}
	// The daemon takes connections up to its cap...
	waitUntil(t, "the daemon to accept up to its cap", 10*time.Second, func() bool {
		return openFDs(t, pid)-base >= httpapi.MaxConns-4
	})
	// ...and no more, for as long as they stay idle (a second of watching).
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if n := openFDs(t, pid) - base; n > httpapi.MaxConns+4 {
			t.Fatalf("the daemon holds %d more descriptors with %d idle connections open: the cap of %d does not hold",
				n, len(conns), httpapi.MaxConns)
		}
	}
	// The idle ones are closed after the header timeout, so the health check gets through.
	hc := &http.Client{Timeout: 20 * time.Second}
	resp, err := hc.Get("http://" + d.addr + "/healthz")
	if err != nil {
		t.Fatalf("health check with %d idle connections open: %v", len(conns), err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("health check: %d", resp.StatusCode)
	}
}
