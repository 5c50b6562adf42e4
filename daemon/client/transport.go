package client

// How a client reaches the daemon: its unix socket in the state directory (the default),
// or TCP loopback when an address is given, and then only to a listener that runs as this
// user (docs/api.md, SECURITY.md).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/trailboss/trailboss/daemon/procnet"
	"github.com/trailboss/trailboss/daemon/statedir"
)

// ErrImpostor means the program at the daemon's TCP address is not the operator's: it runs
// as another user, or who runs it cannot be checked. Nothing was sent to it.
var ErrImpostor = errors.New("the program at the daemon's address is not yours; nothing was sent to it")

// ImpostorError is ErrImpostor with the address and, when known, the listener's uid.
type ImpostorError struct {
	Addr  string
	UID   int   // -1 when who listens could not be found out
	Cause error // why it could not be, when UID is -1
}

func (e *ImpostorError) Error() string {
	const fix = "leave addr unset (config.toml, TRAILBOSS_ADDR, --addr) to reach the daemon through its private socket"
	if e.UID >= 0 {
		return fmt.Sprintf("another user's program (uid %d) listens at %s — not sending anything to it; "+
			"your daemon is not there: %s, or stop that program", e.UID, e.Addr, fix)
	}
	return fmt.Sprintf("cannot check who listens at %s (%v) — not sending anything to it; %s", e.Addr, e.Cause, fix)
}

// Is makes errors.Is(err, ErrImpostor) hold.
func (e *ImpostorError) Is(target error) bool { return target == ErrImpostor }

// socketHost is the host of the daemon's URL on its unix socket (the socket picks the
// server; the name is only what the request says).
const socketHost = "trailboss"

// transports are kept per target, so that the clients a process makes share connections.
var transports sync.Map // target → *http.Transport

// transportTo returns the transport to the daemon: the unix socket at sock, or (when addr
// is not "") TCP to addr.
func transportTo(addr, sock string) *http.Transport {
	key := "unix:" + sock
	if addr != "" {
		key = "tcp:" + addr
	}
	if t, ok := transports.Load(key); ok {
		return t.(*http.Transport)
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) { return d.DialContext(ctx, "unix", sock) }
	if addr != "" {
		dial = func(ctx context.Context, network, hostport string) (net.Conn, error) {
			conn, err := d.DialContext(ctx, network, hostport)
			if err != nil {
				return nil, err
			}
			if err := checkOwner(conn, addr); err != nil {
				conn.Close()
				return nil, err
			}
			return conn, nil
		}
	}
	t := &http.Transport{DialContext: dial, MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second, DisableCompression: true}
	actual, _ := transports.LoadOrStore(key, t)
	return actual.(*http.Transport)
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

// New returns a client for the daemon of stateDir, with the token from stateDir: through its
// unix socket when addr is "", else through TCP to addr (a loopback host:port), which is
// used only once the listener there proves to run as this user.
func New(addr, stateDir string, timeout time.Duration) (*Client, error) {
	where, sock := addr, ""
	if addr == "" {
		var err error
		if sock, err = statedir.SocketPath(stateDir); err != nil {
			return nil, err
		}
		where = sock
	}
	tok, err := statedir.ReadToken(stateDir)
	if errors.Is(err, statedir.ErrNoToken) {
		return nil, &DownError{Addr: where, Cause: err} // no daemon ever ran with this state
	}
	if err != nil {
		return nil, err // an empty or unreadable token file: it says how to fix it
	}
	base := "http://" + addr
	if addr == "" {
		base = "http://" + socketHost
	}
	t := transportTo(addr, sock)
	return &Client{base: base, where: where, token: tok, transport: t, http: &http.Client{Timeout: timeout, Transport: t}}, nil
}

// failed returns the error of a request that got no answer: an *ImpostorError as it is,
// anything else as the daemon being down.
func (c *Client) failed(err error) error {
	var impostor *ImpostorError
	if errors.As(err, &impostor) {
		return impostor
	}
	return &DownError{Addr: c.where, Cause: err}
}
