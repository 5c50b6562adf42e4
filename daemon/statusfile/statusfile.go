// Package statusfile keeps the queue's status line in a file of the state directory, for a
// shell prompt or a bar to read with no process at all (bash's read builtin, zsh's
// $(<file)): tmux has #{@trailboss_status}; everything else has this file.
//
// The file is two lines: the status line ("⚠ 2 stuck", or empty when nothing waits), then
// "pid N", the daemon that wrote it. The daemon replaces it atomically (a rename: a reader
// never sees half a line) and removes it when it stops. One left by a daemon that died
// names a pid that no longer runs, which is how a prompt tells a stale line from a live one.
package statusfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Name is the file's name in the state directory.
const Name = "status"

// Write replaces dir's status file with line, written by the daemon of pid.
func Write(dir, line string, pid int) error {
	tmp, err := os.CreateTemp(dir, ".status-*")
	if err != nil {
		return fmt.Errorf("write status file: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; left only when something failed
	if _, err := fmt.Fprintf(tmp, "%s\npid %d\n", line, pid); err != nil {
		tmp.Close()
		return fmt.Errorf("write status file: %w", err)
	}
	// CreateTemp made it 0600; a bar run by the same user reads it.
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write status file: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, Name)); err != nil {
		return fmt.Errorf("write status file: %w", err)
	}
	return nil
}

// Remove removes dir's status file if the daemon of pid wrote it: a daemon that stops
// takes its line away, and never a newer daemon's.
func Remove(dir string, pid int) error {
	_, owner, err := Read(dir)
	if err != nil || owner != pid {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, Name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove status file: %w", err)
	}
	return nil
}

// Read returns the status line in dir and the pid of the daemon that wrote it.
func Read(dir string) (line string, pid int, err error) {
	f, err := os.Open(filepath.Join(dir, Name))
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return "", 0, fmt.Errorf("status file %s is empty", f.Name())
	}
	line = sc.Text()
	if !sc.Scan() {
		return "", 0, fmt.Errorf("status file %s names no daemon", f.Name())
	}
	pid, err = strconv.Atoi(strings.TrimPrefix(sc.Text(), "pid "))
	if err != nil {
		return "", 0, fmt.Errorf("status file %s: bad pid line %q", f.Name(), sc.Text())
	}
	return line, pid, nil
}
