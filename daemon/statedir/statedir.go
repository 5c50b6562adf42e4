// Package statedir knows the daemon's state directory: where it is, the API token in it,
// and the lock that keeps a second daemon off the same state.
package statedir

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
		// A directory of the user's own, made private by mkdir itself: a shared one (/tmp)
		// would let another user make the socket the clients talk to.
		return "", fmt.Errorf("the daemon's socket %s would be %d bytes long, and a unix socket's path "+
			"can be at most %d: set TRAILBOSS_STATE_DIR to a short directory of your own, such as "+
			"/tmp/trailboss-%d made with mkdir -m 700 (never a shared one)", p, len(p), maxSocketPath, os.Getuid())
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

// ErrEmptyToken is returned by ReadToken for a token file with nothing in it (a crash
// while it was first written, or a hand that cleared it).
var ErrEmptyToken = errors.New("the token file is empty")

// ReadToken returns the API token, once the directory and the token file prove to be the
// user's own (CheckDir; a regular file of the user's, mode 0600): another user's token, or
// one in another user's directory, is a *NotYoursError. No directory or no token is
// ErrNoToken.
func ReadToken(dir string) (string, error) {
	path := filepath.Join(dir, TokenFile)
	err := CheckDir(dir)
	var f *os.File
	if err == nil {
		// O_NOFOLLOW: a link is refused, and the file checked is the file read; O_NONBLOCK: a
		// fifo put in its place cannot hang a hook.
		f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if errors.Is(err, syscall.ELOOP) {
			if fi, lerr := os.Lstat(path); lerr == nil {
				err = checkToken(path, fi) // says whose link it is
			}
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w (%s)", ErrNoToken, dir)
	}
	var notYours *NotYoursError
	if errors.As(err, &notYours) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("read token: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read token: %w", err)
	}
	if err := checkToken(path, fi); err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxToken))
	if err != nil {
		return "", fmt.Errorf("read token: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("read token: %w (%s); the daemon writes a new one when it starts: "+
			"run trailboss stop, then trailboss start", ErrEmptyToken, path)
	}
	return tok, nil
}

// maxToken bounds what is read of the token file: the daemon writes 65 bytes.
const maxToken = 4 << 10

// EnsureToken returns the API token, creating the directory (0700) and a random token
// (0600) on first use.
func EnsureToken(dir string) (string, error) {
	tok, _, err := MakeToken(dir)
	return tok, err
}

// MakeToken returns the API token, making the directory private (Ensure) and a random
// token (0600) when there is none; created reports that it wrote the file. An empty token file is
// replaced: only the daemon calls MakeToken with its lock held, so no daemon serves with the
// token that file lost.
func MakeToken(dir string) (tok string, created bool, err error) {
	if _, _, err := Ensure(dir); err != nil {
		return "", false, err
	}
	path := filepath.Join(dir, TokenFile)
	// A token file of the user's that others could read (from before the daemon kept its
	// umask) is made private first: ReadToken, as every client, refuses it otherwise.
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && ownerOf(fi) == os.Getuid() && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return "", false, fmt.Errorf("protect token: %w", err)
		}
	}
	tok, err = ReadToken(dir)
	switch {
	case err == nil:
		return tok, false, nil
	case errors.Is(err, ErrEmptyToken):
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", false, fmt.Errorf("replace the empty token file: %w", err)
		}
	case !errors.Is(err, ErrNoToken):
		return "", false, err
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", false, fmt.Errorf("make token: %w", err)
	}
	tok = hex.EncodeToString(buf)
	// Write it whole and on disk under a temporary name, then link it into place: a reader
	// never sees a half-written token, a crash never leaves an empty one, and of two first
	// starts at once, one wins and both agree.
	tmp, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return "", false, fmt.Errorf("write token: %w", err)
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.WriteString(tok + "\n")
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", false, fmt.Errorf("write token: %w", err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		tok, err := ReadToken(dir)
		return tok, false, err
	} else if err != nil {
		return "", false, fmt.Errorf("write token: %w", err)
	}
	if err := SyncDir(dir); err != nil {
		return "", false, fmt.Errorf("write token: %w", err)
	}
	return tok, true, nil
}

// SyncDir flushes dir's entries to disk, so that a file created or renamed in it survives
// a crash under that name.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Lock is held by the running daemon for as long as it runs.
type Lock struct {
	f       *os.File
	path    string
	created bool // this Acquire made the lock file
}

// ErrLocked is returned by Acquire when another daemon holds the lock.
var ErrLocked = errors.New("another trailboss daemon is running with this state directory")

// Acquire takes the state directory's lock. It writes nothing in it: the daemon records
// itself (Record) once it listens, so that a start that fails leaves the record of the
// last daemon that ran. When another process holds it, the error wraps ErrLocked and says
// what that process recorded.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	for {
		created := false
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			f, err = os.OpenFile(path, os.O_RDWR, 0)
		} else {
			created = err == nil
		}
		if errors.Is(err, os.ErrNotExist) {
			continue // removed between the two opens by a start that failed
		}
		if err != nil {
			return nil, fmt.Errorf("open lock: %w", err)
		}
		if err := lockOrWaitForTheDead(f, path); err != nil {
			holder, _ := os.ReadFile(path)
			f.Close()
			return nil, fmt.Errorf("%w (%s)", ErrLocked, strings.TrimSpace(string(holder)))
		}
		// A start that failed removes the lock file it made (Abandon); one that opened that
		// file just before holds a lock on a name that no longer exists, and tries again.
		if held, err := f.Stat(); err == nil {
			if now, err := os.Stat(path); err != nil || !os.SameFile(held, now) {
				f.Close()
				continue
			}
		}
		return &Lock{f: f, path: path, created: created}, nil
	}
}

// Record writes who holds the lock and where it listens ("pid N on WHERE": the socket's
// path, and " and " a TCP address when it listens there too), durably.
func (l *Lock) Record(addr string) error {
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("record the daemon in its lock: %w", err)
	}
	if _, err := l.f.WriteAt([]byte(fmt.Sprintf("pid %d on %s\n", os.Getpid(), addr)), 0); err != nil {
		return fmt.Errorf("record the daemon in its lock: %w", err)
	}
	return l.f.Sync()
}

// Abandon releases the lock of a start that failed, and removes the lock file when that
// start made it: the state directory is left as the start found it.
func (l *Lock) Abandon() error {
	if l.created {
		if err := os.Remove(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			l.f.Close()
			return err
		}
	}
	return l.f.Close()
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
	if dir == "" {
		return
	}
	if _, _, err := Ensure(dir); err != nil {
		return // not the user's own directory: nothing of theirs goes there
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
