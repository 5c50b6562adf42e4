package httpapi

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// ErrNotLoopback is returned for an address that is not on the loopback interface.
var ErrNotLoopback = errors.New("not a loopback address")

// CheckLoopback returns an error unless addr is host:port with a loopback host.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if !loopbackHost(host) {
		return fmt.Errorf("refusing to listen on %q: %w (use 127.0.0.1 or [::1])", addr, ErrNotLoopback)
	}
	return nil
}

// ErrAddrInUse is returned when another program listens on the daemon's address.
var ErrAddrInUse = errors.New("address in use")

// AddrInUseError is ErrAddrInUse with the address; the command that started the daemon
// knows which setting chose it, and so how to move it.
type AddrInUseError struct{ Addr string }

func (e *AddrInUseError) Error() string {
	return e.Addr + " is taken by another program, so the daemon cannot listen there; choose another address"
}

// Is makes errors.Is(err, ErrAddrInUse) hold.
func (e *AddrInUseError) Is(target error) bool { return target == ErrAddrInUse }

// Listen listens on addr, saying in a user's words what to do when it is taken.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, &AddrInUseError{Addr: addr}
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}
