package hot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrDown means the daemon could not be reached. Its text is the one message a person sees
// for it, wherever they meet it: the keys, the popup, ls, status and doctor.
var ErrDown = errors.New("the daemon is not running — start it with: trailboss start")

// DownError is ErrDown with the address tried and the cause, for logs; its message is
// ErrDown's alone, without the network's words.
type DownError struct {
	Addr  string
	Cause error
}

func (e *DownError) Error() string { return ErrDown.Error() }

// Is makes errors.Is(err, ErrDown) hold.
func (e *DownError) Is(target error) bool { return target == ErrDown }

// ErrBusy means the daemon could be reached, but did not answer in time: it is busy (or the
// machine is), or cannot be reached (a connect that never completes). Unlike ErrDown, it
// may well be running; the way to it says which (BusyError).
var ErrBusy = errors.New("the daemon did not answer in time: it is busy or unreachable")

// BusyError is ErrBusy with the address tried, how long the client waited and the cause.
type BusyError struct {
	Addr   string
	Within time.Duration // 0 when the request's time is not known
	Cause  error
}

func (e *BusyError) Error() string {
	within := "in time"
	if e.Within > 0 {
		within = "within " + e.Within.Round(time.Millisecond).String()
	}
	return fmt.Sprintf("the daemon at %s did not answer %s: it is busy or unreachable — try again in a moment; "+
		"if it goes on, restart it: trailboss stop && trailboss start", e.Addr, within)
}

// Is makes errors.Is(err, ErrBusy) hold.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// Unwrap returns the cause, a timeout.
func (e *BusyError) Unwrap() error { return e.Cause }

// timedOut reports whether err is a connect, write or read that ran out of time, or a
// unix socket whose queue of connections was full (EAGAIN): the daemon did not answer, and
// may be running.
func timedOut(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.As(err, &te) && te.Timeout()
}

// RefusedError is the daemon's "no" to what was posted (a 4xx answer): sending it again
// would only be refused again.
type RefusedError struct {
	Status  string // "400 Bad Request"
	Message string // the daemon's reason
}

func (e *RefusedError) Error() string {
	return "daemon refused the event: " + e.Status + ": " + e.Message
}

// ErrForeign means something answers at the daemon's address that is not Trail Boss's
// daemon: another program took the port.
var ErrForeign = errors.New("another program answers at the daemon's address")

// ForeignError is ErrForeign with the address.
type ForeignError struct{ Addr string }

func (e *ForeignError) Error() string {
	return "another program, not Trail Boss, answers at " + e.Addr +
		" — choose a free address with addr in config.toml or TRAILBOSS_ADDR (e.g. 127.0.0.1:4001)"
}

// Is makes errors.Is(err, ErrForeign) hold.
func (e *ForeignError) Is(target error) bool { return target == ErrForeign }

// ErrImpostor means the program at the daemon's address or socket is not the operator's:
// it runs as another user, or who runs it cannot be checked. Nothing was sent to it.
var ErrImpostor = errors.New("the program at the daemon's address is not yours; nothing was sent to it")

// ImpostorError is ErrImpostor with the address (or the socket's path) and, when known, the
// listener's uid.
type ImpostorError struct {
	Addr     string // the TCP address, or the unix socket's path when OnSocket
	OnSocket bool
	UID      int   // -1 when who listens could not be found out
	Cause    error // why it could not be, when UID is -1
}

func (e *ImpostorError) Error() string {
	if e.OnSocket {
		const fix = "your daemon is not there: remove that socket and run trailboss start, or set TRAILBOSS_STATE_DIR to a directory of your own"
		if e.UID >= 0 {
			return fmt.Sprintf("another user's program (uid %d) listens on %s — not sending anything to it; %s", e.UID, e.Addr, fix)
		}
		return fmt.Sprintf("cannot check who listens on %s (%v) — not sending anything to it; %s", e.Addr, e.Cause, fix)
	}
	const fix = "leave addr unset (config.toml, TRAILBOSS_ADDR, --addr) to reach the daemon through its private socket"
	if e.UID >= 0 {
		return fmt.Sprintf("another user's program (uid %d) listens at %s — not sending anything to it; "+
			"your daemon is not there: %s, or stop that program", e.UID, e.Addr, fix)
	}
	return fmt.Sprintf("cannot check who listens at %s (%v) — not sending anything to it; %s", e.Addr, e.Cause, fix)
}

// Is makes errors.Is(err, ErrImpostor) hold.
func (e *ImpostorError) Is(target error) bool { return target == ErrImpostor }
