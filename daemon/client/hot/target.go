package hot

// How a client reaches the daemon: its unix socket in the state directory (the default),
// or TCP loopback when an address is given, and then only to a listener that runs as this
// user (docs/api.md, SECURITY.md).

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/daemon/procnet"
	"github.com/trailboss/trailboss/daemon/statedir"
)

// socketHost is the host of the daemon's URL on its unix socket (the socket picks the
// server; the name is only what the request says).
const socketHost = "trailboss"

// dialTimeout bounds making a connection, whatever the request's own time.
const dialTimeout = 5 * time.Second

// Target is one daemon: where it listens and the token it takes.
type Target struct {
	Addr   string // TCP host:port, or "" for the unix socket
	Socket string // the unix socket's path, when Addr is ""
	Token  string
}

// Find returns the daemon of stateDir, with the token from stateDir: its unix socket, or TCP
// to addr (a loopback host:port) when addr is set and there is no socket in stateDir (see
// viaSocket). Without a token (no daemon ever ran with this state) it returns a *DownError.
func Find(addr, stateDir string) (Target, error) {
	t := Target{Addr: addr}
	if sock, err := statedir.SocketPath(stateDir); addr == "" || viaSocket(sock, err) {
		if err != nil {
			return Target{}, err
		}
		t = Target{Socket: sock}
	}
	tok, err := statedir.ReadToken(stateDir)
	if errors.Is(err, statedir.ErrNoToken) {
		return Target{}, &DownError{Addr: t.Where(), Cause: err}
	}
	if err != nil {
		return Target{}, err // an empty or unreadable token file: it says how to fix it
	}
	t.Token = tok
	return t, nil
}

// viaSocket reports whether a client given a TCP address reaches the daemon through its
// socket at sock (err: why there can be none) instead: whenever there is one. The daemon
// listens on both, and only the socket is out of other users' reach — over TCP, another
// user's flood of connections can keep the daemon busy refusing them. TCP is for a state
// directory that holds only the token (a daemon elsewhere, or one that runs no more: then
// the owner check speaks for an impostor at the address).
func viaSocket(sock string, err error) bool {
	if err != nil {
		return false
	}
	fi, err := os.Lstat(sock)
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

// Where returns the address or the socket's path, for messages.
func (t Target) Where() string {
	if t.Addr != "" {
		return t.Addr
	}
	return t.Socket
}

// Host returns the host a request to t names: its address, or a fixed name on the socket.
func (t Target) Host() string {
	if t.Addr != "" {
		return t.Addr
	}
	return socketHost
}

// Connect connects to t, and returns the socket as an *os.File in non-blocking mode: its
// reads and writes wait in the runtime's poller and keep to their deadlines, without
// package net, whose start-up was a tenth of trailboss-hot's (BENCHMARKS.md). It returns
// the connection only once the listener proves to run as this user (else an
// *ImpostorError), before any byte is sent: over TCP from /proc/net, on the unix socket from
// its peer credentials, after CheckSocket found the socket and its directory the user's own
// (else a *statedir.NotYoursError).
func (t Target) Connect(ctx context.Context) (*os.File, error) {
	deadline := time.Now().Add(dialTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if t.Addr == "" {
		return connectSocket(ctx, t.Socket, deadline)
	}
	addrs, err := loopbackAddrs(t.Addr)
	if err != nil {
		return nil, err
	}
	for i, a := range addrs {
		f, err := connect(ctx, sockaddrOf(a), t.Addr, deadline)
		if err != nil {
			if i < len(addrs)-1 && errors.Is(err, syscall.ECONNREFUSED) {
				continue // localhost: the daemon may listen on the other family
			}
			return nil, err
		}
		if err := checkOwner(f, t.Addr); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	panic("unreachable: loopbackAddrs returns at least one address")
}

// connectSocket connects to the daemon's unix socket at path by deadline, once it and its
// directory prove to be the user's own, and returns the connection once the program on the
// other end proves to run as this user. Nothing is sent.
func connectSocket(ctx context.Context, path string, deadline time.Time) (*os.File, error) {
	if err := CheckSocket(path); err != nil {
		return nil, err
	}
	f, err := connect(ctx, &syscall.SockaddrUnix{Name: path}, path, deadline)
	if err != nil {
		return nil, err
	}
	rc, err := f.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) { err = CheckPeer(fd, path) })
		if err == nil {
			err = cerr
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CheckSocket returns nil when the daemon's socket at path, and the directory it is in, are
// the user's own (statedir.CheckDir, statedir.CheckSocket); else a *statedir.NotYoursError,
// or for a socket or directory that is not there an error wrapping fs.ErrNotExist.
func CheckSocket(path string) error {
	if err := statedir.CheckDir(filepath.Dir(path)); err != nil {
		return err
	}
	return statedir.CheckSocket(path)
}

// CheckPeer returns nil when the program on the other end of fd, a connected unix socket,
// runs as this process's user (SO_PEERCRED: who listened on it); else an *ImpostorError for
// the socket at path. It is what holds when the socket was swapped after CheckSocket.
func CheckPeer(fd uintptr, path string) error {
	cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return &ImpostorError{Addr: path, OnSocket: true, UID: -1, Cause: os.NewSyscallError("getsockopt SO_PEERCRED", err)}
	}
	if int(cred.Uid) != os.Getuid() {
		return &ImpostorError{Addr: path, OnSocket: true, UID: int(cred.Uid)}
	}
	return nil
}

// connect makes a stream socket connected to sa (where, for errors) by deadline or the end
// of ctx, whichever comes first.
func connect(ctx context.Context, sa syscall.Sockaddr, where string, deadline time.Time) (*os.File, error) {
	family := syscall.AF_UNIX
	switch sa.(type) {
	case *syscall.SockaddrInet4:
		family = syscall.AF_INET
	case *syscall.SockaddrInet6:
		family = syscall.AF_INET6
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	err = syscall.Connect(fd, sa)
	if err != nil && err != syscall.EINPROGRESS {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: where, Err: err}
	}
	f := os.NewFile(uintptr(fd), where)
	if err == nil {
		return f, nil
	}
	// TCP: the handshake goes on; the socket turns writable once it is over, and SO_ERROR
	// says how it went.
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	_ = f.SetWriteDeadline(deadline)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	var soErr error
	err = rc.Write(func(fd uintptr) bool {
		n, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_ERROR)
		switch {
		case err != nil:
			soErr = err
		case n != 0:
			soErr = syscall.Errno(n)
		default:
			_, err := syscall.Getpeername(int(fd))
			if err == syscall.ENOTCONN {
				return false // not yet: wait until it turns writable
			}
			soErr = err
		}
		return true
	})
	if err == nil {
		err = soErr
	}
	if err != nil {
		f.Close()
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, &os.PathError{Op: "connect", Path: where, Err: err}
	}
	_ = f.SetWriteDeadline(time.Time{})
	return f, nil
}

// loopbackAddrs returns the addresses of addr, a loopback host:port ("localhost" names
// 127.0.0.1, then ::1); an error for any other host, which a client never sends its token to.
func loopbackAddrs(addr string) ([]netip.AddrPort, error) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return nil, fmt.Errorf("address %q: no port (use 127.0.0.1:PORT)", addr)
	}
	host, portText := strings.TrimSuffix(strings.TrimPrefix(addr[:i], "["), "]"), addr[i+1:]
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("address %q: bad port %q", addr, portText)
	}
	if host == "localhost" {
		return []netip.AddrPort{
			netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(port)),
			netip.AddrPortFrom(netip.IPv6Loopback(), uint16(port)),
		}, nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("address %q: not a loopback address (use 127.0.0.1 or [::1])", addr)
	}
	return []netip.AddrPort{netip.AddrPortFrom(ip.Unmap(), uint16(port))}, nil
}

// sockaddrOf returns a's socket address.
func sockaddrOf(a netip.AddrPort) syscall.Sockaddr {
	if a.Addr().Is4() {
		return &syscall.SockaddrInet4{Port: int(a.Port()), Addr: a.Addr().As4()}
	}
	return &syscall.SockaddrInet6{Port: int(a.Port()), Addr: a.Addr().As16()}
}

// addrPortOf returns sa as an address and port, or false when it is not TCP's.
func addrPortOf(sa syscall.Sockaddr) (netip.AddrPort, bool) {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port)), true
	case *syscall.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), uint16(sa.Port)), true
	}
	return netip.AddrPort{}, false
}

// checkOwner returns nil when the server's end of conn belongs to this process's user; else
// an *ImpostorError. Only the connection is made before: no byte has been sent.
func checkOwner(conn *os.File, addr string) error {
	var server, client netip.AddrPort
	ok1, ok2 := false, false
	rc, err := conn.SyscallConn()
	if err == nil {
		err = rc.Control(func(fd uintptr) {
			if sa, err := syscall.Getpeername(int(fd)); err == nil {
				server, ok1 = addrPortOf(sa)
			}
			if sa, err := syscall.Getsockname(int(fd)); err == nil {
				client, ok2 = addrPortOf(sa)
			}
		})
	}
	if err != nil || !ok1 || !ok2 {
		return &ImpostorError{Addr: addr, UID: -1, Cause: errors.New("not a TCP connection")}
	}
	uid, err := procnet.Owner(server, client)
	if errors.Is(err, procnet.ErrNotFound) {
		uid, err = procnet.ListenerOwner(server)
	}
	if err != nil {
		return &ImpostorError{Addr: addr, UID: -1, Cause: err}
	}
	if uid != os.Getuid() {
		return &ImpostorError{Addr: addr, UID: uid}
	}
	return nil
}
