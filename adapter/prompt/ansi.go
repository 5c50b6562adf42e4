package prompt

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits of the small terminal that StripANSI replays output on. They bound its memory by
// the length of its input whatever the input holds.
const (
	// maxCols is the terminal's width: a line wraps there.
	maxCols = 1024
	// screenRows is the terminal's height: absolute cursor moves (CUP, VPA) address the
	// last screenRows lines, and relative moves stop at its edges.
	screenRows = 500
	// maxParam caps a numeric escape parameter.
	maxParam = 9999
	// spareCells is what every input may make beyond 8 cells per input byte through cursor
	// jumps and REP; past it a gap folds to one space.
	spareCells = 4096
)

// wideTail marks the cell under the right half of a double-width character.
const wideTail rune = -1

// StripANSI returns the text that s shows on a terminal: it replays s on a small terminal
// of maxCols columns and returns the lines that are left, right-trimmed, without trailing
// blank lines, joined by "\n".
//
// Cursor movement becomes spacing rather than glued words: Claude Code draws the space
// between words with cursor-forward (CSI n C), which "Do\x1b[1Cyou" replays as "Do you".
// A carriage return redraws its line ("Loading…\rDone" shows "Done"), erase sequences
// (CSI K, CSI J, CSI X) blank what they erase, cursor-up lets a redraw overwrite an older
// frame, CRLF is a newline, a tab moves to the next multiple of 8 columns. SGR, OSC (ended
// by BEL, ST or a newline), DCS and other escapes are dropped; a truncated or malformed
// escape is dropped without swallowing the text after it; invalid UTF-8 becomes U+FFFD.
// The result holds no control characters but "\n". It never panics.
func StripANSI(s string) string {
	t := newTerm(len(s))
	t.feed(s)
	return t.String()
}

// term is the terminal StripANSI replays output on. Row r is an index into lines; the
// screen is the last screenRows lines.
type term struct {
	lines  [][]rune
	r, c   int
	saveR  int
	saveC  int
	last   rune // the last character written, for REP
	budget int  // cells left for gaps and repeats
	alt    *term
}

func newTerm(n int) *term {
	return &term{lines: make([][]rune, 1), budget: 8*n + spareCells}
}

// top returns the row where the screen starts.
func (t *term) top() int { return max(0, len(t.lines)-screenRows) }

// bottom returns the screen's last row.
func (t *term) bottom() int { return max(len(t.lines), screenRows) - 1 }

// move puts the cursor at row r, column c, both clamped to the screen.
func (t *term) move(r, c int) {
	t.r = min(max(r, t.top()), t.bottom())
	t.c = min(max(c, 0), maxCols-1)
	for len(t.lines) <= t.r {
		t.lines = append(t.lines, nil)
	}
}

// lineFeed moves down one row, adding a row at the bottom as a terminal scrolls.
func (t *term) lineFeed() {
	t.r++
	for len(t.lines) <= t.r {
		t.lines = append(t.lines, nil)
	}
}

func (t *term) feed(s string) {
	for i := 0; i < len(s); {
		b := s[i]
		switch {
		case b == 0x1b:
			i = t.escape(s, i)
			continue
		case b == '\r':
			t.c = 0
		case b == '\n' || b == '\v' || b == '\f':
			t.lineFeed()
			t.c = 0
		case b == '\t':
			t.c = min((t.c/8+1)*8, maxCols-1)
		case b == '\b':
			t.c = max(t.c-1, 0)
		case b < 0x20 || b == 0x7f:
			// Other C0 controls (BEL, SO, SI, …) show nothing.
		default:
			r, n := utf8.DecodeRuneInString(s[i:]) // invalid UTF-8 decodes as U+FFFD
			if r < 0x80 || r >= 0xa0 {             // C1 controls show nothing
				t.put(r)
			}
			i += n
			continue
		}
		i++
	}
}

// escape handles the escape sequence at s[i] (an ESC) and returns the index after it.
func (t *term) escape(s string, i int) int {
	if i+1 >= len(s) {
		return len(s) // a lone ESC at the end: truncated
	}
	b := s[i+1]
	switch {
	case b == '[':
		return t.csi(s, i+2)
	case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_':
		return skipString(s, i+2)
	case b >= 0x20 && b <= 0x2f: // nF: charset designation and the like
		j := i + 2
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			return j + 1
		}
		return j
	case b == '7':
		t.saveR, t.saveC = t.r, t.c
	case b == '8':
		t.move(t.saveR, t.saveC)
	case b == 'c':
		*t = term{lines: make([][]rune, 1), budget: t.budget}
	case b == 'D':
		t.lineFeed()
	case b == 'E':
		t.lineFeed()
		t.c = 0
	case b == 'M':
		t.move(t.r-1, t.c)
	case b >= 0x30 && b <= 0x7e:
		// Other two-byte escapes (keypad modes, …) show nothing.
	default:
		return i + 1 // ESC before a control or non-ASCII byte: drop the ESC alone
	}
	return i + 2
}

// skipString skips the body of an OSC, DCS, SOS, PM or APC string that starts at s[j] and
// returns the index after it. A newline also ends it, so that a missing terminator cannot
// swallow the screen.
func skipString(s string, j int) int {
	for ; j < len(s); j++ {
		switch s[j] {
		case 0x07, 0x18, 0x1a: // BEL ends it, CAN and SUB cancel it
			return j + 1
		case '\n':
			return j
		case 0x1b:
			if j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			return j // an escape starts: the string was not terminated
		}
	}
	return len(s)
}

// csi handles a control sequence whose parameters start at s[j] and returns the index
// after it. A sequence broken by a byte that cannot be in it is dropped up to that byte.
func (t *term) csi(s string, j int) int {
	var private byte
	if j < len(s) && s[j] >= 0x3c && s[j] <= 0x3f {
		private = s[j]
		j++
	}
	ps := j
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	params := s[ps:j]
	inter := j
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j >= len(s) {
		return len(s)
	}
	final := s[j]
	if final < 0x40 || final > 0x7e {
		return j
	}
	if j > inter {
		return j + 1 // sequences with intermediates (cursor style, soft reset) move nothing
	}
	t.dispatch(private, params, final)
	return j + 1
}

// param returns the n-th numeric parameter, or def when it is absent or zero.
func param(params string, n, def int) int {
	for ; n > 0; n-- {
		i := strings.IndexByte(params, ';')
		if i < 0 {
			return def
		}
		params = params[i+1:]
	}
	v := 0
	for i := 0; i < len(params) && params[i] >= '0' && params[i] <= '9'; i++ {
		v = min(v*10+int(params[i]-'0'), maxParam)
	}
	if v == 0 {
		return def
	}
	return v
}

func (t *term) dispatch(private byte, params string, final byte) {
	if private != 0 {
		if private == '?' && (final == 'h' || final == 'l') {
			for _, p := range strings.Split(params, ";") {
				if p == "1049" || p == "1047" || p == "47" {
					t.altScreen(final == 'h')
				}
			}
		}
		return
	}
	n := param(params, 0, 1)
	switch final {
	case 'A':
		t.move(t.r-n, t.c)
	case 'B', 'e':
		t.move(t.r+n, t.c)
	case 'C', 'a':
		t.move(t.r, t.c+n)
	case 'D':
		t.move(t.r, t.c-n)
	case 'E':
		t.move(t.r+n, 0)
	case 'F':
		t.move(t.r-n, 0)
	case 'G', '`':
		t.move(t.r, n-1)
	case 'H', 'f':
		t.move(t.top()+n-1, param(params, 1, 1)-1)
	case 'd':
		t.move(t.top()+n-1, t.c)
	case 'I':
		for ; n > 0 && t.c < maxCols-1; n-- {
			t.c = min((t.c/8+1)*8, maxCols-1)
		}
	case 'Z':
		for ; n > 0 && t.c > 0; n-- {
			t.c = (t.c - 1) / 8 * 8
		}
	case 'J':
		t.eraseDisplay(param(params, 0, 0))
	case 'K':
		t.eraseLine(param(params, 0, 0))
	case 'X':
		ln := t.lines[t.r]
		for i := t.c; i < len(ln) && i < t.c+n; i++ {
			ln[i] = ' '
		}
	case 'P':
		ln := t.lines[t.r]
		if t.c < len(ln) {
			t.lines[t.r] = append(ln[:t.c], ln[min(t.c+n, len(ln)):]...)
		}
	case '@':
		ln := t.lines[t.r]
		if t.c < len(ln) {
			n = min(n, maxCols-t.c, max(t.budget, 0))
			t.budget -= n
			ln = append(ln[:t.c], append([]rune(strings.Repeat(" ", n)), ln[t.c:]...)...)
			t.lines[t.r] = ln[:min(len(ln), maxCols)]
		}
	case 'L': // lines pushed past the screen's bottom are lost
		n = min(n, t.bottom()+1-t.r)
		grow := min(n, t.bottom()+1-len(t.lines))
		for ; grow > 0; grow-- {
			t.lines = append(t.lines, nil)
		}
		copy(t.lines[t.r+n:], t.lines[t.r:])
		clear(t.lines[t.r : t.r+n])
		t.c = 0
	case 'M':
		t.lines = append(t.lines[:t.r], t.lines[min(t.r+n, len(t.lines)):]...)
		t.move(t.r, 0)
	case 's':
		t.saveR, t.saveC = t.r, t.c
	case 'u':
		t.move(t.saveR, t.saveC)
	case 'b':
		if t.last != 0 {
			n = min(n, max(t.budget, 0))
			t.budget -= n
			for ; n > 0; n-- {
				t.put(t.last)
			}
		}
	}
}

func (t *term) eraseDisplay(mode int) {
	switch mode {
	case 0:
		t.eraseLine(0)
		for i := t.r + 1; i < len(t.lines); i++ {
			t.lines[i] = t.lines[i][:0]
		}
	case 1:
		for i := t.top(); i < t.r; i++ {
			t.lines[i] = t.lines[i][:0]
		}
		t.eraseLine(1)
	case 2:
		// Only the screen is cleared on a terminal, but what scrolled off above it is no
		// longer on screen either: drop it all, keeping the cursor where it was.
		top := t.top()
		t.lines = t.lines[top : t.r+1]
		for i := range t.lines {
			t.lines[i] = t.lines[i][:0]
		}
		t.r -= top
		t.saveR = max(t.saveR-top, 0)
	case 3:
		top := t.top()
		t.lines = t.lines[top:]
		t.r -= top
		t.saveR = max(t.saveR-top, 0)
	}
}

func (t *term) eraseLine(mode int) {
	ln := t.lines[t.r]
	switch mode {
	case 0:
		if t.c < len(ln) {
			t.lines[t.r] = ln[:t.c]
			if t.c > 0 && ln[t.c-1] != wideTail && wide(ln[t.c-1]) {
				ln[t.c-1] = ' '
			}
		}
	case 1:
		for i := 0; i <= t.c && i < len(ln); i++ {
			ln[i] = ' '
		}
		if t.c+1 < len(ln) && ln[t.c+1] == wideTail {
			ln[t.c+1] = ' '
		}
	case 2:
		t.lines[t.r] = ln[:0]
	}
}

// altScreen enters or leaves the alternate screen; leaving restores what was on the
// primary screen when it was entered.
func (t *term) altScreen(enter bool) {
	switch {
	case enter && t.alt == nil:
		saved := *t
		r := t.r - t.top()
		t.alt = &saved
		t.lines = make([][]rune, r+1)
		t.r = r
	case !enter && t.alt != nil:
		budget := t.budget
		*t = *t.alt
		t.budget = budget
	}
}

// put writes ch at the cursor and moves the cursor past it, wrapping at the right edge.
func (t *term) put(ch rune) {
	w := 1
	if wide(ch) {
		w = 2
	}
	if t.c+w > maxCols {
		t.lineFeed()
		t.c = 0
	}
	ln := t.lines[t.r]
	if gap := t.c - len(ln); gap > 0 {
		if gap > t.budget {
			gap = 1
			t.c = len(ln) + 1
		}
		t.budget -= gap
		ln = widen(ln, len(ln)+gap)
	}
	ln = widen(ln, t.c+w)
	unsplit(ln, t.c)
	if w == 2 {
		unsplit(ln, t.c+1)
		ln[t.c+1] = wideTail
	}
	ln[t.c] = ch
	t.lines[t.r] = ln
	t.c += w
	t.last = ch
}

// widen returns ln padded with spaces to n cells. A line grows by at least a terminal's
// width at a time: grown a cell at a time, replaying 64 KB of output took megabytes.
func widen(ln []rune, n int) []rune {
	if n <= len(ln) {
		return ln
	}
	if cap(ln) < n {
		ln = slices.Grow(ln, max(n, 2*cap(ln), 80)-len(ln))
	}
	for len(ln) < n {
		ln = append(ln, ' ')
	}
	return ln
}

// unsplit blanks the other half of a double-width character about to lose cell i.
func unsplit(ln []rune, i int) {
	if ln[i] == wideTail && i > 0 {
		ln[i-1] = ' '
	} else if i+1 < len(ln) && ln[i+1] == wideTail {
		ln[i+1] = ' '
	}
}

// wide reports whether r takes two columns on a terminal: East Asian wide and fullwidth
// characters and the emoji blocks. It is a close approximation of wcwidth, enough to keep
// the columns of the CJK text and emoji that agents print.
func wide(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x115f,
		r >= 0x2e80 && r <= 0x303e,
		r >= 0x3041 && r <= 0x33ff,
		r >= 0x3400 && r <= 0x4dbf,
		r >= 0x4e00 && r <= 0x9fff,
		r >= 0xa000 && r <= 0xa4cf,
		r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff,
		r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f,
		r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd:
		return true
	}
	return false
}

// String returns the lines on the terminal, right-trimmed, without trailing blank lines.
func (t *term) String() string {
	var b strings.Builder
	size := 0
	for _, ln := range t.lines {
		size += len(ln) + 1
	}
	// One allocation for most text (ASCII); built a rune at a time, it took many.
	b.Grow(size)
	blank := 0 // blank lines not yet written: written only when text follows them
	for _, ln := range t.lines {
		end := len(ln)
		for end > 0 && (ln[end-1] == ' ' || ln[end-1] == wideTail) {
			end--
		}
		if end == 0 {
			blank++
			continue
		}
		if b.Len() > 0 {
			blank++
		}
		for ; blank > 0; blank-- {
			b.WriteByte('\n')
		}
		for _, r := range ln[:end] {
			if r != wideTail {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}
