// Package statuscmd is trailboss-status: the queue's status line, "⚠ N stuck" (nothing
// when no item waits), for whatever runs a program to draw one: a shell prompt, a desktop
// bar, a #(…) in a tmux status line, a script. It asks the daemon through its unix socket,
// as `trailboss status` does, and says the same things.
//
// It is a program of its own because its whole cost is its start: run on every prompt or
// redraw, it must start about as fast as an empty Go program, and every package a Go
// program links costs its start something (BENCHMARKS.md). So it links no more than it
// needs to ask: no cgo, none of the hooks, adapters or tmux code that trailboss-hot
// carries, no encoding/json; and it reads the answer with blocking reads on a socket that
// keeps to a timeout, so the runtime starts no poller. tmux users need none of this: the
// daemon keeps #{@trailboss_status} current, which costs no process at all.
package statuscmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/daemon/client/hot"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wire"
)

// timeout bounds connecting, sending and each read: a daemon that does not answer within
// it is busy or unreachable, as for `trailboss status`.
const timeout = time.Second

// Main is trailboss-status's main: it runs the command line and returns the exit code.
func Main() int { return Run(os.Args[1:], os.Stdout, os.Stderr) }

// Run is the command: its exit code is 0 once the line is printed, 1 when the daemon could
// not say, and 2 for a command line it does not understand.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trailboss-status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "state directory (default $TRAILBOSS_STATE_DIR, $XDG_STATE_HOME/trailboss)")
	fs.Usage = func() {
		fmt.Fprint(stdout, "Usage: trailboss-status [--state-dir DIR]\n\n"+
			"Prints \"⚠ N stuck\" for a shell prompt or a status bar, and nothing when no item is\n"+
			"ready; the same as `trailboss status`, in a program that starts in a few milliseconds.\n"+
			"In tmux, #{@trailboss_status} shows the same and runs nothing.\n\nFlags:\n")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "trailboss: usage: trailboss-status takes no arguments, only --state-dir (got %q)\n", fs.Arg(0))
		return 2
	}
	text, err := status(*stateDir)
	if err != nil {
		fmt.Fprintln(stderr, "trailboss:", err)
		return 1
	}
	if text != "" {
		fmt.Fprintln(stdout, text)
	}
	return 0
}

// status asks the daemon of dir ("" for the default) for its counts and returns the status
// line.
func status(dir string) (string, error) {
	if dir == "" {
		var err error
		if dir, err = statedir.Default(); err != nil {
			return "", err
		}
	}
	t, err := hot.Find("", dir)
	if err != nil {
		return "", err
	}
	if !hot.ValidHeaderValue(t.Token) {
		return "", fmt.Errorf("the token file in %s holds a control character: run trailboss stop, remove it, then trailboss start", dir)
	}
	conn, err := dial(t.Socket)
	if err != nil {
		return "", hot.Failed(t.Where(), timeout, err)
	}
	defer conn.Close()
	request := "GET " + wire.RouteStatus + " HTTP/1.1\r\nHost: " + t.Host() + "\r\nAuthorization: Bearer " + t.Token +
		"\r\nConnection: close\r\n\r\n"
	if _, err := conn.Write([]byte(request)); err != nil {
		return "", hot.Failed(t.Where(), timeout, err)
	}
	code, status, contentType, body, err := readAnswer(conn)
	if errors.Is(err, hot.ErrCutShort) {
		return "", fmt.Errorf("GET %s: %w", wire.RouteStatus, err) // it answered: not down
	}
	if err != nil {
		return "", hot.Failed(t.Where(), timeout, err)
	}
	if code != 200 || !strings.HasPrefix(contentType, "application/json") {
		// Not the counts: the daemon's refusal (or another server), said as every client says it.
		if err := hot.Outcome("GET", wire.RouteStatus, t.Where(), code, status, contentType, body, nil); err != nil {
			return "", err
		}
		return "", fmt.Errorf("GET %s: %s: no counts in the daemon's answer", wire.RouteStatus, status)
	}
	stuck, ok1 := count(body, "stuck")
	cooling, ok2 := count(body, "cooling")
	if !ok1 || !ok2 {
		return "", fmt.Errorf("GET %s: the daemon's answer has no counts: %.200q", wire.RouteStatus, body)
	}
	return queue.StatusLine(stuck, cooling, names(body, "unreachable")), nil
}

// names returns the array of host names field name of body holds (wire.Status's
// unreachable), nil when it has none. Host names are letters, digits, '.', '_' and '-'
// (config.toml's [[hosts]]): anything else is not one of them, and left out.
func names(body []byte, name string) []string {
	s := string(body)
	i := strings.Index(s, `"`+name+`"`)
	if i < 0 {
		return nil
	}
	s = strings.TrimLeft(s[i+len(name)+2:], " \t\r\n")
	if !strings.HasPrefix(s, ":") {
		return nil
	}
	s = strings.TrimLeft(s[1:], " \t\r\n")
	if !strings.HasPrefix(s, "[") {
		return nil
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return nil
	}
	var out []string
	for _, f := range strings.Split(s[1:end], ",") {
		f = strings.TrimSpace(f)
		if len(f) < 3 || f[0] != '"' || f[len(f)-1] != '"' {
			continue
		}
		if h := f[1 : len(f)-1]; strings.IndexFunc(h, notHostNameRune) < 0 {
			out = append(out, h)
		}
	}
	return out
}

func notHostNameRune(r rune) bool {
	word := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
	return !word
}

// count returns the number field name of body, a flat JSON object of numbers (wire.Status),
// and whether it is there. encoding/json would cost this program a third of its start,
// reflecting on a struct of four ints.
func count(body []byte, name string) (int, bool) {
	s := string(body)
	i := strings.Index(s, `"`+name+`"`)
	if i < 0 {
		return 0, false
	}
	s = strings.TrimLeft(s[i+len(name)+2:], " \t\r\n")
	if !strings.HasPrefix(s, ":") {
		return 0, false
	}
	s = strings.TrimLeft(s[1:], " \t\r\n")
	end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(s)
	}
	n, err := strconv.Atoi(s[:end])
	return n, err == nil
}

// maxAnswer bounds the daemon's answer: its counts are a few dozen bytes.
const maxAnswer = 64 << 10

// readAnswer reads the daemon's whole answer (it closes the connection after it) and
// returns its code, its status ("200 OK"), its Content-Type and its body. The daemon's
// answers to this request are small and sent whole, with their length: a chunked or
// partial one is an answer it did not send.
func readAnswer(r io.Reader) (code int, status, contentType string, body []byte, err error) {
	all, err := io.ReadAll(io.LimitReader(r, maxAnswer))
	if err != nil {
		return 0, "", "", nil, err
	}
	head, rest, ok := strings.Cut(string(all), "\r\n\r\n")
	lines := strings.Split(head, "\r\n")
	proto, status, _ := strings.Cut(lines[0], " ")
	if !ok || (proto != "HTTP/1.1" && proto != "HTTP/1.0") || len(status) < 3 {
		return 0, "", "", nil, fmt.Errorf("malformed HTTP response %q", lines[0])
	}
	if code, err = strconv.Atoi(status[:3]); err != nil {
		return 0, "", "", nil, fmt.Errorf("malformed HTTP status %q", status)
	}
	length := -1
	for _, line := range lines[1:] {
		k, v, _ := strings.Cut(line, ":")
		switch v = strings.TrimSpace(v); strings.ToLower(k) {
		case "content-type":
			contentType = v
		case "content-length":
			length, _ = strconv.Atoi(v)
		case "transfer-encoding":
			return 0, "", "", nil, fmt.Errorf("unexpected Transfer-Encoding %q", v)
		}
	}
	if length < len(rest) || length < 0 {
		return 0, "", "", nil, fmt.Errorf("the answer's body is %d bytes, its Content-Length says %d", len(rest), length)
	}
	if length > len(rest) {
		return 0, "", "", nil, hot.ErrCutShort
	}
	return code, status, contentType, []byte(rest), nil
}

// socket is a blocking unix socket whose reads and writes give up after timeout.
type socket int

// dial connects to the daemon's unix socket at path, once it and its directory prove to be
// the user's own, and returns the connection once the program on the other end proves to
// run as this user (hot.CheckSocket, hot.CheckPeer): nothing is sent to another user's.
func dial(path string) (socket, error) {
	if err := hot.CheckSocket(path); err != nil {
		return -1, err
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	tv := syscall.NsecToTimeval(timeout.Nanoseconds())
	for _, opt := range []int{syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO} { // SO_SNDTIMEO bounds connect too
		if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			syscall.Close(fd)
			return -1, os.NewSyscallError("setsockopt", err)
		}
	}
	if err := retry(func() error { return syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}) }); err != nil {
		syscall.Close(fd)
		return -1, &os.PathError{Op: "connect", Path: path, Err: err}
	}
	if err := hot.CheckPeer(uintptr(fd), path); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return socket(fd), nil
}

// errTimedOut: the daemon did not answer within timeout (a deadline, as hot.Failed reads it:
// the daemon is busy, not down).
var errTimedOut = fmt.Errorf("the daemon did not answer in time: %w", os.ErrDeadlineExceeded)

func (s socket) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(s), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, errTimedOut
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (s socket) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Write(int(s), p[done:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return done, errTimedOut
		case err != nil:
			return done, err
		}
		done += n
	}
	return done, nil
}

func (s socket) Close() error { return syscall.Close(int(s)) }

// retry runs a system call again while a signal interrupts it (the runtime's own, which a
// call with a timeout is not restarted after).
func retry(call func() error) error {
	for {
		if err := call(); err != syscall.EINTR {
			return err
		}
	}
}
