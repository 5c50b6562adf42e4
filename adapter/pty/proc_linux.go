package pty

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// groupLook is what /proc shows of a process group at one look.
type groupLook struct {
	// ticks is the CPU time its processes and their waited-for children have used, in
	// clock ticks.
	ticks uint64
	// running: one of them is on a CPU or in uninterruptible sleep (state R or D).
	running bool
	// reading: one of them is blocked reading the terminal (see readsTerminal).
	reading bool
	// readKnown is false when what the processes wait on could not be read (no
	// /proc/PID/syscall, or not allowed): reading is then meaningless.
	readKnown bool
}

// lookGroup returns what the processes of group pgrp do, tty being the device number of
// their terminal. ok is false when /proc cannot be read.
func lookGroup(pgrp int, tty uint64) (g groupLook, ok bool) {
	if pgrp <= 0 {
		return g, false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return g, false
	}
	g.readKnown = tty != 0 && syscallsReadable()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		st, ok := parseStat(b)
		if !ok || st.pgrp != pgrp {
			continue
		}
		g.ticks += st.cpu
		g.running = g.running || st.state == 'R' || st.state == 'D'
		if g.readKnown && !g.reading && st.state == 'S' {
			reading, known := readsTerminal(pid, tty)
			g.reading, g.readKnown = reading, known
		}
	}
	return g, true
}

// childEcho returns the echo mode of the terminal whose master is f: the child's settings,
// which a PTY's master reports as its own. cooked when they cannot be read.
func childEcho(f *os.File) echoMode {
	var t *unix.Termios
	if err := control(f, func(fd int) error {
		var err error
		t, err = unix.IoctlGetTermios(fd, unix.TCGETS)
		return err
	}); err != nil {
		return cooked
	}
	return echoMode{echo: t.Lflag&unix.ECHO != 0, icrnl: t.Iflag&unix.ICRNL != 0, echoctl: t.Lflag&unix.ECHOCTL != 0,
		onlcr: t.Oflag&unix.OPOST != 0 && t.Oflag&unix.ONLCR != 0, canonical: t.Lflag&unix.ICANON != 0}
}

// exited reports whether process pid has ended: a zombie not yet waited for, or gone. A
// loaded machine can take a while to run the goroutine that waits for the child; /proc
// says at once.
func exited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return gone(err)
	}
	st, ok := parseStat(b)
	return ok && (st.state == 'Z' || st.state == 'X')
}

// stat is what lookGroup reads of a /proc/PID/stat line.
type stat struct {
	state byte
	pgrp  int
	cpu   uint64 // utime + stime + cutime + cstime
}

// parseStat reads "pid (comm) state ppid pgrp … utime stime cutime cstime …", where comm
// may hold spaces and parentheses.
func parseStat(b []byte) (stat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 15 || len(f[0]) != 1 {
		return stat{}, false
	}
	g, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return stat{}, false
	}
	st := stat{state: f[0][0], pgrp: g}
	for _, k := range f[11:15] { // fields 14–17
		v, err := strconv.ParseUint(string(k), 10, 64)
		if err != nil {
			return stat{}, false
		}
		st.cpu += v
	}
	return st, true
}

// ptyDevice returns the device number of the terminal whose master is f (its slave,
// /dev/pts/N), which is what the child's descriptors of it show.
func ptyDevice(f *os.File) (uint64, error) {
	var n uint32
	err := control(f, func(fd int) error {
		var err error
		n, err = unix.IoctlGetUint32(fd, unix.TIOCGPTN)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("pty number: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Stat(fmt.Sprintf("/dev/pts/%d", n), &st); err != nil {
		return 0, fmt.Errorf("stat pty: %w", err)
	}
	return st.Rdev, nil
}

// devTTY is the device number of /dev/tty, which stands for a process's controlling
// terminal: for a process of the terminal's foreground group, the child's terminal.
var devTTY = unix.Mkdev(5, 0)

// How a blocked system call waits on its descriptors (waitsOn).
type waitKind int

const (
	waitOther  waitKind = iota // on nothing the terminal can end
	waitRead                   // arg0 is the descriptor read
	waitSelect                 // select/pselect6: arg0 nfds, arg1 the read set
	waitPoll                   // poll/ppoll: arg0 the pollfd array, arg1 its length
	waitEpoll                  // epoll_wait and kin: arg0 the epoll descriptor
)

// waitsOn maps the system calls a program waits for input in to how they name their
// descriptors. proc_linux_amd64.go adds the older calls that arch still has (bash, vim
// and Python's REPL sit in pselect6; node in epoll_pwait; sh's read and Python's input()
// in read).
var waitsOn = map[int]waitKind{
	unix.SYS_READ: waitRead, unix.SYS_READV: waitRead, unix.SYS_PREAD64: waitRead,
	unix.SYS_PREADV: waitRead, unix.SYS_PREADV2: waitRead,
	unix.SYS_PSELECT6:    waitSelect,
	unix.SYS_PPOLL:       waitPoll,
	unix.SYS_EPOLL_PWAIT: waitEpoll, unix.SYS_EPOLL_PWAIT2: waitEpoll,
}

// readsTerminal reports whether a thread of process pid is blocked waiting for input from
// the terminal tty: in a read of it, or in select, poll or epoll with it among the
// descriptors watched for input. Each thread's /proc/PID/task/TID/syscall says which call
// it is blocked in and with what arguments ("running" while it runs). known is false when
// that cannot be read.
func readsTerminal(pid int, tty uint64) (reading, known bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	tasks, err := os.ReadDir(dir + "/task")
	if err != nil {
		return false, gone(err)
	}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/task/" + t.Name() + "/syscall")
		if err != nil {
			if gone(err) {
				continue
			}
			return false, false
		}
		nr, args, ok := parseSyscall(b)
		if !ok {
			continue // running, or not in a system call
		}
		if waitsForTerminal(dir, nr, args, tty) {
			return true, true
		}
	}
	return false, true
}

// gone reports whether err says the process or thread is no more.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// parseSyscall reads a /proc/PID/syscall line: "NR ARG0 … ARG5 SP PC" for a thread blocked
// in a system call; ok is false for "running", "-1 SP PC" (blocked outside one) and
// anything else.
func parseSyscall(b []byte) (nr int, args [6]uint64, ok bool) {
	f := bytes.Fields(b)
	if len(f) < 7 {
		return 0, args, false
	}
	nr, err := strconv.Atoi(string(f[0]))
	if err != nil || nr < 0 {
		return 0, args, false
	}
	for i := range args {
		v, err := strconv.ParseUint(string(bytes.TrimPrefix(f[i+1], []byte("0x"))), 16, 64)
		if err != nil {
			return 0, args, false
		}
		args[i] = v
	}
	return nr, args, true
}

// maxFDs bounds how many descriptors of a select or poll are read.
const maxFDs = 4096

// waitsForTerminal reports whether the process at dir (/proc/PID), blocked in system call
// nr with args, waits for input from the terminal tty. The sets select and poll are
// given live in the process's memory (/proc/PID/mem); when that cannot be read, it is
// taken to wait on the terminal if it has it open among the descriptors it may watch.
func waitsForTerminal(dir string, nr int, args [6]uint64, tty uint64) bool {
	switch waitsOn[nr] {
	case waitRead:
		return isTerminal(dir, args[0], tty)
	case waitSelect:
		nfds := min(args[0], maxFDs)
		if args[1] == 0 || nfds == 0 {
			return false // no read set
		}
		set, err := readMemory(dir, args[1], int((nfds+63)/64*8))
		if err != nil {
			return holdsTerminal(dir, tty, nfds)
		}
		for fd := range nfds {
			word := binary.NativeEndian.Uint64(set[fd/64*8:])
			if word&(1<<(fd%64)) != 0 && isTerminal(dir, fd, tty) {
				return true
			}
		}
		return false
	case waitPoll:
		n := min(args[1], maxFDs)
		fds, err := readMemory(dir, args[0], int(n*8)) // struct pollfd: int fd; short events, revents
		if err != nil {
			return holdsTerminal(dir, tty, maxFDs)
		}
		for i := 0; i+8 <= len(fds); i += 8 {
			fd := int32(binary.NativeEndian.Uint32(fds[i:]))
			events := binary.NativeEndian.Uint16(fds[i+4:])
			if fd >= 0 && events&(unix.POLLIN|unix.POLLPRI) != 0 && isTerminal(dir, uint64(fd), tty) {
				return true
			}
		}
		return false
	case waitEpoll:
		return epollWatches(dir, args[0], tty)
	}
	return false
}

// epollWatches reports whether epoll descriptor epfd of the process at dir watches the
// terminal tty for input. /proc/PID/fdinfo/EPFD lists what it watches, one
// "tfd: FD events: HEX …" line each.
func epollWatches(dir string, epfd uint64, tty uint64) bool {
	f, err := os.Open(dir + "/fdinfo/" + strconv.FormatUint(epfd, 10))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := bytes.Fields(sc.Bytes())
		if len(w) < 4 || string(w[0]) != "tfd:" || string(w[2]) != "events:" {
			continue
		}
		fd, err1 := strconv.ParseUint(string(w[1]), 10, 64)
		ev, err2 := strconv.ParseUint(string(w[3]), 16, 32)
		if err1 == nil && err2 == nil && ev&unix.EPOLLIN != 0 && isTerminal(dir, fd, tty) {
			return true
		}
	}
	return false
}

// isTerminal reports whether descriptor fd of the process at dir is the terminal tty
// (or /dev/tty, which is it for that process).
func isTerminal(dir string, fd, tty uint64) bool {
	var st unix.Stat_t
	if err := unix.Stat(dir+"/fd/"+strconv.FormatUint(fd, 10), &st); err != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && (st.Rdev == tty || st.Rdev == devTTY)
}

// holdsTerminal reports whether the process at dir has the terminal tty open as a
// descriptor under limit.
func holdsTerminal(dir string, tty, limit uint64) bool {
	entries, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return false
	}
	for _, e := range entries {
		fd, err := strconv.ParseUint(e.Name(), 10, 64)
		if err == nil && fd < limit && isTerminal(dir, fd, tty) {
			return true
		}
	}
	return false
}

// readMemory reads n bytes at addr of the process at dir.
func readMemory(dir string, addr uint64, n int) ([]byte, error) {
	f, err := os.Open(dir + "/mem")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := f.ReadAt(b, int64(addr)); err != nil {
		return nil, err
	}
	return b, nil
}

// syscallsReadable reports whether this kernel shows the system call a thread is blocked
// in (/proc/PID/syscall needs CONFIG_HAVE_ARCH_TRACEHOOK).
var syscallsReadable = sync.OnceValue(func() bool {
	_, err := os.ReadFile("/proc/self/syscall")
	return err == nil
})
