package demo

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDemoKeysFor: inside a tmux whose prefix is also Ctrl-b the demo's prefix is pressed
// twice; outside tmux, or inside one with another prefix, once.
func TestDemoKeysFor(t *testing.T) {
	for _, tc := range []struct {
		outer, prefix string
		nested        bool
	}{
		{"", "Ctrl-b", false},
		{"C-b", "Ctrl-b Ctrl-b", true},
		{"C-a", "Ctrl-b", false},
	} {
		k := KeysFor(tc.outer)
		if k.prefix != tc.prefix || k.nested != tc.nested {
			t.Errorf("KeysFor(%q) = %+v, want prefix %q nested %v", tc.outer, k, tc.prefix, tc.nested)
		}
		if w := k.welcome(); !strings.Contains(w, tc.prefix+" Tab") || !strings.Contains(w, tc.prefix+" F") ||
			strings.Contains(w, "twice") != tc.nested {
			t.Errorf("outer prefix %q: the welcome text does not say %[2]q Tab and %[2]q F, or says twice wrongly:\n%s", tc.outer, tc.prefix, w)
		}
		for _, l := range strings.Split(k.welcome(), "\n") {
			if n := utf8.RuneCountInString(l); n > 78 {
				t.Errorf("outer prefix %q: a welcome line is %d columns, more than an 80-column terminal shows: %q", tc.outer, n, l)
			}
		}
	}
}
