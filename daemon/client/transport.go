package client

// How a client reaches the daemon is package hot's (hot.Target): its unix socket, or TCP
// loopback to a listener that runs as this user. This client keeps net/http's connections
// to it, for the commands that ask the daemon many times.

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/trailboss/trailboss/daemon/client/hot"
)

// ErrImpostor means the program at the daemon's TCP address is not the operator's: it runs
// as another user, or who runs it cannot be checked. Nothing was sent to it.
var ErrImpostor = hot.ErrImpostor

// ImpostorError is ErrImpostor with the address and, when known, the listener's uid.
type ImpostorError = hot.ImpostorError

// transports are kept per target, so that the clients a process makes share connections.
var transports sync.Map // target → *http.Transport

// transportTo returns the transport to the daemon t.
func transportTo(t hot.Target) *http.Transport {
	key := "unix:" + t.Socket
	if t.Addr != "" {
		key = "tcp:" + t.Addr
	}
	if tr, ok := transports.Load(key); ok {
		return tr.(*http.Transport)
	}
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) { return dial(ctx, t) }
	tr := &http.Transport{DialContext: dial, MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second, DisableCompression: true}
	actual, _ := transports.LoadOrStore(key, tr)
	return actual.(*http.Transport)
}

// New returns a client for the daemon of stateDir, with the token from stateDir: through its
// unix socket when addr is "", else through TCP to addr (a loopback host:port), which is
// used only once the listener there proves to run as this user.
func New(addr, stateDir string, timeout time.Duration) (*Client, error) {
	t, err := hot.Find(addr, stateDir)
	if err != nil {
		return nil, err
	}
	tr := transportTo(t)
	return &Client{base: "http://" + t.Host(), where: t.Where(), token: t.Token, transport: tr,
		http: &http.Client{Timeout: timeout, Transport: tr}}, nil
}

// failed returns the error of a request that got no answer (hot.Failed): an *ImpostorError,
// a *BusyError or a *DownError.
func (c *Client) failed(err error) error { return hot.Failed(c.where, c.http.Timeout, err) }

// dial connects to t as net/http wants it: a net.Conn.
func dial(ctx context.Context, t hot.Target) (net.Conn, error) {
	f, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer f.Close() // FileConn holds a copy of the socket
	return net.FileConn(f)
}
