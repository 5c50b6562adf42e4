package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t testing.TB, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

// appendedAt is ReadAppended from offset, knowing nothing else of what was read before (no
// file id, mark or partial line), as the package's callers did before those existed.
func appendedAt(path string, offset, maxBytes int64) ([][]byte, int64, error) {
	got, err := ReadAppended(path, Position{Offset: offset}, nil, maxBytes)
	if err != nil {
		return nil, offset, err
	}
	return got.Lines, got.Next.Offset, nil
}

func strs(lines [][]byte) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = string(l)
	}
	return out
}

// within fails the test if f has not returned after a generous deadline: a hang is the bug.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("did not return: it hangs")
	}
}

func TestReadAppendedAcrossAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, "")
	steps := []struct {
		appended string
		want     []string
		offset   int64
	}{
		{"", nil, 0},
		{"one\ntwo\n", []string{"one", "two"}, 8},
		{"", nil, 8},
		{"three\n", []string{"three"}, 14},
		{"four", nil, 14}, // a partial line waits
		{"", nil, 14},     // still partial
		{" and more\nfive\nsix", []string{"four and more", "five"}, 33}, // completed by a later append
		{"\n\n", []string{"six", ""}, 38},                               // an empty line is a line
	}
	var offset int64
	for i, s := range steps {
		appendFile(t, path, s.appended)
		lines, next, err := appendedAt(path, offset, 1<<20)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !slices.Equal(strs(lines), s.want) || next != s.offset {
			t.Fatalf("step %d: got %q, offset %d; want %q, offset %d", i, strs(lines), next, s.want, s.offset)
		}
		offset = next
	}
}

func TestReadAppendedShrunk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, "one\ntwo\n")
	_, offset, err := appendedAt(path, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "x\n") // truncated and rewritten, shorter
	lines, next, err := appendedAt(path, offset, 1<<20)
	if !errors.Is(err, ErrShrunk) || lines != nil || next != offset {
		t.Errorf("after truncation: %q, %d, %v; want nothing, %d, ErrShrunk", strs(lines), next, err, offset)
	}
}

// Whatever maxBytes is, repeated calls return every line once, in order, and each call
// stops at the line that crosses maxBytes: every line it returns but the last began before
// maxBytes were consumed. That line is returned, not left to be read again.
func TestReadAppendedMaxBytes(t *testing.T) {
	content := "a\nbb\nccc\ndddd\n\neeeee\nf"
	want := []string{"a", "bb", "ccc", "dddd", "", "eeeee"}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, content)
	for maxBytes := int64(1); maxBytes <= int64(len(content))+1; maxBytes++ {
		var got []string
		var offset int64
		for calls := 0; ; calls++ {
			if calls > len(content) {
				t.Fatalf("maxBytes %d: no progress at offset %d", maxBytes, offset)
			}
			lines, next, err := appendedAt(path, offset, maxBytes)
			if err != nil {
				t.Fatal(err)
			}
			n := int64(0)
			for _, l := range lines {
				n += int64(len(l) + 1)
			}
			if len(lines) > 0 && n-int64(len(lines[len(lines)-1])+1) >= maxBytes {
				t.Errorf("maxBytes %d: one call went on past it: %d bytes of lines %q", maxBytes, n, strs(lines))
			}
			got = append(got, strs(lines)...)
			if next == offset {
				break
			}
			offset = next
		}
		if !slices.Equal(got, want) || offset != int64(len(content)-1) {
			t.Errorf("maxBytes %d: got %q up to %d; want %q up to %d", maxBytes, got, offset, want, len(content)-1)
		}
	}
	for maxBytes, want := range map[int64][]string{2: {"a"}, 3: {"a", "bb"}, 5: {"a", "bb"}, 6: {"a", "bb", "ccc"}} {
		lines, next, err := appendedAt(path, 0, maxBytes)
		if !slices.Equal(strs(lines), want) || err != nil {
			t.Errorf("ReadAppended(0, %d) = %q, %d, %v; want %q", maxBytes, strs(lines), next, err, want)
		}
	}
}

func TestReadAppendedLongLines(t *testing.T) {
	exact := strings.Repeat("x", MaxLine)
	over := strings.Repeat("y", MaxLine+1)
	huge := strings.Repeat("z", 3*MaxLine+12345)
	tests := []struct {
		name     string
		content  string
		maxBytes int64
		want     []string
	}{
		{"a line of MaxLine bytes is returned", "a\n" + exact + "\nb\n", 8 << 20, []string{"a", exact, "b"}},
		{"a longer line is skipped", "a\n" + over + "\nb\n", 8 << 20, []string{"a", "b"}},
		{"a huge line is skipped over several calls", "a\n" + huge + "\nb\n", 100 << 10, []string{"a", "b"}},
		{"an over-long line first", over + "\nb\n", 8 << 20, []string{"b"}},
		{"an over-long line last", "a\n" + over + "\n", 8 << 20, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			writeFile(t, path, tt.content)
			got, offset := readAll(t, path, 0, tt.maxBytes)
			if !slices.Equal(got, tt.want) || offset != int64(len(tt.content)) {
				t.Errorf("got %d lines %.20q up to %d; want %d lines up to %d", len(got), got, offset, len(tt.want), len(tt.content))
			}
		})
	}
}

// readAll calls ReadAppended until it makes no progress.
func readAll(t *testing.T, path string, offset, maxBytes int64) ([]string, int64) {
	t.Helper()
	var got []string
	for calls := 0; calls < 1000; calls++ {
		lines, next, err := appendedAt(path, offset, maxBytes)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strs(lines)...)
		if next == offset {
			return got, offset
		}
		offset = next
	}
	t.Fatal("no end after 1000 calls")
	return nil, 0
}

// An over-long line still being written is consumed as it grows, not re-read on every call,
// and what follows it once it ends is read normally.
func TestReadAppendedOverlongPartialLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, "a\n"+strings.Repeat("z", MaxLine+10))
	got, offset := readAll(t, path, 0, 8<<20)
	if !slices.Equal(got, []string{"a"}) || offset != int64(2+MaxLine+10) {
		t.Fatalf("got %q up to %d; want [a] up to %d (inside the over-long line)", got, offset, 2+MaxLine+10)
	}
	appendFile(t, path, "zzz\nb\nc")
	lines, next, err := appendedAt(path, offset, 8<<20)
	if err != nil || !slices.Equal(strs(lines), []string{"b"}) || next != offset+6 {
		t.Errorf("after the line ends: %q, %d, %v; want [b], %d", strs(lines), next, err, offset+6)
	}
}

func TestReadAppendedBadArguments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, "a\n")
	for _, args := range [][2]int64{{-1, 10}, {0, 0}, {0, -5}} {
		if _, _, err := appendedAt(path, args[0], args[1]); err == nil {
			t.Errorf("ReadAppended(offset %d, maxBytes %d): no error", args[0], args[1])
		}
	}
	if _, err := ReadTail(path, 0, func([]byte) bool { return false }); err == nil {
		t.Error("ReadTail(maxBytes 0): no error")
	}
}

func TestStat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	writeFile(t, path, "one\n")
	info, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if info.Size != 4 || info.Ino == 0 || !info.ModTime.Equal(fi.ModTime()) {
		t.Errorf("Stat = %+v; want size 4, an inode, mod time %v", info, fi.ModTime())
	}

	appendFile(t, path, "two\n")
	appended, err := Stat(path)
	if err != nil || appended.Dev != info.Dev || appended.Ino != info.Ino || appended.Size != 8 {
		t.Errorf("after append: %+v, %v; want the same file, size 8", appended, err)
	}

	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	linked, err := Stat(link)
	if err != nil || linked.Ino != info.Ino {
		t.Errorf("through a symlink: %+v, %v; want the target", linked, err)
	}

	other := filepath.Join(dir, "new.jsonl")
	writeFile(t, other, "one\ntwo\nthree\n")
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	replaced, err := Stat(path)
	if err != nil || replaced.Ino == info.Ino {
		t.Errorf("after replacement: %+v, %v; want another inode than %d", replaced, err, info.Ino)
	}
}

// Only regular files are transcripts: everything else is an error, at once.
func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(filepath.Join(dir, "loop2"), loop); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(loop, filepath.Join(dir, "loop2")); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fifoLink := filepath.Join(dir, "fifo-link")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		path string
		want error // wrapped by the error, when not nil
	}{
		{"missing", filepath.Join(dir, "missing.jsonl"), fs.ErrNotExist},
		{"directory", dir, ErrNotRegular},
		{"FIFO", fifo, ErrNotRegular},
		{"symlink to a FIFO", fifoLink, ErrNotRegular},
		{"device", "/dev/zero", ErrNotRegular},
		{"socket", sock, ErrNotRegular},
		{"symlink loop", loop, nil},
		{"empty path", "", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(op string, err error) {
				t.Helper()
				if err == nil {
					t.Errorf("%s: no error", op)
				} else if tt.want != nil && !errors.Is(err, tt.want) {
					t.Errorf("%s: %v; want it to wrap %v", op, err, tt.want)
				}
			}
			within(t, func() {
				_, err := Stat(tt.path)
				check("Stat", err)
				lines, _, err := appendedAt(tt.path, 0, 1<<20)
				check("ReadAppended", err)
				if lines != nil {
					t.Errorf("ReadAppended returned lines %q", strs(lines))
				}
				_, err = ReadTail(tt.path, 1<<20, func([]byte) bool { t.Error("keep called"); return true })
				check("ReadTail", err)
			})
		})
	}
}

// The check after opening is what protects against a FIFO or device swapped in after Stat:
// the open must not block on a FIFO with no writer, and must refuse what it opened.
func TestOpenRechecksWhatItOpened(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		within(t, func() {
			f, _, err := open(path)
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("open(%s) = %v; want ErrNotRegular", path, err)
			}
			if f != nil {
				t.Errorf("open(%s) returned a file", path)
			}
		})
	}
}

// tail calls ReadTail and returns the lines it passed to keep, last first. keep stops at
// the line stopAt, or never when stopAt is "".
func tail(t *testing.T, path string, maxBytes int64, stopAt string) ([]string, int64) {
	t.Helper()
	var seen []string
	pos, err := ReadTail(path, maxBytes, func(line []byte) bool {
		seen = append(seen, string(line))
		return stopAt != "" && string(line) == stopAt
	})
	if err != nil {
		t.Fatal(err)
	}
	return seen, pos.Offset
}

func TestReadTail(t *testing.T) {
	long := strings.Repeat("L", 150<<10) // spans several chunks
	over := strings.Repeat("O", MaxLine+1)
	tests := []struct {
		name     string
		content  string
		maxBytes int64
		stopAt   string
		want     []string // lines passed to keep, last first
		offset   int64
	}{
		{"empty file", "", 1 << 20, "", nil, 0},
		{"every line, last first", "a\nbb\nccc\n", 1 << 20, "", []string{"ccc", "bb", "a"}, 9},
		{"stops when keep says so", "a\nbb\nccc\n", 1 << 20, "bb", []string{"ccc", "bb"}, 9},
		{"a partial last line is ignored", "a\nbb\nccc", 1 << 20, "", []string{"bb", "a"}, 5},
		{"only a partial line", "no newline yet", 1 << 20, "", nil, 0},
		{"empty lines", "\n\na\n", 1 << 20, "", []string{"a", "", ""}, 4},
		{"lines across chunks", "a\n" + long + "\n" + long + "b\nc\n", 4 << 20, "",
			[]string{"c", long + "b", long, "a"}, int64(2 + 2*len(long) + 5)},
		{"maxBytes stops before the first line", "first\nsecond\nthird\n", 14, "", []string{"third", "second"}, 19},
		{"maxBytes cuts a line: it is not passed", "first\nsecond\nthird\n", 10, "", []string{"third"}, 19},
		{"maxBytes inside the partial line", "a\nbb\n" + long, 1 << 10, "", nil, int64(5 + len(long) - 1<<10)},
		{"an over-long line is not passed", "a\n" + over + "\nb\n", 4 << 20, "", []string{"b", "a"}, int64(2 + len(over) + 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			writeFile(t, path, tt.content)
			got, offset := tail(t, path, tt.maxBytes, tt.stopAt)
			if !slices.Equal(got, tt.want) || offset != tt.offset {
				t.Errorf("got %d lines %.30q, offset %d; want %d lines %.30q, offset %d",
					len(got), got, offset, len(tt.want), tt.want, tt.offset)
			}
		})
	}
}

// Lines of every length around the chunk size come back exactly as a forward read sees them.
func TestReadTailMatchesForwardRead(t *testing.T) {
	var b strings.Builder
	var want []string
	for i, n := range []int{0, 1, chunk - 2, chunk - 1, chunk, chunk + 1, 3, 2*chunk + 7, 10, chunk/2 + 1} {
		line := fmt.Sprintf("%d:", i) + strings.Repeat(string(rune('a'+i)), n)
		want = append(want, line)
		b.WriteString(line + "\n")
	}
	content := b.String()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, content)
	got, offset := tail(t, path, int64(len(content)), "")
	slices.Reverse(got)
	if !slices.Equal(got, want) || offset != int64(len(content)) {
		t.Errorf("ReadTail lines differ from the file's lines (offset %d, want %d)", offset, len(content))
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// A 5 GB sparse file whose last line was appended after a hole: ReadTail finds that line,
// reads at most maxBytes, and leaves an offset from which only later appends are read.
func TestReadTailHugeSparseFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(5 << 30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	const last = `{"type":"assistant","message":{"content":"the end"}}`
	appendFile(t, path, "\n"+last+"\n")
	size := int64(5<<30) + int64(len(last)+2)

	within(t, func() {
		got, offset := tail(t, path, 1<<20, last)
		if !slices.Equal(got, []string{last}) || offset != size {
			t.Errorf("ReadTail = %.40q, %d; want the last line, %d", got, offset, size)
		}
	})

	// Reading through a counter: nothing beyond maxBytes, even when keep never says stop
	// and the rest of the file is one 5 GB line of zeros.
	for _, stop := range []string{last, ""} {
		counter := &countingReaderAt{r: f}
		var seen int
		offset, err := readTail(counter, size, 1<<20, func(line []byte) bool { seen++; return string(line) == stop })
		if err != nil || offset != size || seen != 1 || counter.n > 1<<20 {
			t.Errorf("stop at %q: offset %d, %d lines, read %d bytes, %v; want %d, 1 line, at most 1 MiB",
				stop, offset, seen, counter.n, err, size)
		}
	}

	lines, next, err := appendedAt(path, size, 1<<20)
	if err != nil || lines != nil || next != size {
		t.Errorf("ReadAppended at the end = %q, %d, %v; want nothing", strs(lines), next, err)
	}
	appendFile(t, path, "more\n")
	lines, next, err = appendedAt(path, size, 1<<20)
	if err != nil || !slices.Equal(strs(lines), []string{"more"}) || next != size+5 {
		t.Errorf("ReadAppended after an append = %q, %d, %v; want [more], %d", strs(lines), next, err, size+5)
	}
}

// ReadTail's cost depends on how far back the wanted line is, not on the file's size:
// ns/op should be about the same for both sizes.
func BenchmarkReadTail(b *testing.B) {
	for _, size := range []int64{1 << 20, 256 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "s.jsonl")
			var tailLines strings.Builder
			for i := range 200 {
				fmt.Fprintf(&tailLines, `{"n":%d,"text":"%s"}`+"\n", i, strings.Repeat("x", 200))
			}
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := f.Truncate(size - int64(tailLines.Len()) - 1); err != nil {
				b.Fatal(err)
			}
			f.Close()
			appendFile(b, path, "\n"+tailLines.String())
			want := []byte(`{"n":100,`)
			b.ResetTimer()
			for b.Loop() {
				found := false
				_, err := ReadTail(path, 1<<20, func(line []byte) bool {
					found = bytes.HasPrefix(line, want)
					return found
				})
				if err != nil || !found {
					b.Fatalf("found %v, %v", found, err)
				}
			}
		})
	}
}
