// Package logfile is the daemon's log in detached mode: a file that is rotated when it
// reaches its size (daemon.log → daemon.log.1 → … daemon.log.N, the oldest removed), so
// that a daemon that runs for months keeps a few recent megabytes, not all it ever said.
package logfile

import (
	"fmt"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// Defaults for the daemon's log.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 3
)

// File is a size-bounded log file. Its Write is safe for concurrent use.
type File struct {
	path     string
	maxBytes int64
	keep     int

	mu     sync.Mutex
	f      *os.File
	size   int64
	stderr bool // the process's standard error follows the current file
}

// Open opens path for appending (0600), to be rotated once it passes maxBytes with keep old
// files kept.
func Open(path string, maxBytes int64, keep int) (*File, error) {
	l := &File{path: path, maxBytes: maxBytes, keep: keep}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *File) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log: %w", err)
	}
	l.f, l.size = f, fi.Size()
	if l.stderr {
		return l.dupStderr()
	}
	return nil
}

// CaptureStderr points the process's standard error at the current file, and at each new
// one after a rotation, so that what the Go runtime prints (a panic) lands in the log too.
func (l *File) CaptureStderr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stderr = true
	return l.dupStderr()
}

func (l *File) dupStderr() error {
	if err := unix.Dup2(int(l.f.Fd()), 2); err != nil {
		return fmt.Errorf("log standard error: %w", err)
	}
	return nil
}

// Write appends p, rotating first when p would take the file past its size.
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size > 0 && l.size+int64(len(p)) > l.maxBytes {
		if err := l.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// rotate shifts path.N-1 → path.N … path → path.1, dropping the oldest, and opens a new
// path.
func (l *File) rotate() error {
	l.f.Close()
	for i := l.keep - 1; i >= 1; i-- {
		_ = os.Rename(l.path+"."+strconv.Itoa(i), l.path+"."+strconv.Itoa(i+1))
	}
	if l.keep > 0 {
		_ = os.Rename(l.path, l.path+".1")
	} else {
		_ = os.Remove(l.path)
	}
	return l.open()
}

// Close closes the current file.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}
