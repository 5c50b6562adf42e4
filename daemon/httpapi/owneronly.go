package httpapi

import (
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/trailboss/trailboss/daemon/procnet"
)

// refusedLogEvery bounds how often refused connections are logged: a flood of them is one
// line a minute, with how many there were.
const refusedLogEvery = time.Minute

// ownerOnlyListener serves the TCP connections of one user: every other is closed as soon
// as it is accepted, before it takes one of the daemon's MaxConns slots. Another local user
// can connect to a loopback port; without this, their idle connections filled the slots and
// the operator's hooks, CLI and popup waited behind them (issue 29).
type ownerOnlyListener struct {
	net.Listener
	uid     int
	ownerOf func(c net.Conn) (int, error) // the uid of c's other end; procnet in the daemon
	log     *slog.Logger

	mu         sync.Mutex
	lastLogged time.Time
	unlogged   int // refused since lastLogged
}

// OwnerOnly returns the TCP listener l serving the connections of user uid alone; it logs
// the refused ones to log at most once a minute. Put it under LimitListen: a connection is
// accepted, checked and closed or served, one at a time, so a flood holds no descriptor.
func OwnerOnly(l net.Listener, uid int, log *slog.Logger) net.Listener {
	return &ownerOnlyListener{Listener: l, uid: uid, ownerOf: tcpPeerOwner, log: log}
}

func (l *ownerOnlyListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid, err := l.ownerOf(c)
		if err == nil && uid == l.uid {
			return c, nil
		}
		from := c.RemoteAddr().String()
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // a reset: nothing of it lingers in the kernel either
		}
		c.Close()
		l.refused(from, uid, err)
	}
}

// refused logs a refused connection, unless one was logged less than refusedLogEvery ago:
// then it is counted, and the next line says how many were not logged.
func (l *ownerOnlyListener) refused(from string, uid int, err error) {
	l.mu.Lock()
	now := time.Now()
	if !l.lastLogged.IsZero() && now.Sub(l.lastLogged) < refusedLogEvery {
		l.unlogged++
		l.mu.Unlock()
		return
	}
	unlogged := l.unlogged
	l.lastLogged, l.unlogged = now, 0
	l.mu.Unlock()
	who := fmt.Sprintf("uid %d", uid)
	if err != nil {
		who = "a user that could not be found out (" + err.Error() + ")"
	}
	l.log.Warn("refused a TCP connection of another user: the daemon serves its own user only",
		"from", from, "user", who, "refused_before_unlogged", unlogged,
		"note", fmt.Sprintf("at most one such line per %v", refusedLogEvery))
}

// tcpPeerOwner returns the uid of the process at the other end of the TCP connection c: the
// owner of the socket whose own end is c's remote address.
func tcpPeerOwner(c net.Conn) (int, error) {
	remote, ok1 := c.RemoteAddr().(*net.TCPAddr)
	local, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return -1, fmt.Errorf("not a TCP connection: %s", c.RemoteAddr())
	}
	uid, err := procnet.Owner(remote.AddrPort(), local.AddrPort())
	if err != nil {
		return -1, err
	}
	return uid, nil
}
