package tmuxctl

import (
	"errors"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		stderr string
		want   error
	}{
		{"no server running on /tmp/tbx1/s", ErrNoServer},
		{"error connecting to /tmp/tbx1/s (No such file or directory)", ErrNoServer},
		{"error connecting to /tmp/tbx1/s (Connection refused)", ErrNoServer},
		{"server exited unexpectedly", ErrNoServer},
		{"error connecting to /tmp/tbx1/s (Permission denied)", nil},
		{"can't find pane: %999", ErrNoPane},
		{"can't find client: /dev/pts/99", ErrNoClient},
		{"no current client", ErrNoClient},
		{"can't find session: nosuch", nil},
		{"unknown command: frob", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := classify(tt.stderr); got != tt.want {
			t.Errorf("classify(%q) = %v, want %v", tt.stderr, got, tt.want)
		}
	}
}

func TestArg(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"", ""},
		{";", `\;`},
		{"abc;", `abc\;`},
		{`abc\;`, `abc\\;`},
		{"a;b", "a;b"},
		{"; kill-server", "; kill-server"},
	}
	for _, tt := range tests {
		if got := arg(tt.in); got != tt.want {
			t.Errorf("arg(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCheckPaneAndClient(t *testing.T) {
	for _, p := range []string{"%1;kill-server", "-t", "%", "%99999999999999999999", "", "1", "%1 ", "@1"} {
		if err := checkPane(p); !errors.Is(err, ErrInvalidTarget) {
			t.Errorf("checkPane(%q) = %v, want ErrInvalidTarget", p, err)
		}
	}
	for _, p := range []string{"%0", "%1", "%4294967295"} {
		if err := checkPane(p); err != nil {
			t.Errorf("checkPane(%q) = %v, want nil", p, err)
		}
	}
	for _, c := range []string{"-t", "-", "", "--"} {
		if err := checkClient(c); !errors.Is(err, ErrInvalidTarget) {
			t.Errorf("checkClient(%q) = %v, want ErrInvalidTarget", c, err)
		}
	}
	for _, c := range []string{"/dev/pts/3", "client-1234"} {
		if err := checkClient(c); err != nil {
			t.Errorf("checkClient(%q) = %v, want nil", c, err)
		}
	}
}
