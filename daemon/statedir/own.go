package statedir

// Whose the files a client trusts are (SECURITY.md "Transport"). Another local user can make
// a state directory, or a link to one, with a token and a listening socket in it, and wait
// for the operator's TRAILBOSS_STATE_DIR to name it: a client checks the directory, the token
// and the socket are the user's own before it reads the token or sends a byte. (Who listens
// on the socket, checked after connecting, is the client's: hot.CheckPeer.)

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// NotYoursError means a path a client would trust — the state directory, the token file or
// the daemon's socket — is not the user's own, or not private: nothing was read from it or
// sent to it. errors.Is(err, ErrNotPrivate) holds.
type NotYoursError struct {
	Path string
	Why  string // the whole message: what is wrong, that nothing was sent, what to do
}

func (e *NotYoursError) Error() string { return e.Why }

// Is makes errors.Is(err, ErrNotPrivate) hold.
func (e *NotYoursError) Is(target error) bool { return target == ErrNotPrivate }

// ownDirFix is what to do about a state directory that is not the user's own.
const ownDirFix = "set TRAILBOSS_STATE_DIR to a directory of your own"

// CheckDir returns nil when dir is the user's own private state directory: a directory the
// user owns with no group or other bits, reached directly or through a symlink the user owns
// itself. It returns an error wrapping fs.ErrNotExist when nothing is at dir, and a
// *NotYoursError for anything else.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if uid := ownerOf(fi); uid != os.Getuid() {
			return &NotYoursError{Path: dir, Why: fmt.Sprintf("the state directory %s is a link made by user id %d, not by you (%d): "+
				"not following it, nor sending anything through it; %s", dir, uid, os.Getuid(), ownDirFix)}
		}
		if fi, err = os.Stat(dir); err != nil {
			return fmt.Errorf("state directory: %w", err)
		}
		if target, err := filepath.EvalSymlinks(dir); err == nil {
			dir = dir + " (" + target + ")"
		}
	}
	if !fi.IsDir() {
		return &NotYoursError{Path: dir, Why: fmt.Sprintf("the state directory %s is not a directory: not sending anything to it; "+
			"move it away, or %s", dir, ownDirFix)}
	}
	if uid := ownerOf(fi); uid != os.Getuid() {
		return &NotYoursError{Path: dir, Why: fmt.Sprintf("the state directory %s belongs to user id %d, not to you (%d): "+
			"not sending anything to it; %s", dir, uid, os.Getuid(), ownDirFix)}
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return &NotYoursError{Path: dir, Why: fmt.Sprintf("the state directory %s is open to other users (mode %04o): "+
			"not trusting what is in it; make it private with chmod 700 (trailboss start does)", dir, perm)}
	}
	return nil
}

// checkToken returns nil when fi, the token file at path, is a regular file the user owns
// that no one else may read (no group or other bits); else a *NotYoursError. A link is
// refused: whoever made it chose what it leads to.
func checkToken(path string, fi fs.FileInfo) error {
	const fix = "run trailboss stop, remove it, then trailboss start, which writes a new one"
	switch {
	case !fi.Mode().IsRegular():
		return &NotYoursError{Path: path, Why: fmt.Sprintf("the token file %s is not a plain file (%s): not using it; %s",
			path, kindOf(fi), fix)}
	case ownerOf(fi) != os.Getuid():
		return &NotYoursError{Path: path, Why: fmt.Sprintf("the token file %s belongs to user id %d, not to you (%d): "+
			"not using it; %s", path, ownerOf(fi), os.Getuid(), fix)}
	case fi.Mode().Perm()&0o077 != 0:
		return &NotYoursError{Path: path, Why: fmt.Sprintf("the token file %s can be read by other users (mode %04o): "+
			"not using it; make it private with chmod 600", path, fi.Mode().Perm())}
	}
	return nil
}

// CheckSocket returns nil when path is a unix socket the user owns. It returns an error
// wrapping fs.ErrNotExist when there is none (the daemon is down), and a *NotYoursError for
// anything else: another user's socket, a link, a file. Whose program listens on it is
// known only once connected (hot.CheckPeer).
func CheckSocket(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("daemon's socket: %w", err)
	}
	const fix = "run trailboss stop, remove it, then trailboss start"
	switch {
	case fi.Mode()&fs.ModeSocket == 0:
		return &NotYoursError{Path: path, Why: fmt.Sprintf("the daemon's socket %s is not a socket (%s): not sending anything to it; %s",
			path, kindOf(fi), fix)}
	case ownerOf(fi) != os.Getuid():
		return &NotYoursError{Path: path, Why: fmt.Sprintf("the daemon's socket %s belongs to user id %d, not to you (%d): "+
			"not sending anything to it; %s", path, ownerOf(fi), os.Getuid(), fix)}
	}
	return nil
}

// ownerOf returns the uid that owns fi, or -1 when the system does not say.
func ownerOf(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// kindOf names what fi is, for messages.
func kindOf(fi fs.FileInfo) string {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsRegular():
		return "a plain file"
	}
	return "a special file"
}
