// Package statedir knows the daemon's state directory: where it is, the API token in it,
// and the lock that keeps a second daemon off the same state.
package statedir

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Files in the state directory.
const (
	TokenFile = "token"
	DBFile    = "state.db"
	LockFile  = "daemon.lock"
	EmitLog   = "emit.log"
	// SocketFile is the daemon's unix socket, the way every client reaches it.
	SocketFile = "daemon.sock"
)

// maxSocketPath is the longest path a unix socket can have on Linux: sun_path holds 108
// bytes, its NUL included.
const maxSocketPath = 107

// SocketPath returns the path of the daemon's unix socket in dir, made absolute; an error
// when it is too long to be a unix socket's.
func SocketPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	p := filepath.Join(abs, SocketFile)
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("the daemon's socket %s would be %d bytes long, and a unix socket's path "+
			"can be at most %d: choose a shorter state directory with TRAILBOSS_STATE_DIR", p, len(p), maxSocketPath)
	}
	return p, nil
}

// Default returns the state directory: $TRAILBOSS_STATE_DIR, else
// $XDG_STATE_HOME/trailboss, else ~/.local/state/trailboss.
func Default() (string, error) {
	if d := os.Getenv("TRAILBOSS_STATE_DIR"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "trailboss"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find state directory: %w (set TRAILBOSS_STATE_DIR)", err)
	}
	return filepath.Join(home, ".local", "state", "trailboss"), nil
}

// ErrNoToken means the daemon has never started with this state directory.
var ErrNoToken = errors.New("no token: the daemon has not been started with this state directory")

// ReadToken returns the API token.
func ReadToken(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, TokenFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w (%s)", ErrNoToken, dir)
	}
	if err != nil {
		return "", fmt.Errorf("read token: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("read token: %s is empty", filepath.Join(dir, TokenFile))
	}
	return tok, nil
}

// EnsureToken returns the API token, creating the directory (0700) and a random token
// (0600) on first use.
func EnsureToken(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create state directory: %w", err)
	}
	path := filepath.Join(dir, TokenFile)
	if tok, err := ReadToken(dir); err == nil {
		if err := os.Chmod(path, 0o600); err != nil {
			return "", fmt.Errorf("protect token: %w", err)
		}
		return tok, nil
	} else if !errors.Is(err, ErrNoToken) {
		return "", err
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("make token: %w", err)
	}
	tok := hex.EncodeToString(buf)
	// Write it whole under a temporary name, then link it into place: a reader never sees a
	// half-written token, and of two first starts at once, one wins and both agree.
	tmp, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write token: %w", err)
	}
	if _, err := tmp.WriteString(tok + "\n"); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write token: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		return ReadToken(dir)
	} else if err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return tok, nil
}

// Lock is held by the running daemon for as long as it runs.
type Lock struct{ f *os.File }

// ErrLocked is returned by Acquire when another daemon holds the lock.
var ErrLocked = errors.New("another trailboss daemon is running with this state directory")

// Acquire takes the state directory's lock and records who holds it and where it listens
// (the socket's path, and " and " a TCP address when it listens there too). When another
// process holds it, the error wraps ErrLocked and says what that process recorded.
func Acquire(dir, where string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	if err := lockOrWaitForTheDead(f, path); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		return nil, fmt.Errorf("%w (%s)", ErrLocked, strings.TrimSpace(string(holder)))
	}
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d on %s\n", os.Getpid(), where)
	}
	return &Lock{f: f}, nil
}

// deadHolderGrace is how long Acquire waits for the lock of a daemon that is no longer
// alive. A killed process's lock is released a moment after the process is gone (the
// kernel tears its files down after it can be reaped), so a restart right after a crash
// (systemd's Restart=on-failure, an operator's quick hands) would otherwise be refused.
const deadHolderGrace = 2 * time.Second

// lockOrWaitForTheDead takes the lock on f, waiting up to deadHolderGrace when the daemon
// that holds it, as its record says, has died.
func lockOrWaitForTheDead(f *os.File, path string) error {
	deadline := time.Now().Add(deadHolderGrace)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		rec, _ := os.ReadFile(path)
		pid := HolderPID(strings.TrimSpace(string(rec)))
		if pid <= 0 || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return err // a live daemon holds it
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Holder reports whether a daemon holds dir's lock, and what it recorded ("pid N on
// ADDR"). It takes the lock for an instant when it is free, so it never blocks a daemon
// for longer than that.
func Holder(dir string) (string, bool) {
	path := filepath.Join(dir, LockFile)
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return "", false
	}
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b)), true
}

// HolderPID returns the pid in a Holder record, or 0.
func HolderPID(record string) int {
	var pid int
	if _, err := fmt.Sscanf(record, "pid %d", &pid); err != nil {
		return 0
	}
	return pid
}

// RanBefore reports whether a daemon ever ran with dir: its lock holds a record.
func RanBefore(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	return err == nil && strings.Contains(string(b), " on ")
}

// LastAddr returns the TCP address the daemon of dir listens (or last listened) on, from
// its lock record, or "" when it listened on its socket alone or never ran.
func LastAddr(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil {
		return ""
	}
	_, where, ok := strings.Cut(strings.TrimSpace(string(b)), " on ")
	if !ok {
		return ""
	}
	for _, w := range strings.Split(where, " and ") {
		if !strings.HasPrefix(w, "/") {
			return w
		}
	}
	return ""
}

// maxEmitLog is the size past which the emit log is rotated to emit.log.1.
const maxEmitLog = 64 << 10

// AppendEmitLog adds a line "TIME MSG" to dir's emit log, which doctor reads: what became
// of an event a hook sent, when it did not simply arrive. Best effort: a log that cannot be
// written is no reason to fail a hook or a drain.
func AppendEmitLog(dir string, now time.Time, msg string) {
	if dir == "" || os.MkdirAll(dir, 0o700) != nil {
		return
	}
	path := filepath.Join(dir, EmitLog)
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxEmitLog {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", now.UTC().Format(time.RFC3339), msg)
}

// Release lets another daemon start.
func (l *Lock) Release() error {
	return l.f.Close() // closing drops the flock
}
