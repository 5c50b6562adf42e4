package tmuxtest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// NewKeyPane creates a pane in session, as NewPane does, whose program reads its terminal
// raw: it clears the screen and shows screen (lines ended "\r\n"), and on the first byte of
// each answer writes a line to a FIFO, then reads one more byte (the Enter) and shows
// screen again. It waits for screen's first line and returns the pane and the FIFO's
// reading end, closed when the test ends: a read of it returns once the program has read
// an answer's first byte, for measuring how soon typed keys arrive.
func (e *Env) NewKeyPane(t testing.TB, session, screen string) (pane string, heard *os.File) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Open read-write so that a writer closing between answers is not an end of file.
	heard, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { heard.Close() })
	script := `stty raw -echo; while :; do printf '\033[2J\033[H%s' "$2"
dd bs=1 count=1 2>/dev/null >/dev/null; echo x > "$1"; dd bs=1 count=1 2>/dev/null >/dev/null; done`
	pane = e.NewPane(t, session, "sh", "-c", script, "keys", fifo, screen)
	first, _, _ := strings.Cut(screen, "\r\n")
	e.WaitFor(t, "the program's screen", 5*time.Second, func() bool {
		return strings.Contains(e.Tmux(t, "capture-pane", "-p", "-t", pane), strings.TrimSpace(first))
	})
	return pane, heard
}
