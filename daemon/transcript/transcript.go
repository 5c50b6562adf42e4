// Package transcript reads an append-only JSONL file safely: only the bytes appended since
// the last read, or a bounded tail, and never from anything but a regular file. It knows
// nothing about what the lines mean.
//
// Offsets returned here are always 0, just after a newline, or (while an over-long line is
// being skipped) inside that line; pass them back unchanged.
package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits
const MaxLine = 1 << 20 // a longer line is skipped (its bytes are consumed, it is not returned)

// chunk is the size of each read.
const chunk = 64 << 10

var (
	// ErrShrunk says the file is now shorter than the offset read up to: it was truncated or
	// replaced, and the offset means nothing in it.
	ErrShrunk = errors.New("transcript shrank")
	// ErrNotRegular says the path names a directory, FIFO, device, socket or other
	// non-regular file: only regular files are transcripts.
	ErrNotRegular = errors.New("not a regular file")
)

// bytesRead counts every byte read from a transcript file by this package since the
// process started; the benchmarks check that a sweep over unchanged files reads none.
var bytesRead atomic.Int64

// BytesRead returns how many bytes of transcript files this process has read.
func BytesRead() int64 { return bytesRead.Load() }

// countingReader counts the bytes read through it in bytesRead.
type countingReader struct{ r io.ReaderAt }

func (c countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	bytesRead.Add(int64(n))
	return n, err
}

// Info is the identity and size of a transcript file. Dev and Ino tell a replaced file
// from an appended one.
type Info struct {
	Size     int64
	Dev, Ino uint64
	ModTime  time.Time
}

// Stat returns the identity and size of a regular file at path. It returns an error (not a
// hang) for a missing file (wrapping fs.ErrNotExist), a symlink loop, and, wrapping
// ErrNotRegular, a directory, a FIFO, a device or a socket. Symlinks are followed.
func Stat(path string) (Info, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Info{}, err
	}
	return infoOf(path, fi)
}

func infoOf(path string, fi os.FileInfo) (Info, error) {
	if !fi.Mode().IsRegular() {
		return Info{}, fmt.Errorf("%s: %w (%v)", path, ErrNotRegular, fi.Mode().Type())
	}
	info := Info{Size: fi.Size(), ModTime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		info.Dev, info.Ino = uint64(st.Dev), uint64(st.Ino)
	}
	return info, nil
}

// open opens a regular file for reading and returns it with its size. The open is
// non-blocking, so that a FIFO swapped in after Stat cannot hang it, and the opened file is
// checked again, since that is the file that will be read.
func open(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil {
		_, err = infoOf(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// openChecked is open after a Stat, so that a path that is not a regular file is never
// opened at all (opening some devices has effects).
func openChecked(path string) (*os.File, int64, error) {
	if _, err := Stat(path); err != nil {
		return nil, 0, err
	}
	return open(path)
}

// ReadAppended returns the complete lines (without the newline) in path between offset and
// the last newline, at most maxBytes of them (the rest is left for the next call; a first
// line longer than maxBytes is returned alone), and the offset just after the last complete
// line it returned or skipped. A partial last line (no newline yet: the writer is
// asynchronous) is not returned and the offset stays before it.
//
// A line longer than MaxLine is skipped; its bytes count against maxBytes, so skipping a
// huge line takes several calls, and the offset may then stop inside it: the next call,
// seeing that the byte before offset is not a newline, skips on to the next newline.
//
// If the file is now shorter than offset (truncated or replaced), it returns an error
// wrapping ErrShrunk. A path that is not a regular file gives an error, never a hang.
func ReadAppended(path string, offset, maxBytes int64) (lines [][]byte, newOffset int64, err error) {
	if offset < 0 || maxBytes <= 0 {
		return nil, offset, fmt.Errorf("read %s: invalid offset %d or limit %d", path, offset, maxBytes)
	}
	f, size, err := openChecked(path)
	if err != nil {
		return nil, offset, err
	}
	defer f.Close()
	lines, newOffset, err = readAppended(countingReader{f}, size, offset, maxBytes)
	if err != nil {
		return nil, offset, fmt.Errorf("read %s: %w", path, err)
	}
	return lines, newOffset, nil
}

func readAppended(r io.ReaderAt, size, offset, maxBytes int64) ([][]byte, int64, error) {
	if size < offset {
		return nil, offset, fmt.Errorf("%w to %d bytes from %d", ErrShrunk, size, offset)
	}
	if size == offset {
		return nil, offset, nil
	}
	skipping := false
	if offset > 0 {
		var before [1]byte
		if _, err := r.ReadAt(before[:], offset-1); err != nil {
			return nil, offset, err
		}
		skipping = before[0] != '\n'
	}

	// Only the first size bytes are read: what is appended meanwhile waits for the next call.
	br := bufio.NewReaderSize(io.NewSectionReader(r, offset, size-offset), int(min(chunk, size-offset)))
	var (
		lines [][]byte
		pos   = offset // just after the last byte consumed
		used  int64    // bytes consumed: returned lines, skipped lines, newlines
		cur   []byte   // the line being read, when it spans buffer fills
	)
	for used < maxBytes {
		frag, err := br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return nil, offset, err
		}
		complete := err == nil
		n := len(cur) + len(frag) // bytes of this line read so far, its newline included
		length := n
		if complete {
			length--
		}
		if skipping || length > MaxLine {
			// Too long to return: consume what is read, and the rest of the line after it.
			pos += int64(n)
			used += int64(n)
			cur, skipping = nil, !complete
			if err == io.EOF {
				break
			}
			continue
		}
		switch {
		case complete:
			if len(lines) > 0 && used+int64(n) > maxBytes {
				return lines, pos, nil
			}
			line := make([]byte, 0, length)
			line = append(append(line, cur...), frag[:len(frag)-1]...)
			lines = append(lines, line)
			pos += int64(n)
			used += int64(n)
			cur = nil
		case err == bufio.ErrBufferFull:
			cur = append(cur, frag...)
		default: // io.EOF: a partial last line, left for the next call
			return lines, pos, nil
		}
	}
	return lines, pos, nil
}

// ReadTail scans backward from the end of path in chunks and calls keep(line) for each
// complete line from the last to the first, stopping when keep returns true or when maxBytes
// have been read from the end. A line is passed only when its start was found within
// maxBytes, and never when it is longer than MaxLine; keep must not retain line after it
// returns. A final line without a newline is ignored (it is still being written).
//
// ReadTail returns the offset to continue from with ReadAppended: just after the last
// newline. When none is found within maxBytes, it is where the scan stopped, inside a line
// longer than maxBytes, which ReadAppended then skips; maxBytes should exceed MaxLine so
// that this only happens to lines that would be skipped anyway.
func ReadTail(path string, maxBytes int64, keep func(line []byte) bool) (size int64, err error) {
	if maxBytes <= 0 {
		return 0, fmt.Errorf("read tail of %s: invalid limit %d", path, maxBytes)
	}
	f, size, err := openChecked(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	size, err = readTail(countingReader{f}, size, maxBytes, keep)
	if err != nil {
		return 0, fmt.Errorf("read tail of %s: %w", path, err)
	}
	return size, nil
}

func readTail(r io.ReaderAt, size, maxBytes int64, keep func(line []byte) bool) (int64, error) {
	buf := make([]byte, min(chunk, size, maxBytes))
	end := int64(-1) // just after the last newline, once found
	pos := size      // bytes from pos to size have been read
	var (
		carry    []byte // the end of a line that began in an earlier chunk
		overlong bool   // the line in carry is longer than MaxLine; carry is dropped
	)
	for pos > 0 && size-pos < maxBytes {
		n := min(int64(len(buf)), pos, maxBytes-(size-pos))
		b := buf[:n]
		if m, err := r.ReadAt(b, pos-n); m < len(b) {
			if err == nil || err == io.EOF {
				err = ErrShrunk
			}
			return 0, err
		}
		pos -= n
		for i := len(b); ; {
			j := bytes.LastIndexByte(b[:i], '\n')
			if j < 0 {
				// The line goes on in an earlier chunk.
				if end >= 0 && !overlong {
					if len(carry)+i > MaxLine {
						carry, overlong = nil, true
					} else {
						// A new slice: buf is overwritten by the next read.
						carry = append(append(make([]byte, 0, i+len(carry)), b[:i]...), carry...)
					}
				}
				break
			}
			if end < 0 {
				end = pos + int64(j) + 1 // what follows is the partial last line
			} else if !overlong {
				line := b[j+1 : i]
				if carry != nil {
					line = append(line[:len(line):len(line)], carry...)
				}
				if len(line) <= MaxLine && keep(line) {
					return end, nil
				}
			}
			carry, overlong = nil, false
			i = j
		}
	}
	if pos == 0 {
		if end < 0 {
			return 0, nil // no newline at all: one partial line
		}
		if !overlong && len(carry) <= MaxLine {
			keep(carry) // the file's first line, which no newline precedes
		}
		return end, nil
	}
	if end < 0 {
		return pos, nil
	}
	return end, nil
}
