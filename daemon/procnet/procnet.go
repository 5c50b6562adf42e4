// Package procnet says which user owns a TCP socket on this host, from Linux's
// /proc/net/tcp and /proc/net/tcp6. A client uses it to make sure the program at a loopback
// address runs as its own user before it sends that program anything; the daemon uses it to
// say which user a TCP caller is.
package procnet

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// ErrUnsupported means this system has no /proc/net/tcp to ask (it is not Linux).
var ErrUnsupported = errors.New("the owner of a TCP socket can be checked on Linux only")

// ErrNotFound means no socket with those ends is in /proc/net/tcp or /proc/net/tcp6.
var ErrNotFound = errors.New("no such TCP socket")

// stateListen is the LISTEN state in /proc/net/tcp; stateTimeWait a closed connection's,
// which the kernel lists as uid 0 whoever held it.
const (
	stateListen   = 0x0A
	stateTimeWait = 0x06
)

// tables are the files read, IPv4 first. A variable for tests.
var tables = []string{"/proc/net/tcp", "/proc/net/tcp6"}

// socket is one line of a table.
type socket struct {
	local, remote netip.AddrPort
	state         uint64
	uid           int
	inode         uint64
}

// A Listener is a TCP socket in the LISTEN state: where it listens, its owner's uid, and its
// inode, which names it in /proc/PID/fd of the processes holding it ("socket:[INODE]").
type Listener struct {
	Addr  netip.AddrPort
	UID   int
	Inode uint64
}

// Listeners returns every TCP socket listening on this host, IPv4's then IPv6's: what a test
// reads to prove that nothing of ours opened a port.
func Listeners() ([]Listener, error) {
	if runtime.GOOS != "linux" {
		return nil, ErrUnsupported
	}
	var out []Listener
	for _, path := range tables {
		_, _, err := findIn(path, func(s socket) bool {
			if s.state == stateListen {
				out = append(out, Listener{Addr: s.local, UID: s.uid, Inode: s.inode})
			}
			return false
		})
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return out, nil
}

// Owner returns the uid of the socket whose own end is local and whose other end is remote:
// for the server's end of a connection, local is the server's address and remote the
// client's. A connection the server has not accepted yet is listed too, with its listener's
// owner. A connection closed already (TIME_WAIT) has none: ErrNotFound.
//
// It asks the kernel for that one socket (inet_diag), and reads /proc/net/tcp only when the
// kernel cannot say: the daemon asks this of every TCP connection it accepts, and under a
// flood the table is thousands of lines long.
func Owner(local, remote netip.AddrPort) (int, error) {
	local, remote = unmap(local), unmap(remote)
	uid, err := diagOwner(local, remote)
	if errors.Is(err, ErrNotFound) {
		return 0, fmt.Errorf("%w %s ↔ %s", ErrNotFound, local, remote)
	}
	if err == nil || errors.Is(err, ErrUnsupported) {
		return uid, err
	}
	return tableOwner(local, remote)
}

// tableOwner is Owner read from /proc/net/tcp and tcp6.
func tableOwner(local, remote netip.AddrPort) (int, error) {
	return find(func(s socket) bool {
		return s.local == local && s.remote == remote && s.state != stateListen && s.state != stateTimeWait
	}, fmt.Sprintf("%s ↔ %s", local, remote))
}

// ListenerOwner returns the uid of the socket listening at addr, on its address or on the
// wildcard address of its family.
func ListenerOwner(addr netip.AddrPort) (int, error) {
	addr = unmap(addr)
	return find(func(s socket) bool {
		return s.state == stateListen && s.local.Port() == addr.Port() &&
			(s.local.Addr() == addr.Addr() || s.local.Addr().IsUnspecified())
	}, "listening at "+addr.String())
}

func unmap(a netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
}

// find returns the uid of the first socket in the tables that match accepts.
func find(match func(socket) bool, what string) (int, error) {
	if runtime.GOOS != "linux" {
		return 0, ErrUnsupported
	}
	for _, path := range tables {
		uid, found, err := findIn(path, match)
		if err != nil && !errors.Is(err, os.ErrNotExist) { // a kernel without IPv6 has no tcp6
			return 0, err
		}
		if found {
			return uid, nil
		}
	}
	return 0, fmt.Errorf("%w %s", ErrNotFound, what)
}

func findIn(path string, match func(socket) bool) (int, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		s, ok := parseLine(sc.Text())
		if ok && match(s) {
			return s.uid, true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, false, fmt.Errorf("read %s: %w", path, err)
	}
	return 0, false, nil
}

// parseLine reads "sl local rem st queues tr retrnsmt uid timeout inode ...", false for a line that is not
// one.
func parseLine(line string) (socket, bool) {
	f := strings.Fields(line)
	if len(f) < 8 {
		return socket{}, false
	}
	local, ok1 := parseAddr(f[1])
	remote, ok2 := parseAddr(f[2])
	state, err1 := strconv.ParseUint(f[3], 16, 8)
	uid, err2 := strconv.Atoi(f[7])
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return socket{}, false
	}
	var inode uint64
	if len(f) > 9 {
		inode, _ = strconv.ParseUint(f[9], 10, 64)
	}
	return socket{local: unmap(local), remote: unmap(remote), state: state, uid: uid, inode: inode}, true
}

// parseAddr reads "0100007F:0FA0": the address as the kernel holds it in memory, 32-bit
// words printed in hex in this machine's byte order, then the port in hex.
func parseAddr(s string) (netip.AddrPort, bool) {
	h, p, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(p, 16, 16)
	if !ok || err != nil || (len(h) != 8 && len(h) != 32) {
		return netip.AddrPort{}, false
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return netip.AddrPort{}, false
	}
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(addr, uint16(port)), true
}
