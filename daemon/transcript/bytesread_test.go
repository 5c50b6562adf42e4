package transcript

import (
	"path/filepath"
	"testing"
)

// TestBytesReadCountsFileBytes: BytesRead grows by the bytes actually read from the file,
// and not at all when nothing was appended (the benchmarks rely on it to prove that a
// sweep over unchanged transcripts reads nothing).
func TestBytesReadCountsFileBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	writeFile(t, path, "one\ntwo\n")

	before := BytesRead()
	if _, off, err := ReadAppended(path, 0, 1<<20); err != nil || off != 8 {
		t.Fatalf("ReadAppended: offset %d, %v", off, err)
	}
	if got := BytesRead() - before; got != 8 {
		t.Errorf("reading 8 bytes counted %d", got)
	}

	before = BytesRead()
	if _, _, err := ReadAppended(path, 8, 1<<20); err != nil {
		t.Fatal(err)
	}
	if got := BytesRead() - before; got != 0 {
		t.Errorf("nothing appended, yet %d bytes counted", got)
	}

	appendFile(t, path, "three\n")
	before = BytesRead()
	if _, _, err := ReadAppended(path, 8, 1<<20); err != nil {
		t.Fatal(err)
	}
	// The byte before the offset (is it a newline?) and the 6 appended.
	if got := BytesRead() - before; got != 7 {
		t.Errorf("reading 6 appended bytes counted %d, want 7", got)
	}

	before = BytesRead()
	if _, err := ReadTail(path, 1<<20, func([]byte) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if got := BytesRead() - before; got != 14 {
		t.Errorf("reading the 14-byte tail counted %d", got)
	}
}
