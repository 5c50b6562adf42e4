package pty

// ring is the bounded rolling buffer of the child's recent output (QA-018): it keeps the
// last len(buf) bytes, whatever the child writes, and counts the bytes it dropped to keep
// that bound. It is not safe for concurrent use; the supervisor holds its lock.
type ring struct {
	buf     []byte
	start   int    // index of the oldest byte
	n       int    // bytes held
	written uint64 // bytes ever written
	evicted uint64 // bytes ever dropped to make room
}

func newRing(size int) *ring { return &ring{buf: make([]byte, size)} }

// write appends p, dropping the oldest bytes when the buffer is full.
func (r *ring) write(p []byte) {
	r.written += uint64(len(p))
	size := len(r.buf)
	if len(p) >= size {
		r.evicted += uint64(r.n + len(p) - size)
		copy(r.buf, p[len(p)-size:])
		r.start, r.n = 0, size
		return
	}
	if over := r.n + len(p) - size; over > 0 {
		r.evicted += uint64(over)
		r.start = (r.start + over) % size
		r.n -= over
	}
	end := (r.start + r.n) % size
	k := copy(r.buf[end:], p)
	copy(r.buf, p[k:])
	r.n += len(p)
}

// bytes returns a copy of what the buffer holds, oldest first.
func (r *ring) bytes() []byte {
	out := make([]byte, r.n)
	k := copy(out, r.buf[r.start:min(r.start+r.n, len(r.buf))])
	copy(out[k:], r.buf[:r.n-k])
	return out
}

// echoFilter drops the terminal's echo of an answer the supervisor typed from what the
// detector reads (QA-019), so that "y" echoed after "(y/n)" is not read as output. The
// person at the terminal still sees the echo: only the buffer loses it. The echo must come
// first and whole; the first byte that differs, or the end of the window, ends the filter.
type echoFilter struct {
	want    []byte // what the terminal echoes for the answer, not yet seen
	newline bool   // the echo holds a line end: the buffer keeps one "\n" in its place
}

// echoMode is what a terminal's settings make of the bytes typed into it, on its screen:
// the child's terminal's, read when an answer is typed (childEcho).
type echoMode struct {
	echo    bool // ECHO: what is typed is shown
	icrnl   bool // ICRNL: a CR typed is read, and shown, as a line end
	echoctl bool // ECHOCTL: another control byte is shown as ^X (a CR without ICRNL as ^M)
	onlcr   bool // OPOST and ONLCR: a line end shown goes out as CR LF
	// canonical (ICANON): the terminal reads a line at a time, edited by it, and hands
	// it over at Enter; off, the program reads keys one by one (raw or cbreak mode).
	canonical bool
}

// hidesLine reports whether a terminal in mode m reads a line without showing it: echo off
// in canonical mode. That is how a program asks for a secret, whatever its words say: read
// from a PTY's master while each blocked in its read (bash 5.2 and Python 3.11), bash's
// `read -s -p "DB_PASS? "` and Python's getpass.getpass leave ICANON and ISIG on and
// turn ECHO off, as sudo's and ssh's password prompts do. A program in raw or cbreak mode
// turns ECHO off too but draws what is typed itself: Python's tty.setraw and
// tty.setcbreak, bash's `read -s -n1`, readline at a shell's prompt and every full-screen
// TUI (the coding agents among them) read with ICANON off, and are not asking for a
// secret by this rule.
func (m echoMode) hidesLine() bool { return m.canonical && !m.echo }

// cooked is a terminal's usual mode (a shell's read, Python's input()), taken when the
// child's cannot be read.
var cooked = echoMode{echo: true, icrnl: true, echoctl: true, onlcr: true, canonical: true}

// echoOf returns what a terminal in mode m shows for data typed into it: printable bytes
// as they are; a line end as CR LF (or LF); a CR as a line end under ICRNL, else, like any
// other control byte, as ^M under ECHOCTL (a program that reads keys one by one and leaves
// echo on) or as itself.
func echoOf(data string, m echoMode) []byte {
	if !m.echo {
		return nil
	}
	var out []byte
	for i := 0; i < len(data); i++ {
		b := data[i]
		if b == '\r' && m.icrnl {
			b = '\n'
		}
		switch {
		case b == '\n' && m.onlcr:
			out = append(out, '\r', '\n')
		case b == '\n', b == '\t', b >= 0x20 && b != 0x7f:
			out = append(out, b)
		case m.echoctl:
			out = append(out, '^', b^0x40)
		default:
			out = append(out, b)
		}
	}
	return out
}

func newEchoFilter(data string, m echoMode) *echoFilter {
	w := echoOf(data, m)
	return &echoFilter{want: w, newline: len(w) > 0 && w[len(w)-1] == '\n'}
}

// filter returns p without the echo it still waits for; synthetic says keep starts with the
// "\n" that stands for the echo's line end. done says the filter has finished: the echo
// was seen whole, or something else came (the child does not echo: raw mode). keep may
// share p's memory.
func (f *echoFilter) filter(p []byte) (keep []byte, synthetic, done bool) {
	i := 0
	for i < len(p) && len(f.want) > 0 && p[i] == f.want[0] {
		i++
		f.want = f.want[1:]
	}
	switch {
	case len(f.want) == 0:
		if f.newline && i > 0 {
			// The line end the echo carried still separates the question from what
			// follows it: "(y/n) " and "Enter new filename: " are not one line.
			p[i-1] = '\n'
			return p[i-1:], true, true
		}
		return p[i:], false, true
	case i < len(p):
		return p[i:], false, true
	}
	return nil, false, false
}
