// Package transcript reads an append-only JSONL file safely: only the bytes appended since
// the last read, or a bounded tail, and never from anything but a regular file. It knows
// nothing about what the lines mean.
//
// Offsets returned here are always 0, just after a newline, or (while an over-long line is
// being skipped) inside that line; pass them back unchanged. A Position also says which
// content its offset counts in, so that a file replaced or rewritten in place (Claude Code
// 2.1.300 and later trim and rewrite their transcripts) is told from one appended to.
package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
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
	// ErrRewritten says the file is no longer the content the offset was read in: another
	// file now has its name, or the bytes before the offset changed. Read it from the start.
	ErrRewritten = errors.New("transcript rewritten")
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

// Position is how far a transcript has been read, and in which content. The zero Position
// is the start of a file never read.
type Position struct {
	Offset int64 // see the package documentation
	// FileID is the file (its inode) Offset counts in; 0 when not known.
	FileID uint64
	// Mark is a fingerprint of the markLen bytes before Offset (fewer near the start), which
	// a rewrite in place changes; 0 when not known.
	Mark uint64
}

// markLen is how many bytes before an offset its Mark covers: the end of the last line read,
// which carries that line's ids and time.
const markLen = 1 << 10

// fingerprint returns the Mark of the bytes before an offset, never 0.
func fingerprint(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	if sum := h.Sum64(); sum != 0 {
		return sum
	}
	return 1
}

// Appended is what ReadAppended read.
type Appended struct {
	Lines [][]byte // complete lines, without their newline
	Next  Position // where the next call goes on from
	// Ahead holds the bytes from Next.Offset on that were read but not returned: the start
	// of a last line the writer has written only in part so far (it is asynchronous), or
	// what the last chunk read held past maxBytes. Pass them to the next call, which reads
	// only what follows them: a line is read once, however many writes and calls it spans.
	Ahead []byte
}

// maxAhead bounds Appended.Ahead: a line being written, or one chunk read past maxBytes.
const maxAhead = MaxLine + chunk

// ReadAppended returns the complete lines in path from `from` up to the last newline, and
// where to go on from. ahead is the previous call's Appended.Ahead for the same Position
// (nil when not kept: those bytes are then read again). It stops once maxBytes have been
// consumed, with the line that crossed maxBytes (it has been read: it is not read again);
// what is left waits for the next call.
//
// A line longer than MaxLine is skipped; its bytes count against maxBytes, so skipping a
// huge line takes several calls, and the offset may then stop inside it: the next call,
// seeing that the byte before offset is not a newline, skips on to the next newline.
//
// If the file is now shorter than what was read (truncated or replaced), it returns an error
// wrapping ErrShrunk; if it is another file than from.FileID, or the bytes before the offset
// are not those from.Mark saw (or the end of ahead not where it was read), an error wrapping
// ErrRewritten: either way, read it again from the zero Position. A path that is not a
// regular file gives an error, never a hang.
func ReadAppended(path string, from Position, ahead []byte, maxBytes int64) (Appended, error) {
	if from.Offset < 0 || maxBytes <= 0 || len(ahead) > maxAhead {
		return Appended{}, fmt.Errorf("read %s: invalid offset %d, limit %d or %d bytes read ahead",
			path, from.Offset, maxBytes, len(ahead))
	}
	f, size, err := openChecked(path)
	if err != nil {
		return Appended{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Appended{}, fmt.Errorf("read %s: %w", path, err)
	}
	id, _ := infoOf(path, st)
	if from.FileID != 0 && id.Ino != from.FileID {
		return Appended{}, fmt.Errorf("read %s: %w: another file (inode %d, was %d)", path, ErrRewritten, id.Ino, from.FileID)
	}
	got, err := readAppended(countingReader{f}, size, from, ahead, maxBytes)
	if err != nil {
		return Appended{}, fmt.Errorf("read %s: %w", path, err)
	}
	got.Next.FileID = id.Ino
	return got, nil
}

func readAppended(r io.ReaderAt, size int64, from Position, ahead []byte, maxBytes int64) (Appended, error) {
	offset := from.Offset
	start := offset + int64(len(ahead)) // where reading the file goes on
	if size < start {
		return Appended{}, fmt.Errorf("%w to %d bytes from %d", ErrShrunk, size, start)
	}
	if size == start && !bytes.Contains(ahead, []byte{'\n'}) {
		return Appended{Next: from, Ahead: ahead}, nil // nothing new, nor a line ahead
	}
	skipping, err := checkUnchanged(r, from, ahead)
	if err != nil {
		return Appended{}, err
	}

	// Only the first size bytes are read: what is appended meanwhile waits for the next call.
	var (
		src  io.Reader = io.NewSectionReader(r, start, size-start)
		cur  []byte    // the line being read, when it spans buffer fills
		rest []byte    // bytes read but not consumed, for the next call

		lines [][]byte
		pos   = offset // just after the last byte consumed
		used  int64    // bytes consumed: returned lines, skipped lines, newlines
	)
	switch {
	case bytes.IndexByte(ahead, '\n') >= 0:
		src = io.MultiReader(bytes.NewReader(ahead), src) // lines read past maxBytes
	case len(ahead) > 0:
		cur = ahead // the start of a line: what follows is appended to it, not copied anew
	}
	br := bufio.NewReaderSize(src, int(min(chunk, max(size-start, 16))))
	for used < maxBytes {
		frag, err := br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return Appended{}, err
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
		if !complete {
			cur = append(cur, frag...) // a copy: frag is only valid until the next read
			if err == io.EOF {
				rest = cur // a partial last line: the next call goes on after it
				break
			}
			continue
		}
		// cur (a copy, or the start of the line this call was given) becomes the line; frag
		// is only valid until the next read, and is copied into it.
		lines = append(lines, append(cur, frag[:len(frag)-1]...))
		pos += int64(n)
		used += int64(n)
		cur = nil
	}
	if rest == nil && br.Buffered() > 0 {
		// Stopped at maxBytes with more of the chunk read: kept, not read again.
		b, _ := br.Peek(br.Buffered())
		rest = bytes.Clone(b)
	}
	next := Position{Offset: pos, Mark: from.Mark}
	if pos != offset && pos > 0 {
		if next.Mark, err = markAt(r, pos); err != nil {
			return Appended{}, err
		}
	}
	return Appended{Lines: lines, Next: next, Ahead: rest}, nil
}

// markAt is the fingerprint of the bytes before pos: a Position's Mark.
func markAt(r io.ReaderAt, pos int64) (uint64, error) {
	end := make([]byte, min(pos, markLen))
	if _, err := r.ReadAt(end, pos-int64(len(end))); err != nil {
		return 0, err
	}
	return fingerprint(end), nil
}

// checkUnchanged checks that what was read up to from, and the bytes read ahead after it,
// are still in the file: ErrRewritten otherwise. It also says whether from is inside a line
// (an over-long one being skipped).
func checkUnchanged(r io.ReaderAt, from Position, ahead []byte) (skipping bool, err error) {
	offset := from.Offset
	if offset > 0 {
		// The bytes before the offset: still those read (its Mark)?
		before := make([]byte, min(offset, markLen))
		if _, err := r.ReadAt(before, offset-int64(len(before))); err != nil {
			return false, err
		}
		if from.Mark != 0 && fingerprint(before) != from.Mark {
			return false, fmt.Errorf("%w: the bytes before offset %d changed", ErrRewritten, offset)
		}
		skipping = before[len(before)-1] != '\n'
	}
	if len(ahead) > 0 {
		// The bytes read ahead are still there: their end is where it was.
		end := ahead[max(0, len(ahead)-64):]
		now := make([]byte, len(end))
		if _, err := r.ReadAt(now, offset+int64(len(ahead))-int64(len(end))); err != nil {
			return false, err
		}
		if !bytes.Equal(now, end) {
			return false, fmt.Errorf("%w: the bytes after offset %d changed", ErrRewritten, offset)
		}
	}
	return skipping, nil
}

// ReadTail scans backward from the end of path in chunks and calls keep(line) for each
// complete line from the last to the first, stopping when keep returns true or when maxBytes
// have been read from the end. A line is passed only when its start was found within
// maxBytes, and never when it is longer than MaxLine; keep must not retain line after it
// returns. A final line without a newline is ignored (it is still being written).
//
// ReadTail returns the Position to continue from with ReadAppended: just after the last
// newline. When none is found within maxBytes, it is where the scan stopped, inside a line
// longer than maxBytes, which ReadAppended then skips; maxBytes should exceed MaxLine so
// that this only happens to lines that would be skipped anyway.
func ReadTail(path string, maxBytes int64, keep func(line []byte) bool) (Position, error) {
	if maxBytes <= 0 {
		return Position{}, fmt.Errorf("read tail of %s: invalid limit %d", path, maxBytes)
	}
	f, size, err := openChecked(path)
	if err != nil {
		return Position{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Position{}, fmt.Errorf("read tail of %s: %w", path, err)
	}
	id, _ := infoOf(path, st)
	r := countingReader{f}
	end, err := readTail(r, size, maxBytes, keep)
	if err == nil && end > 0 {
		// Its Mark: bytes the scan read last of all (still in the page cache).
		b := make([]byte, min(end, markLen))
		if _, err = r.ReadAt(b, end-int64(len(b))); err == nil {
			return Position{Offset: end, FileID: id.Ino, Mark: fingerprint(b)}, nil
		}
	}
	if err != nil {
		return Position{}, fmt.Errorf("read tail of %s: %w", path, err)
	}
	return Position{Offset: end, FileID: id.Ino}, nil
}

func readTail(r io.ReaderAt, size, maxBytes int64, keep func(line []byte) bool) (int64, error) {
	buf := make([]byte, min(chunk, size, maxBytes))
	end := int64(-1) // just after the last newline, once found
	pos := size      // bytes from pos to size have been read
	var (
		// carry is the end of a line that began in an earlier chunk: its pieces, last
		// first, copied (buf is overwritten by the next read) and joined once the line's
		// start is found, so that a line spanning many chunks is copied once, not once per
		// chunk.
		carry    [][]byte
		carried  int  // bytes in carry
		overlong bool // the line being carried is longer than MaxLine; carry is dropped
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
					if carried+i > MaxLine {
						carry, carried, overlong = nil, 0, true
					} else if i > 0 {
						carry, carried = append(carry, bytes.Clone(b[:i])), carried+i
					}
				}
				break
			}
			if end < 0 {
				end = pos + int64(j) + 1 // what follows is the partial last line
			} else if !overlong {
				line := b[j+1 : i]
				if carry != nil {
					line = joinCarried(line, carry, carried)
				}
				if len(line) <= MaxLine && keep(line) {
					return end, nil
				}
			}
			carry, carried, overlong = nil, 0, false
			i = j
		}
	}
	if pos == 0 {
		if end < 0 {
			return 0, nil // no newline at all: one partial line
		}
		if !overlong && carried <= MaxLine {
			keep(joinCarried(nil, carry, carried)) // the file's first line, which no newline precedes
		}
		return end, nil
	}
	if end < 0 {
		return pos, nil
	}
	return end, nil
}

// joinCarried returns head followed by the pieces of carry (last first), n bytes in all.
func joinCarried(head []byte, carry [][]byte, n int) []byte {
	line := make([]byte, 0, len(head)+n)
	line = append(line, head...)
	for _, piece := range slices.Backward(carry) {
		line = append(line, piece...)
	}
	return line
}
