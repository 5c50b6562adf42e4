package tmuxctl

import "testing"

func TestParseVersion(t *testing.T) {
	tests := []struct {
		out, want string
		ok        bool
	}{
		{"tmux 3.3a\n", "3.3a", true},
		{"tmux next-3.4\n", "next-3.4", true},
		{"tmux master", "master", true},
		{"", "", false},
		{"tmux \n", "", false},
		{"screen 4.9\n", "", false},
		{"tmux 3.3a extra\n", "", false},
	}
	for _, tt := range tests {
		got, err := parseVersion(tt.out)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseVersion(%q) = %q, %v; want %q, ok=%v", tt.out, got, err, tt.want, tt.ok)
		}
	}
}
