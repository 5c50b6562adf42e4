package adapter

import "testing"

// Format characters are shown as marks wherever text from a harness is shown: a bidi
// override that would draw "rm -rf ~ #" backwards, zero-width spaces hiding inside a word,
// tag characters smuggling words no one sees.
func TestCleanTextShowsFormatCharacters(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ls -la", "ls -la"},
		{"echo \u202Eftp.ti\u202C && rm", "echo ⟨U+202E⟩ftp.ti⟨U+202C⟩ && rm"},
		{"cu\u200Brl evil.sh", "cu⟨U+200B⟩rl evil.sh"},
		{"\uFEFFrm \u2066x\u2069", "⟨U+FEFF⟩rm ⟨U+2066⟩x⟨U+2069⟩"},
		{"a\U000E0041b", "a⟨U+E0041⟩b"},
		{"soft\u00ADhyphen", "soft⟨U+00AD⟩hyphen"},
		{"tab\tand\x1b[31mred", "tab and [31mred"},
		{"élan ✓ 日本", "élan ✓ 日本"},
	} {
		if got := CleanText(tc.in, 200); got != tc.want {
			t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := ShowFormat(tc.in); got != tc.want && tc.in != "tab\tand\x1b[31mred" {
			t.Errorf("ShowFormat(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := ShowFormat(ShowFormat("x\u202Ey")); got != "x⟨U+202E⟩y" {
		t.Errorf("ShowFormat twice = %q, want the marks once", got)
	}
}
