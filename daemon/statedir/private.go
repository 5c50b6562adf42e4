package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNotPrivate is returned for a state directory that cannot be made the user's own: it
// belongs to another user, or is not a directory.
var ErrNotPrivate = errors.New("the state directory is not private")

// Ensure makes dir the user's private state directory: it creates it (and its parents)
// with mode 0700, or takes it as it is when it is a directory the user owns with no group
// or other bits; one with such bits is made 0700, and tightened reports it. A path that is
// not a directory (a symlink is followed when the user owns it: it must lead to one), a
// symlink of another user's, or a directory owned by another user, is refused with an error wrapping ErrNotPrivate that says what to do.
// created reports that the directory did not exist before.
func Ensure(dir string) (tightened, created bool, err error) {
	// A link is followed only when it is the user's own: whoever made it can point it
	// anywhere, at any time.
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 && ownerOf(fi) != os.Getuid() {
		return false, false, fmt.Errorf("%w: %s is a link made by user id %d, not by you (%d); "+
			"set TRAILBOSS_STATE_DIR to a directory of your own", ErrNotPrivate, dir, ownerOf(fi), os.Getuid())
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return false, false, fmt.Errorf("create state directory: %w", err)
		}
		// MkdirAll's mode passes through the umask; the directory itself must be 0700.
		if err := os.Chmod(dir, 0o700); err != nil {
			return false, false, fmt.Errorf("create state directory: %w", err)
		}
		return false, true, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("state directory: %w", err)
	}
	if !fi.IsDir() {
		return false, false, fmt.Errorf("%w: %s is not a directory; move it away, or set TRAILBOSS_STATE_DIR to a directory of your own",
			ErrNotPrivate, dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return false, false, fmt.Errorf("%w: %s belongs to user id %d, not to you (%d), so others could read or change what Trail Boss keeps there; "+
			"set TRAILBOSS_STATE_DIR to a directory of your own, or remove that one", ErrNotPrivate, dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return false, false, nil
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return false, false, fmt.Errorf("make the state directory private (chmod 700 %s): %w", dir, err)
	}
	return true, false, nil
}

// TightenedNote is what the daemon and start say, once, after Ensure tightened dir.
func TightenedNote(dir string) string {
	return dir + " was readable by other users; it is now private (mode 0700)"
}

// PrivateFiles takes the group and other bits off every file and directory under dir
// (state.db 0644 becomes 0600), and returns how many it changed: files made before Trail Boss
// kept its umask, or copied in, may carry group or other bits. Symlinks are left alone.
func PrivateFiles(dir string) (int, error) {
	changed := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walked: a spool file drained, a temp file renamed
			}
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 || path == dir {
			return nil
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 == 0 {
			return nil
		}
		if err := os.Chmod(path, fi.Mode().Perm()&^0o077); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		changed++
		return nil
	})
	if err != nil {
		return changed, fmt.Errorf("make the state directory's files private: %w", err)
	}
	return changed, nil
}
