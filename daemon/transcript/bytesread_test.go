package transcript

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBytesReadCountsFileBytes: BytesRead grows by the bytes actually read from the file,
// and not at all when nothing was appended (the benchmarks rely on it to prove that a
// sweep over unchanged transcripts reads nothing). Besides what it returns, a read looks at
// the bytes just before where it starts and where it stops (up to markLen each): they tell
// a rewritten file from an appended one.
func TestBytesReadCountsFileBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	writeFile(t, path, "one\ntwo\n")

	before := BytesRead()
	got, err := ReadAppended(path, Position{}, nil, 1<<20)
	if err != nil || got.Next.Offset != 8 {
		t.Fatalf("ReadAppended: %+v, %v", got.Next, err)
	}
	if n := BytesRead() - before; n != 8+8 {
		t.Errorf("reading 8 bytes counted %d, want 8 and the 8 that mark where it stopped", n)
	}

	before = BytesRead()
	if again, err := ReadAppended(path, got.Next, nil, 1<<20); err != nil || again.Next != got.Next {
		t.Fatalf("nothing appended: %+v, %v; want %+v", again.Next, err, got.Next)
	}
	if n := BytesRead() - before; n != 0 {
		t.Errorf("nothing appended, yet %d bytes counted", n)
	}

	appendFile(t, path, "three\n")
	before = BytesRead()
	if _, err := ReadAppended(path, got.Next, nil, 1<<20); err != nil {
		t.Fatal(err)
	}
	// The 8 before the position (its mark), the 6 appended, the 14 before the new position.
	if n := BytesRead() - before; n != 8+6+14 {
		t.Errorf("reading 6 appended bytes counted %d, want %d", n, 8+6+14)
	}

	before = BytesRead()
	if _, err := ReadTail(path, 1<<20, func([]byte) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if n := BytesRead() - before; n != 14+14 {
		t.Errorf("reading the 14-byte tail counted %d, want it and its mark, %d", n, 14+14)
	}

	// A long file: the marks cost markLen each, whatever the lines' length.
	writeFile(t, path, strings.Repeat("x", 300<<10)+"\n")
	before = BytesRead()
	if _, err := ReadAppended(path, Position{}, nil, 1<<20); err != nil {
		t.Fatal(err)
	}
	if n, want := BytesRead()-before, int64(300<<10+1+markLen); n != want {
		t.Errorf("reading a 300 KB line counted %d, want %d", n, want)
	}
}
