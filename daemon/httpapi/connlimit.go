package httpapi

import (
	"net"
	"sync"
)

// MaxConns is how many connections the daemon serves at once. Hooks, the CLI and the popup
// each hold one for milliseconds; a process that opens more and sends nothing (a runaway
// script; another local user's connections are closed before they get here: OwnerOnly)
// waits in the kernel's backlog instead of taking the daemon's file descriptors, and each
// idle one it holds is closed after ReadHeaderTimeout.
const MaxConns = 128

// limitListener accepts at most n connections at once: Accept waits for a served one to
// close. (golang.org/x/net/netutil.LimitListener does the same; x/net is not among our
// dependencies, and this is the part of it we need.)
type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// LimitListen returns l accepting at most n connections at once.
func LimitListen(l net.Listener, n int) net.Listener {
	return &limitListener{Listener: l, sem: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back once, when it is closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
