package prompt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var stripTests = []struct {
	name, in, want string
}{
	// Claude Code draws the space between words with cursor-forward.
	{"glued words", "Do\x1b[1Cyou\x1b[1Cwant", "Do you want"},
	{"cursor-forward to a border", "│ Yes\x1b[6C│", "│ Yes      │"},
	{"cursor-forward before any text", "\x1b[3Cindented", "   indented"},

	{"CUP places text on a cleared screen",
		"\x1b[2J\x1b[H\x1b[1;1HDo you want\x1b[1;13Hto proceed?\x1b[3;3H1. Yes",
		"Do you want to proceed?\n\n  1. Yes"},
	{"CUP home then erase line", "\x1b[1;1Hold text here\x1b[1;1H\x1b[2Knew", "new"},
	{"VPA and CHA", "\x1b[3d\x1b[5Gx", "\n\n    x"},
	{"erase to end of line", "abcdef\x1b[3D\x1b[K", "abc"},
	{"erase to start of line", "abcdef\x1b[3D\x1b[1K", "    ef"},
	{"erase below", "line1\nline2\nline3\x1b[2A\x1b[3G\x1b[J", "li"},
	{"erase screen drops what was shown", "old screen\nmore\x1b[2J\x1b[Hnew", "new"},
	{"erase scrollback keeps the screen", "a\x1b[3Jb", "ab"},
	{"erase scrollback drops what scrolled off", strings.Repeat("old\n", screenRows+100) + "\x1b[3Jx",
		strings.Repeat("old\n", screenRows-1) + "x"},
	{"erase characters", "abcdef\x1b[4D\x1b[2X", "ab  ef"},
	{"delete characters", "abcdef\x1b[4D\x1b[2P", "abef"},
	{"insert blanks", "abcdef\x1b[4D\x1b[2@", "ab  cdef"},
	{"insert line", "a\nb\x1b[A\x1b[Lc", "c\na\nb"},
	{"delete line", "a\nb\nc\x1b[2A\x1b[Mz", "z\nc"},
	{"cursor up then overwrite", "one\ntwo\x1b[1A\rONE", "ONE\ntwo"},
	{"cursor next and previous line", "a\x1b[2Eb\x1b[Fc", "a\nc\nb"},
	{"save and restore cursor (CSI)", "abc\x1b[s\x1b[5Cxyz\x1b[u!", "abc!    xyz"},
	{"save and restore cursor (ESC 7/8)", "abc\x1b7\x1b[5Cxyz\x1b8!", "abc!    xyz"},
	{"reverse index", "a\nb\x1bMc", "ac\nb"},
	{"repeat last character", "x\x1b[3b", "xxxx"},
	{"tab stops", "a\tb\x1b[2Ic", "a" + strings.Repeat(" ", 7) + "b" + strings.Repeat(" ", 15) + "c"},
	{"back tab", "abcdefghij\x1b[Zx", "abcdefghxj"},
	{"full reset", "gone\x1bcstays", "stays"},

	{"carriage return redraws the line", "Loading... \rLoading. Done!\r\n", "Loading. Done!"},
	{"carriage return overwrites only what it rewrites", "Downloading 10%\rDone", "Doneloading 10%"},
	{"spinner redrawn over itself",
		"\r\x1b[2K✻ Thinking…\r\x1b[2K✶ Thinking…\r\x1b[2K✻ Thinking… (2s)", "✻ Thinking… (2s)"},
	{"Ink frames erase the frame before", ink("first\nframe", "second"), "second"},
	{"backspace", "ab\bc", "ac"},

	{"SGR removed", "\x1b[1;38;2;215;119;87mred\x1b[0m \x1b[38:5:1mx\x1b[m", "red x"},
	{"private modes removed", "\x1b[?25l\x1b[?2004hok\x1b[?25h", "ok"},
	{"cursor style with intermediate", "a\x1b[2 qb", "ab"},
	{"OSC title ended by BEL", "\x1b]0;✳ Claude Code\x07Hello", "Hello"},
	{"OSC hyperlink ended by ST", "\x1b]8;;https://x.dev\x1b\\link\x1b]8;;\x1b\\ text", "link text"},
	{"DCS removed", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
	{"charset designation", "\x1b(B\x1b)0abc", "abc"},
	{"keypad mode", "\x1b=a\x1b>b", "ab"},

	{"truncated CSI", "abc\x1b[38;5", "abc"},
	{"lone ESC at the end", "abc\x1b", "abc"},
	{"truncated OSC", "abc\x1b]0;title", "abc"},
	{"unterminated OSC ends at a newline", "\x1b]0;title\nnext", "\nnext"},
	{"OSC cut short by another escape", "\x1b]0;title\x1b[1mbold", "bold"},
	{"CSI broken by a control", "a\x1b[12\x07b", "ab"},
	{"CSI broken by an escape", "a\x1b[1\x1b[31mb", "ab"},
	{"CSI broken by a non-ASCII byte", "a\x1b[1é", "aé"},
	{"ESC before non-ASCII", "a\x1bé", "aé"},
	{"truncated charset designation", "a\x1b(", "a"},
	{"huge parameter is capped",
		"a\x1b[99999999999999999999999Cb", "a" + strings.Repeat(" ", maxCols-2) + "b"},
	{"huge CUP row stays on screen", "a\x1b[99999;1Hb", "a" + strings.Repeat("\n", screenRows-1) + "b"},

	{"CRLF", "one\r\ntwo\r\n\r\n", "one\ntwo"},
	{"lone CR before CRLF", "one\r\r\ntwo", "one\ntwo"},
	{"trailing spaces and blank lines trimmed", "a  \n\n  \n", "a"},
	{"invalid UTF-8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
	{"C0 and C1 controls dropped", "a\x00\x01\x0e\u009b31mb\x7f", "a31mb"},
	{"wide characters overwritten by half", "你好\rX", "X 好"},
	{"wide character split by erase", "ab你\x1b[1D\x1b[K", "ab"},
	{"long lines wrap", strings.Repeat("x", maxCols+3), strings.Repeat("x", maxCols) + "\nxxx"},
	{"alternate screen restores the shell", "shell$ vim\x1b[?1049h\x1b[H~\n~ editing\x1b[?1049l", "shell$ vim"},
	{"alternate screen left open shows itself", "shell$ less\x1b[?1049h\x1b[Hpage one", "page one"},
	{"empty", "", ""},
}

func TestStripANSI(t *testing.T) {
	for _, tt := range stripTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripANSI(tt.in); got != tt.want {
				t.Errorf("StripANSI(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// A hostile stream of long cursor jumps must not make StripANSI hold many times its input:
// past a budget of cells, jumps fold to one space.
func TestStripANSIMemoryIsLinear(t *testing.T) {
	in := strings.Repeat("\x1b[1000Gx\n", 20000)
	out := StripANSI(in)
	if len(out) > 10*len(in) {
		t.Fatalf("StripANSI made %d bytes of %d input bytes", len(out), len(in))
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 20000 || lines[0] != strings.Repeat(" ", 999)+"x" || lines[len(lines)-1] != " x" {
		t.Errorf("got %d lines, first %d bytes, last %q", len(lines), len(lines[0]), lines[len(lines)-1])
	}
}

func FuzzStripANSI(f *testing.F) {
	for _, tt := range stripTests {
		f.Add(tt.in)
	}
	for _, s := range claudeScreens() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := StripANSI(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 in %q", out)
		}
		for _, r := range out {
			if r == 0x1b || (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) {
				t.Fatalf("control %U left in %q", r, out)
			}
		}
		if again := StripANSI(out); again != out {
			t.Fatalf("not idempotent:\n once %q\ntwice %q", out, again)
		}
	})
}
