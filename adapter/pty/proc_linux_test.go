package pty

// The reading check against real children on a real PTY: each blocked in its own way,
// reading the terminal or not.

import (
	"os"
	"os/exec"
	"testing"
	"time"

	cpty "github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// waitForInput blocks the helper child the way named, with the terminal as its stdin: in
// read on another thread than the main one (a Go program), in select, poll or epoll
// watching the terminal, or in poll watching only a pipe.
func waitForInput(how string) {
	tty := unix.Stdin
	switch how {
	case "read-thread":
		go func() { _, _ = os.Stdin.Read(make([]byte, 1)) }()
		select {}
	case "select-tty":
		var set unix.FdSet
		set.Set(tty)
		_, _ = unix.Select(tty+1, &set, nil, nil, nil)
	case "poll-tty":
		_, _ = unix.Poll([]unix.PollFd{{Fd: int32(tty), Events: unix.POLLIN}}, -1)
	case "epoll-tty":
		ep, _ := unix.EpollCreate1(0)
		_ = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, tty, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(tty)})
		_, _ = unix.EpollWait(ep, make([]unix.EpollEvent, 1), -1)
	case "poll-pipe":
		r, _, _ := os.Pipe()
		_, _ = unix.Poll([]unix.PollFd{{Fd: int32(r.Fd()), Events: unix.POLLIN}}, -1)
	}
}

// startOnPTY starts args on a PTY of its own and returns the device number of that
// terminal and its foreground process group.
func startOnPTY(t *testing.T, args []string, env []string) (tty uint64, pgrp int) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	master, err := cpty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		_ = cmd.Wait()
		master.Close()
	})
	if tty, err = ptyDevice(master); err != nil {
		t.Fatal(err)
	}
	if pgrp, err = foregroundGroup(master); err != nil {
		t.Fatal(err)
	}
	return tty, pgrp
}

// A child is reading its terminal when a process of the terminal's foreground group is
// blocked waiting for input from it — in read (sh's read, a grandchild's, a Go program's
// on another thread, through /dev/tty), select, poll or epoll on it — and not when it
// sleeps, waits on a child, computes, or polls something else.
func TestReadingTheTerminal(t *testing.T) {
	if !syscallsReadable() {
		t.Skip("this kernel has no /proc/PID/syscall")
	}
	for _, tt := range []struct {
		name    string
		args    []string // a shell's child, or
		helper  string   // this test binary's (waitForInput)
		reading bool
	}{
		{name: "sh read", args: sh(`read x`), reading: true},
		{name: "a grandchild reads", args: sh(`sh -c 'read x'; echo done`), reading: true},
		{name: "read of /dev/tty", args: sh(`read x < /dev/tty`), reading: true},
		{name: "a sleep runs beside the read", args: sh(`sleep 30 & read x`), reading: true},
		{name: "Go read on a thread", helper: "read-thread", reading: true},
		{name: "select on the terminal", helper: "select-tty", reading: true},
		{name: "poll on the terminal", helper: "poll-tty", reading: true},
		{name: "epoll on the terminal", helper: "epoll-tty", reading: true},
		{name: "sleep", args: sh(`echo compiling; sleep 30`)},
		{name: "a shell computes", args: sh(`while :; do :; done`)},
		{name: "read of a pipe", args: sh(`sleep 30 | read x`)},
		{name: "poll on a pipe", helper: "poll-pipe"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args, env := tt.args, []string(nil)
			if tt.helper != "" {
				args, env = helper(tt.helper)
			}
			tty, pgrp := startOnPTY(t, args, env)
			look := func() groupLook {
				g, ok := lookGroup(pgrp, tty)
				if !ok || !g.readKnown {
					t.Fatalf("lookGroup(%d): ok %v, %+v: /proc should tell", pgrp, ok, g)
				}
				return g
			}
			if tt.reading {
				deadline := time.Now().Add(5 * time.Second)
				for !look().reading {
					if time.Now().After(deadline) {
						t.Fatal("not seen reading the terminal within 5 s")
					}
					time.Sleep(10 * time.Millisecond)
				}
				return
			}
			// Not reading: at no look over a second, once it had the time to block.
			for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
				if look().reading {
					t.Fatal("seen reading the terminal")
				}
			}
		})
	}
}

func TestParseSyscall(t *testing.T) {
	nr, args, ok := parseSyscall([]byte("0 0x0 0x7ffdbf042acf 0x1 0x8 0x2 0x1 0x7ffdbf042a98 0x7f6f1c2a0b1d\n"))
	if !ok || nr != 0 || args != [6]uint64{0, 0x7ffdbf042acf, 1, 8, 2, 1} {
		t.Fatalf("%d %x %v", nr, args, ok)
	}
	for _, line := range []string{"running\n", "-1 0x7ffdbf042a98 0x7f6f1c2a0b1d\n", ""} {
		if _, _, ok := parseSyscall([]byte(line)); ok {
			t.Fatalf("%q read as a blocked system call", line)
		}
	}
}

func TestParseStat(t *testing.T) {
	line := "4242 (my (odd) prog) S 1 4242 4242 34816 4242 4194304 100 0 0 0 7 3 20 11 20 0 1 0 100 0 0\n"
	st, ok := parseStat([]byte(line))
	if !ok || st.state != 'S' || st.pgrp != 4242 || st.cpu != 7+3+20+11 {
		t.Fatalf("%+v %v", st, ok)
	}
	if _, ok := parseStat([]byte("4242 (cut")); ok {
		t.Fatal("a cut line was read")
	}
}

// TestExitedBeforeItIsWaitedFor: a child that ended is seen to have, by /proc, before the
// wait for it returns (a zombie), and after (gone); a live one is not.
func TestExitedBeforeItIsWaitedFor(t *testing.T) {
	live := exec.Command("sleep", "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	if exited(live.Process.Pid) {
		t.Fatal("a sleeping child is said to have exited")
	}

	done := exec.Command("true")
	if err := done.Start(); err != nil {
		t.Fatal(err)
	}
	pid := done.Process.Pid
	for deadline := time.Now().Add(5 * time.Second); !exited(pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a child that ended, not yet waited for, is not said to have exited")
		}
	}
	if err := done.Wait(); err != nil {
		t.Fatal(err)
	}
	if !exited(pid) {
		t.Fatal("a child waited for is not said to have exited")
	}
}

// TestChildEchoIsTheChildsTerminalsMode: the master of a PTY reports the settings its
// child's end has, as the child set them: cooked as opened, then keys one by one with CR
// kept (the mode the Prompt Lab's children and many key readers use).
func TestChildEchoIsTheChildsTerminalsMode(t *testing.T) {
	master, tty, err := cpty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer tty.Close()
	if got := childEcho(master); got != cooked {
		t.Fatalf("a new terminal: %+v, want cooked %+v", got, cooked)
	}
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ICANON
	tio.Iflag &^= unix.ICRNL
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	if got, want := childEcho(master), (echoMode{echo: true, echoctl: true, onlcr: true}); got != want {
		t.Fatalf("keys one by one, CR kept: %+v, want %+v", got, want)
	}
	if e := echoOf("y\r", childEcho(master)); string(e) != "y^M" {
		t.Fatalf("its echo of y and Enter: %q, want \"y^M\"", e)
	}
}
