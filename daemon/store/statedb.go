package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
)

// ErrStateLost is returned when state.db is gone or empty although a daemon ran here before: the
// queue it held would be silently lost, so the operator must say --reset.
var ErrStateLost = errors.New("state database is missing")

// OpenIn opens the state directory dir's state.db, which a daemon has run with before when
// ranBefore. A corrupt file, or one deleted since the last run, is an error
// that says how to start fresh; with reset the old file is moved aside first.
func OpenIn(ctx context.Context, dir string, reset, ranBefore bool) (*Store, error) {
	path := filepath.Join(dir, statedir.DBFile)
	if reset {
		if err := moveAside(path); err != nil {
			return nil, err
		}
	} else if fi, err := os.Stat(path); ranBefore && (errors.Is(err, os.ErrNotExist) || err == nil && fi.Size() == 0) {
		what := "is gone"
		if err == nil {
			what = "is empty (0 bytes)"
		}
		return nil, fmt.Errorf("%w: %s %s, but a daemon ran with this state directory before; "+
			"to start with an empty queue, run: trailboss daemon --reset", ErrStateLost, path, what)
	}
	st, err := Open(ctx, path)
	if errors.Is(err, ErrCorrupt) {
		return nil, fmt.Errorf("%w\nto move it aside and start with an empty queue, run: trailboss daemon --reset", err)
	}
	return st, err
}

// FilesAbsent returns the database files (state.db, -wal, -shm) of dir that do not exist
// yet: opening the store creates them.
func FilesAbsent(dir string) []string {
	var absent []string
	for _, suffix := range []string{"", "-wal", "-shm"} {
		path := filepath.Join(dir, statedir.DBFile+suffix)
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			absent = append(absent, path)
		}
	}
	return absent
}

// moveAside renames path (and its WAL files) to path.reset-<time>, keeping it for a post-mortem.
func moveAside(path string) error {
	stamp := time.Now().UTC().Format("20060102T150405")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Rename(path+suffix, path+".reset-"+stamp+suffix)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("reset: %w", err)
		}
	}
	return nil
}
