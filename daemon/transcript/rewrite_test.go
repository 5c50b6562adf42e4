package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// rewriteInPlace rewrites path with content, keeping its inode (truncate, then write).
func rewriteInPlace(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

// replace gives path another file's content through a rename, as an atomic save does.
func replace(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	writeFile(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// A position remembers which content it counts in: appends go on from it; a file rewritten
// in place, replaced or cut short is reported, so that it is read again from its start,
// not from an offset that means nothing in it.
func TestReadAppendedRewritten(t *testing.T) {
	const old = `{"n":1,"uuid":"aaaa"}` + "\n" + `{"n":2,"uuid":"bbbb"}` + "\n"
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
		want   error    // nil: read on
		lines  []string // with want nil
	}{
		{"appended", func(t *testing.T, path string) { appendFile(t, path, `{"n":3}`+"\n") }, nil, []string{`{"n":3}`}},
		{"rewritten in place, longer", func(t *testing.T, path string) {
			// Trimmed and rewritten: the old offset falls inside the new last line.
			rewriteInPlace(t, path, `{"n":1}`+"\n"+`{"n":2,"trimmed":true}`+"\n"+`{"n":3,"text":"a line that the old offset cuts"}`+"\n")
		}, ErrRewritten, nil},
		{"rewritten in place, the same lines, one more", func(t *testing.T, path string) {
			rewriteInPlace(t, path, old+`{"n":3}`+"\n")
		}, nil, []string{`{"n":3}`}},
		{"replaced by another file", func(t *testing.T, path string) { replace(t, path, old+`{"n":3}`+"\n") }, ErrRewritten, nil},
		{"cut short", func(t *testing.T, path string) { rewriteInPlace(t, path, `{"n":9}`+"\n") }, ErrShrunk, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			writeFile(t, path, old)
			got, err := ReadAppended(path, Position{}, nil, 1<<20)
			if err != nil || got.Next.Offset != int64(len(old)) || got.Next.FileID == 0 || got.Next.Mark == 0 {
				t.Fatalf("first read: %+v, %v", got.Next, err)
			}
			tt.change(t, path)
			again, err := ReadAppended(path, got.Next, nil, 1<<20)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("after the change: %q, %v; want %v", strs(again.Lines), err, tt.want)
				}
				fresh, err := ReadAppended(path, Position{}, nil, 1<<20)
				if err != nil || len(fresh.Lines) == 0 {
					t.Fatalf("from the start: %q, %v", strs(fresh.Lines), err)
				}
				return
			}
			if err != nil || !slices.Equal(strs(again.Lines), tt.lines) {
				t.Fatalf("after the change: %q, %v; want %q", strs(again.Lines), err, tt.lines)
			}
		})
	}
}

// A line written in pieces is read once: each call reads only what was appended since, the
// start of the line coming back as Ahead. Without it, every call reads the line again
// from its start.
func TestReadAppendedPartialLineReadOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, "first\n")
	line := `{"type":"api-request","params":"` + strings.Repeat("p", 300<<10) + `"}`
	const pieces = 10
	var pos Position
	var ahead []byte
	var got []string
	before := BytesRead()
	calls := 0
	for i := range pieces + 1 {
		switch {
		case i < pieces:
			appendFile(t, path, line[i*len(line)/pieces:(i+1)*len(line)/pieces])
		default:
			appendFile(t, path, "\nlast\n")
		}
		r, err := ReadAppended(path, pos, ahead, 8<<20)
		if err != nil {
			t.Fatalf("piece %d: %v", i, err)
		}
		calls++
		got = append(got, strs(r.Lines)...)
		pos, ahead = r.Next, r.Ahead
	}
	if len(got) != 3 || got[0] != "first" || got[1] != line || got[2] != "last" || ahead != nil {
		t.Fatalf("got %d lines (%.20q …), ahead %d bytes; want first, the long line, last", len(got), got, len(ahead))
	}
	size := int64(len("first\n") + len(line) + len("\nlast\n"))
	// Each call may look at markLen bytes before where it starts and where it stops, and
	// at the end of the bytes read ahead it was given.
	if read, most := BytesRead()-before, size+int64(calls)*(2*markLen+64); read > most {
		t.Errorf("reading a %d KB line written in %d pieces read %d bytes, want at most %d: the line was read again",
			len(line)>>10, pieces, read, most)
	}

	// Rewritten while its last line was partial: the partial line is not glued to what
	// the file now holds.
	appendFile(t, path, `{"type":"api-request","params":"ppp`)
	r, err := ReadAppended(path, pos, nil, 8<<20)
	if err != nil || len(r.Ahead) == 0 {
		t.Fatalf("a partial line: %+v, %v", r, err)
	}
	rewriteInPlace(t, path, "first\n"+line+"\nlast\n"+`{"type":"user","text":"xxxxxxxxxxxxxxxxxxxxxxx"}`+"\n")
	if _, err := ReadAppended(path, r.Next, r.Ahead, 8<<20); !errors.Is(err, ErrRewritten) {
		t.Errorf("after a rewrite under a partial line: %v; want ErrRewritten", err)
	}
}

// The line that crosses maxBytes is returned with the others, and what the last read held
// past it comes back as Ahead: a transcript of long lines read in several calls is read
// once.
func TestReadAppendedMaxBytesReadsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var content strings.Builder
	for i := range 6 {
		content.WriteString(`{"n":` + string(rune('0'+i)) + `,"p":"` + strings.Repeat("q", 200<<10) + "\"}\n")
	}
	writeFile(t, path, content.String())
	before := BytesRead()
	var pos Position
	var ahead []byte
	var n, calls int
	for calls = 1; calls < 100; calls++ {
		r, err := ReadAppended(path, pos, ahead, 256<<10)
		if err != nil {
			t.Fatal(err)
		}
		n += len(r.Lines)
		if r.Next == pos && len(r.Lines) == 0 {
			break
		}
		pos, ahead = r.Next, r.Ahead
	}
	if n != 6 || pos.Offset != int64(content.Len()) {
		t.Fatalf("%d lines up to %d; want 6 up to %d", n, pos.Offset, content.Len())
	}
	if read, most := BytesRead()-before, int64(content.Len()+calls*(2*markLen+64)); read > most {
		t.Errorf("reading %d bytes in %d calls read %d, want at most %d: lines were read twice", content.Len(), calls, read, most)
	}
}

// ReadTail's position carries on with ReadAppended: appends are read, a rewrite is told.
func TestReadTailPosition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, `{"n":1,"uuid":"aaaa"}`+"\n"+`{"n":2,"uuid":"bbbb"}`+"\n")
	pos, err := ReadTail(path, 1<<20, func([]byte) bool { return true })
	if err != nil || pos.Offset != 44 || pos.FileID == 0 || pos.Mark == 0 {
		t.Fatalf("ReadTail: %+v, %v", pos, err)
	}
	appendFile(t, path, "three\n")
	r, err := ReadAppended(path, pos, nil, 1<<20)
	if err != nil || !slices.Equal(strs(r.Lines), []string{"three"}) {
		t.Fatalf("after an append: %q, %v", strs(r.Lines), err)
	}
	rewriteInPlace(t, path, `{"n":1,"uuid":"cccc"}`+"\n"+`{"n":2,"uuid":"dddd"}`+"\nthree\nfour\n")
	if _, err := ReadAppended(path, r.Next, nil, 1<<20); !errors.Is(err, ErrRewritten) {
		t.Errorf("after a rewrite: %v; want ErrRewritten", err)
	}
}

// A line of a MiB that spans many chunks is put together once: ReadTail's memory for it
// grows with the line, not with the line times the number of chunks it spans.
func TestReadTailLongLineCopiedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	long := strings.Repeat("L", MaxLine-10)
	writeFile(t, path, "a\n"+long+"\nb\n")
	var found bool
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	if _, err := ReadTail(path, 4<<20, func(l []byte) bool { found = len(l) == len(long); return found }); err != nil || !found {
		t.Fatalf("the long line was not found: %v", err)
	}
	runtime.ReadMemStats(&m1)
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 3*uint64(len(long)) {
		t.Errorf("reading a %d KB line allocated %d KB, want at most 3 times the line", len(long)>>10, alloc>>10)
	}
}
