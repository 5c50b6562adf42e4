package pty

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/x/term"
	cpty "github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// defaultSize is the child's window when neither stdin nor stdout is a terminal.
var defaultSize = cpty.Winsize{Rows: 24, Cols: 80}

// terminal is the person's terminal, when there is one: stdin in raw mode for the run, so
// that every key (Ctrl-C, arrows, Escape) reaches the child as typed, and the window size.
type terminal struct {
	in    *os.File // stdin when it is a terminal
	sizer *os.File // the terminal to read the window size from, if any
	saved *term.State
}

// openTerminal finds the terminals among stdin and stdout; neither need be one.
func openTerminal(stdin io.Reader, stdout io.Writer) *terminal {
	t := &terminal{}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(f.Fd()) {
		t.in, t.sizer = f, f
	}
	if f, ok := stdout.(*os.File); ok && t.sizer == nil && term.IsTerminal(f.Fd()) {
		t.sizer = f
	}
	return t
}

// raw puts stdin in raw mode when it is a terminal; restore undoes it.
func (t *terminal) raw() error {
	if t.in == nil {
		return nil
	}
	st, err := term.MakeRaw(t.in.Fd())
	if err != nil {
		return err
	}
	t.saved = st
	return nil
}

// restore gives stdin back the mode it had. It is safe to call more than once.
func (t *terminal) restore() {
	if t.saved != nil {
		_ = term.Restore(t.in.Fd(), t.saved)
		t.saved = nil
	}
}

// size returns the window size the child should have.
func (t *terminal) size() *cpty.Winsize {
	if t.sizer != nil {
		if w, h, err := term.GetSize(t.sizer.Fd()); err == nil && w > 0 && h > 0 {
			return &cpty.Winsize{Rows: uint16(h), Cols: uint16(w)}
		}
	}
	ws := defaultSize
	return &ws
}

// catchSignals starts catching the signals that forwardSignals passes on. It is called
// before the child starts, so that none sent once the child runs is lost.
func catchSignals() chan os.Signal {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGWINCH)
	return sigs
}

// forwardSignals passes SIGTERM and SIGHUP on to the child, SIGINT and SIGQUIT to the
// process group in the foreground of its terminal (as Ctrl-C would), and keeps its window
// the size of the person's (SIGWINCH), until ctx is done; then it stops catching them.
func (s *Supervisor) forwardSignals(ctx context.Context, t *terminal, sigs chan os.Signal) {
	defer signal.Stop(sigs)
	for {
		select {
		case <-ctx.Done():
			return
		case sig := <-sigs:
			if sig == syscall.SIGWINCH {
				if err := setSize(s.master, t.size()); err != nil {
					s.log.Warn("the child's window could not be resized", "err", err)
				}
				continue
			}
			s.log.Info("passing a signal on to the child", "signal", sig)
			if sig == syscall.SIGINT || sig == syscall.SIGQUIT {
				// As a terminal sends them: to the process group in the foreground.
				if pgrp, err := foregroundGroup(s.master); err == nil && pgrp > 0 {
					_ = syscall.Kill(-pgrp, sig.(syscall.Signal))
					continue
				}
			}
			_ = s.cmd.Process.Signal(sig)
		}
	}
}

// pollable returns the PTY master as a file in non-blocking mode, so that closing it ends
// a read in progress (creack/pty leaves it blocking), and closes f. Only control() may
// touch its descriptor afterwards: Fd() would make it blocking again.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// control runs fn on f's descriptor without making it blocking.
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// setSize sets the window size of the PTY whose master is f.
func setSize(f *os.File, ws *cpty.Winsize) error {
	return control(f, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: ws.Rows, Col: ws.Cols})
	})
}

// foregroundGroup returns the foreground process group of the PTY whose master is f: the
// process the person would be typing to.
func foregroundGroup(f *os.File) (int, error) {
	var pgrp int
	err := control(f, func(fd int) error {
		var err error
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	return pgrp, err
}
