package hot

// How a client reaches the daemon: its unix socket in the state directory (the default),
// or TCP loopback when an address is given, and then only to a listener that runs as this
// user (docs/api.md, SECURITY.md).

import (
	"context"
	"errors"
	"net"
	"os"
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

// Find returns the daemon of stateDir, with the token from stateDir: its unix socket when
// addr is "", else TCP to addr (a loopback host:port). Without a token (no daemon ever ran
// with this state) it returns a *DownError.
func Find(addr, stateDir string) (Target, error) {
	t := Target{Addr: addr}
	if addr == "" {
		var err error
		if t.Socket, err = statedir.SocketPath(stateDir); err != nil {
			return Target{}, err
		}
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

// Dial connects to t. Over TCP it returns the connection only once the listener proves to
// run as this user (else an *ImpostorError), before any byte is sent.
func (t Target) Dial(ctx context.Context) (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	if t.Addr == "" {
		return d.DialContext(ctx, "unix", t.Socket)
	}
	conn, err := d.DialContext(ctx, "tcp", t.Addr)
	if err != nil {
		return nil, err
	}
	if err := checkOwner(conn, t.Addr); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// checkOwner returns nil when the server's end of conn belongs to this process's user; else
// an *ImpostorError. Only the connection is made before: no byte has been sent.
func checkOwner(conn net.Conn, addr string) error {
	server, ok1 := conn.RemoteAddr().(*net.TCPAddr)
	client, ok2 := conn.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return &ImpostorError{Addr: addr, UID: -1, Cause: errors.New("not a TCP connection")}
	}
	uid, err := procnet.Owner(server.AddrPort(), client.AddrPort())
	if errors.Is(err, procnet.ErrNotFound) {
		uid, err = procnet.ListenerOwner(server.AddrPort())
	}
	if err != nil {
		return &ImpostorError{Addr: addr, UID: -1, Cause: err}
	}
	if uid != os.Getuid() {
		return &ImpostorError{Addr: addr, UID: uid}
	}
	return nil
}
