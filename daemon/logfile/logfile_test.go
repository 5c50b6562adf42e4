package logfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileRotatesAndKeepsAFew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	l, err := Open(path, 1000, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	line := strings.Repeat("x", 99) + "\n"
	for i := range 100 { // 10,000 bytes: ten files' worth
		if _, err := fmt.Fprint(l, line[:len(line)-4]+fmt.Sprintf("%03d", i)+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		fi, _ := e.Info()
		if fi.Size() > 1000 || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %d bytes, mode %v; want at most 1000, 0600", e.Name(), fi.Size(), fi.Mode().Perm())
		}
	}
	if strings.Join(names, " ") != "daemon.log daemon.log.1 daemon.log.2 daemon.log.3" {
		t.Fatalf("files %v, want the log and three old ones", names)
	}
	cur, _ := os.ReadFile(path)
	if !strings.HasSuffix(string(cur), "099\n") {
		t.Fatalf("the current log does not end with the last line: %q", cur[len(cur)-20:])
	}
	old, _ := os.ReadFile(path + ".1")
	if !strings.HasSuffix(string(old), "089\n") {
		t.Fatalf("daemon.log.1 does not hold the lines just before: %q", old[len(old)-20:])
	}
}
