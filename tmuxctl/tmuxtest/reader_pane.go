package tmuxtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// NewReaderPane creates a pane in session, as NewPane does, whose shell stands for a
// program that asks and reads: in folder dir (the server's default when dir is ""), it
// prints question numbered by round ("(#1) Continue? (y/n) "), reads a line, appends it
// to a file and asks again, so that the screen tells the rounds apart. It waits for the
// first question on screen and returns the pane and the file, which ReadLines reads.
func (e *Env) NewReaderPane(t testing.TB, session, dir, question string) (pane, file string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "read")
	script := `[ -z "$3" ] || cd "$3" || exit; n=1; while :; do printf '(#%d) %s' $n "$1"; IFS= read -r a || exit; printf '%s\n' "$a" >> "$2"; n=$((n+1)); done`
	pane = e.NewPane(t, session, "sh", "-c", script, "reader", question, file, dir)
	e.WaitFor(t, "the question on screen", 5*time.Second, func() bool {
		return strings.Contains(e.Tmux(t, "capture-pane", "-p", "-t", pane), strings.TrimSpace(question))
	})
	return pane, file
}

// ReadLines returns the lines a reader pane has read so far, from its file: none before
// the first. A line is counted once its line end is written: the shell creates the file
// before it writes the first line.
func ReadLines(t testing.TB, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		return nil
	}
	return strings.Split(s[:i], "\n")
}
