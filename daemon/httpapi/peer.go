package httpapi

// Who is on the other end of a request: the daemon's unix socket names the local process
// (SO_PEERCRED), a TCP connection its user (/proc/net/tcp). The audit log records it with
// each answer, whatever the caller says it is.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/procnet"
)

// ListenSocket listens on the unix socket at path, mode 0600. The caller holds the state
// directory's lock, so a socket file already there is a dead daemon's, and is removed.
func ListenSocket(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s is in the way of the daemon's socket and is not one: move it away", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove a dead daemon's socket: %w", err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("protect %s: %w", path, err)
	}
	return ln, nil
}

type peerKey struct{}

// peer is the other end of one connection.
type peer struct {
	cred  *unix.Ucred // on the unix socket; nil when it could not be read
	local net.Addr    // the daemon's end
	conn  net.Addr    // the caller's end; a *net.TCPAddr over TCP
	unix  bool

	bridgeOnce sync.Once // bridged looks at the peer's process once
	bridge     bool      // the peer is a `trailboss bridge` of the daemon's user
}

// ConnContext records the peer of c in the context of every request that comes over it
// (http.Server.ConnContext). Peer credentials are read here, once per connection: they are
// the process that connected.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	p := &peer{local: c.LocalAddr(), conn: c.RemoteAddr()}
	if lc, ok := c.(*limitConn); ok {
		c = lc.Conn // the connection cap's wrapper: the socket is inside
	}
	if uc, ok := c.(*net.UnixConn); ok {
		p.unix = true
		if raw, err := uc.SyscallConn(); err == nil {
			_ = raw.Control(func(fd uintptr) {
				p.cred, _ = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
			})
		}
	}
	return context.WithValue(ctx, peerKey{}, p)
}

// onSocket reports whether r came over the daemon's unix socket, which only processes of the
// state directory's owner can reach (and no browser).
func onSocket(r *http.Request) bool {
	p, _ := r.Context().Value(peerKey{}).(*peer)
	return p != nil && p.unix
}

// actorOf says who sent r in the audit log's words: "uid 1000 pid 4242 trailboss" on the
// socket, "uid 1000 over TCP from 127.0.0.1:51234" over TCP.
func actorOf(r *http.Request) string {
	p, _ := r.Context().Value(peerKey{}).(*peer)
	switch {
	case p == nil:
		return "unknown"
	case p.unix && p.cred == nil:
		return "a local process (its credentials could not be read)"
	case p.unix && bridged(r):
		return fmt.Sprintf("uid %d pid %d %s", p.cred.Uid, p.cred.Pid, command(int(p.cred.Pid))) + fromHub(r, int(p.cred.Pid))
	case p.unix:
		return fmt.Sprintf("uid %d pid %d %s", p.cred.Uid, p.cred.Pid, command(int(p.cred.Pid)))
	}
	from, ok := p.conn.(*net.TCPAddr)
	if !ok {
		return "over " + p.conn.Network() + " from " + p.conn.String()
	}
	uid, ok := tcpPeerUID(r)
	if !ok {
		return "uid unknown over TCP from " + from.String()
	}
	return fmt.Sprintf("uid %d over TCP from %s", uid, from)
}

// tcpPeerUID returns the user of the process at the other end of r's TCP connection, from
// /proc/net; ok is false on the unix socket or when it cannot be told.
func tcpPeerUID(r *http.Request) (uid int, ok bool) {
	p, _ := r.Context().Value(peerKey{}).(*peer)
	if p == nil || p.unix {
		return 0, false
	}
	from, ok1 := p.conn.(*net.TCPAddr)
	to, ok2 := p.local.(*net.TCPAddr)
	if !ok1 || !ok2 {
		return 0, false
	}
	owner, err := procnet.Owner(from.AddrPort(), to.AddrPort())
	if err != nil {
		return 0, false
	}
	return int(owner), true
}

// inTmux says, after actorOf, where a caller over the socket that names its tmux client
// (the popup) runs: in which tmux server, read from its process's ancestry, and the client
// as it said ("" when it names none).
func inTmux(r *http.Request, client string) string {
	if client == "" {
		return ""
	}
	said := "client " + adapter.CleanText(client, 60) + " as it said"
	p, _ := r.Context().Value(peerKey{}).(*peer)
	if p == nil || !p.unix || p.cred == nil {
		return " (" + said + ")"
	}
	if server := lineage.TmuxServerOf(int(p.cred.Pid)); server > 0 {
		return fmt.Sprintf(", in tmux server %d (%s)", server, said)
	}
	return " (" + said + ", though it runs in no tmux server)"
}

// peerPID returns the process that sent r over the unix socket, or 0 when it is not known
// (over TCP, or its credentials could not be read).
func peerPID(r *http.Request) int {
	p, _ := r.Context().Value(peerKey{}).(*peer)
	if p == nil || !p.unix || p.cred == nil {
		return 0
	}
	return int(p.cred.Pid)
}

// command returns the name of process pid's program (its comm; never its arguments, which
// may hold what was typed), or "?".
func command(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "(exited)"
		}
		return "?"
	}
	name := adapter.CleanText(strings.TrimSpace(string(b)), 40)
	if name == "" {
		return "?"
	}
	return name
}
