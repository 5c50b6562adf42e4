package procnet

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
)

// TestKernelAndTableAgree: for both ends of real connections, IPv4 and IPv6, the kernel's
// answer (inet_diag) is the table's; ends no connection has are not found, even where a
// listener holds the port (the kernel's lookup falls back on it).
func TestKernelAndTableAgree(t *testing.T) {
	tried := 0
	for _, network := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", network)
		if err != nil {
			t.Logf("%s: %v (no such loopback here)", network, err)
			continue
		}
		defer ln.Close()
		tried++
		at := ln.Addr().(*net.TCPAddr).AddrPort()
		conn, err := net.Dial("tcp", at.String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		served, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer served.Close()
		client := conn.LocalAddr().(*net.TCPAddr).AddrPort()
		for _, ends := range [][2]netip.AddrPort{{client, at}, {at, client}} {
			uid, err := diagOwner(ends[0], ends[1])
			if err != nil || uid != os.Getuid() {
				t.Errorf("diagOwner(%s, %s) = %d, %v; want %d", ends[0], ends[1], uid, err, os.Getuid())
			}
			if uid, err := tableOwner(ends[0], ends[1]); err != nil || uid != os.Getuid() {
				t.Errorf("tableOwner(%s, %s) = %d, %v; want %d", ends[0], ends[1], uid, err, os.Getuid())
			}
		}
		other := netip.AddrPortFrom(client.Addr(), client.Port()^0x5555)
		for _, ends := range [][2]netip.AddrPort{{at, other}, {other, at}} {
			if uid, err := diagOwner(ends[0], ends[1]); !errors.Is(err, ErrNotFound) {
				t.Errorf("diagOwner(%s, %s) of no connection = %d, %v; want ErrNotFound", ends[0], ends[1], uid, err)
			}
			if uid, err := Owner(ends[0], ends[1]); !errors.Is(err, ErrNotFound) {
				t.Errorf("Owner(%s, %s) of no connection = %d, %v; want ErrNotFound", ends[0], ends[1], uid, err)
			}
		}
	}
	if tried == 0 {
		t.Skip("no loopback address to listen on")
	}
}

// BenchmarkOwner measures a lookup with 3,000 connections open (6,000 sockets in the
// table), as under a flood: the table against the kernel's answer.
func BenchmarkOwner(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	var last net.Conn
	for range 3000 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatalf("dial: %v (raise the open-file limit)", err)
		}
		defer c.Close()
		last = c
	}
	client, server := last.LocalAddr().(*net.TCPAddr).AddrPort(), last.RemoteAddr().(*net.TCPAddr).AddrPort()
	for name, owner := range map[string]func(l, r netip.AddrPort) (int, error){"table": tableOwner, "kernel": diagOwner} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := owner(client, server); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
