// Package bridge joins a byte stream to the daemon's unix socket: what `trailboss bridge`
// runs on a remote machine, under `ssh host trailboss bridge`, where the ssh server does not
// forward unix sockets (issue 30). The hub speaks the daemon's HTTP through ssh's stdin and
// stdout, and the remote daemon sees the bridge, a process of its own user, as its peer.
//
// The bridge never writes a byte of its own to its output: everything on it is the daemon's.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/trailboss/trailboss/daemon/client/hot"
)

// Run connects to the daemon at t (its unix socket) and copies in to the daemon and the
// daemon to out until the daemon closes its end. When in ends first, the daemon is told so
// (its side reads an end of stream) and its answer still reaches out. It returns nil when
// the stream ended; a *hot.DownError when no daemon answers at the socket; what hot.Failed
// says when nothing was sent because the socket, its directory or the program listening
// there is not this user's (Connect checks them before the first byte); the output's error
// when out broke.
func Run(ctx context.Context, t hot.Target, in io.Reader, out io.Writer) error {
	if t.Addr != "" {
		// The bridge is how another machine reaches this one's daemon as its own user; a TCP
		// address would make the daemon see a connection, not a process of that user.
		return fmt.Errorf("the bridge reaches the daemon only through its unix socket; unset addr (config.toml, TRAILBOSS_ADDR, --addr)")
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return hot.Failed(t.Where(), 0, err)
	}
	defer conn.Close()
	// A signal (sshd ending the session) stops both copies: closing the socket ends the one
	// reading from it, and the process exits without waiting for the one reading in.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	go func() {
		if _, err := io.Copy(conn, in); err == nil {
			// The caller has said all it will: tell the daemon, which then answers what it
			// was asked and closes, which ends the copy below.
			closeWrite(conn)
		}
		// On an error the daemon closed its end first, and the copy below sees it too.
	}()
	if _, err := io.Copy(out, conn); err != nil {
		if ctx.Err() != nil {
			return errors.New("bridge stopped by a signal before the daemon ended the stream")
		}
		var pathErr *os.PathError
		if errors.As(err, &pathErr) && pathErr.Path == t.Socket {
			return fmt.Errorf("read from the daemon at %s: %w", t.Socket, pathErr.Err)
		}
		return fmt.Errorf("write the daemon's answer to standard output: %w", err)
	}
	return nil
}

// closeWrite shuts down conn's sending side, so that the daemon reads the end of the stream
// while its answer can still come back.
func closeWrite(conn *os.File) {
	if rc, err := conn.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_WR) })
	}
}
