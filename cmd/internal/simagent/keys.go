package simagent

import (
	"bytes"
	"context"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// The demo agent's keyboard. Claude Code reads its terminal two ways, and the daemon types
// into a pane accordingly (daemon/deliver/deliver.go): its input box takes a line (the text, a
// pause, Enter), and its dialogs act on one key with no Enter (the digit alone). So the
// demo agent keeps its terminal in the usual line mode, and while a dialog is shown puts it
// in cbreak mode: every key is read as it is typed, nothing is echoed, and Ctrl-C still
// interrupts. Keys typed before a dialog is drawn are dropped, as Claude Code drops them.

// Keys that key returns by name; any other key is its own character.
const (
	KeyEnter = "enter"
	KeyEsc   = "esc"
	KeyUp    = "up"
	KeyDown  = "down"
)

// escWait is how long a lone Escape waits for the rest of an arrow key's sequence before it
// counts as Esc itself.
const escWait = 50 * time.Millisecond

// Keyboard is the agent's stdin, read by one goroutine for the agent's whole life.
type Keyboard struct {
	chunks <-chan chunk  // what each read returned; closed at the end of the input
	fd     int           // stdin's descriptor when it is a terminal, else -1
	saved  *unix.Termios // the line mode to go back to, while a dialog is shown
	buf    []byte        // read, not used yet
	since  time.Time     // what was read before this is dropped
	ended  bool          // the input has ended
}

// chunk is one read of stdin and when it returned.
type chunk struct {
	b  []byte
	at time.Time
}

// OpenKeyboard starts reading r.
func OpenKeyboard(r io.Reader) *Keyboard {
	ch := make(chan chunk, 16)
	go func() {
		defer close(ch)
		for {
			b := make([]byte, 256)
			n, err := r.Read(b)
			if n > 0 {
				ch <- chunk{b[:n], time.Now()}
			}
			if err != nil {
				return
			}
		}
	}()
	k := &Keyboard{chunks: ch, fd: -1}
	if f, ok := r.(*os.File); ok {
		if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err == nil {
			k.fd = int(f.Fd())
		}
	}
	return k
}

// menu puts the terminal in cbreak mode for a dialog, and drops what was typed before.
func (k *Keyboard) menu() {
	if k.fd >= 0 && k.saved == nil {
		if t, err := unix.IoctlGetTermios(k.fd, unix.TCGETS); err == nil {
			saved := *t
			t.Lflag &^= unix.ICANON | unix.ECHO
			t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
			if unix.IoctlSetTermios(k.fd, unix.TCSETS, t) == nil {
				k.saved = &saved
			}
		}
	}
	k.Discard()
}

// cooked gives the terminal back its line mode. It is safe to call more than once.
func (k *Keyboard) cooked() {
	if k.saved != nil {
		_ = unix.IoctlSetTermios(k.fd, unix.TCSETS, k.saved)
		k.saved = nil
	}
}

// Discard drops whatever was typed before now.
func (k *Keyboard) Discard() {
	if k.fd >= 0 {
		_ = unix.IoctlSetInt(k.fd, unix.TCFLSH, unix.TCIFLUSH)
	}
	k.since, k.buf = time.Now(), nil
	for {
		select {
		case c, ok := <-k.chunks:
			if !ok {
				k.ended, k.chunks = true, nil
				return
			}
			if !c.at.Before(k.since) {
				k.buf = append(k.buf, c.b...)
			}
		default:
			return
		}
	}
}

// fill waits up to wait (forever when 0) for more input; false when none came, the input
// ended or ctx did.
func (k *Keyboard) fill(ctx context.Context, wait time.Duration) bool {
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	for !k.ended {
		select {
		case <-ctx.Done():
			return false
		case <-timeout:
			return false
		case c, ok := <-k.chunks:
			if !ok {
				k.ended, k.chunks = true, nil
				return false
			}
			if c.at.Before(k.since) {
				continue
			}
			k.buf = append(k.buf, c.b...)
			return true
		}
	}
	return false
}

// line returns the next line typed, without its line end; false when the input ended (a
// last line without its end is still returned) or ctx did.
func (k *Keyboard) line(ctx context.Context) (string, bool) {
	for {
		if i := bytes.IndexAny(k.buf, "\r\n"); i >= 0 {
			l := string(k.buf[:i])
			end := i + 1
			if k.buf[i] == '\r' && end < len(k.buf) && k.buf[end] == '\n' {
				end++
			}
			k.buf = k.buf[end:]
			return l, true
		}
		if !k.fill(ctx, 0) {
			if k.ended && ctx.Err() == nil && len(k.buf) > 0 {
				l := string(k.buf)
				k.buf = nil
				return l, true
			}
			return "", false
		}
	}
}

// Key returns the next key typed: KeyEnter, KeyEsc, KeyUp, KeyDown, "" for another key
// that has a name (another escape sequence), or the character typed; false when the input
// ended or ctx did.
func (k *Keyboard) Key(ctx context.Context) (string, bool) {
	for len(k.buf) == 0 {
		if !k.fill(ctx, 0) {
			return "", false
		}
	}
	switch k.buf[0] {
	case '\r', '\n':
		k.buf = k.buf[1:]
		return KeyEnter, true
	case 0x1b:
		if len(k.buf) == 1 {
			k.fill(ctx, escWait)
		}
		if len(k.buf) == 1 || (k.buf[1] != '[' && k.buf[1] != 'O') {
			k.buf = k.buf[1:]
			return KeyEsc, true
		}
		// A CSI or SS3 sequence: parameters, then one final byte.
		for i := 2; ; i++ {
			for i >= len(k.buf) {
				if !k.fill(ctx, escWait) {
					k.buf = nil
					return "", ctx.Err() == nil
				}
			}
			if c := k.buf[i]; c >= 0x40 && c <= 0x7e {
				k.buf = k.buf[i+1:]
				switch c {
				case 'A':
					return KeyUp, true
				case 'B':
					return KeyDown, true
				}
				return "", true
			}
		}
	}
	for !utf8.FullRune(k.buf) {
		if !k.fill(ctx, escWait) {
			break
		}
	}
	r, n := utf8.DecodeRune(k.buf)
	k.buf = k.buf[n:]
	return string(r), true
}
