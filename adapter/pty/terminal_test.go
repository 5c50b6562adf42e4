package pty

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	cpty "github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// A person's terminal (here a PTY of the test's own): raw mode for the run and restored
// after it, the child's window its size and following it on SIGWINCH, Ctrl-C a key for the
// child (it dies of SIGINT, the supervisor passes its status on).
func TestTerminalPassThrough(t *testing.T) {
	outer, tty, err := cpty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer outer.Close()
	defer tty.Close()
	if err := cpty.Setsize(outer, &cpty.Winsize{Rows: 30, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	fd := int(tty.Fd())
	before, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if before.Lflag&unix.ECHO == 0 {
		t.Fatal("a new terminal should echo")
	}
	screen := newSyncBuffer()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := outer.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()

	sup, err := New(Config{Args: sh(`trap 'stty size' WINCH; stty size; while :; do sleep 0.05; done`),
		Stdin: tty, Stdout: tty, Signals: true, Settle: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var code int
	var runErr error
	go func() {
		defer close(done)
		code, runErr = sup.Run(context.Background())
	}()
	screen.waitFor(t, "30 100", 5*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for {
		now, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if now.Lflag&(unix.ECHO|unix.ICANON|unix.ISIG) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the terminal was not put in raw mode")
		}
		time.Sleep(10 * time.Millisecond)
	}

	if err := cpty.Setsize(outer, &cpty.Winsize{Rows: 40, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	screen.waitFor(t, "40 120", 5*time.Second)

	if _, err := outer.Write([]byte{0x03}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Ctrl-C did not end the child")
	}
	if runErr != nil || code != 128+int(syscall.SIGINT) {
		t.Fatalf("status %d, %v; want 130 (the child died of SIGINT)", code, runErr)
	}
	after, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if *after != *before {
		t.Fatalf("the terminal was not restored:\n got %+v\nwant %+v", *after, *before)
	}
}
