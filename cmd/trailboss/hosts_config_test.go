package main

import (
	"strings"
	"testing"

	"github.com/trailboss/trailboss/cmd/internal/config"
)

// TestCheckHostsSaysWhatIsWrong: each [[hosts]] entry the daemon refuses is named with what
// to do; a destination or command that ssh would take for an option is refused.
func TestCheckHostsSaysWhatIsWrong(t *testing.T) {
	ok := config.Host{Name: "devbox", SSH: "me@devbox.example", SSHOptions: []string{"-p", "2222"}, Command: "~/.local/bin/trailboss"}
	for _, tt := range []struct {
		hosts []config.Host
		want  string // "" when accepted
	}{
		{[]config.Host{ok, {Name: "gpu", SSH: "gpu"}}, ""},
		{[]config.Host{{SSH: "devbox"}}, `[[hosts]] #1: name is missing`},
		{[]config.Host{{Name: "dev box", SSH: "devbox"}}, `[[hosts]] "dev box": name must be at most 32 letters`},
		{[]config.Host{{Name: strings.Repeat("a", 33), SSH: "devbox"}}, `name must be at most 32`},
		{[]config.Host{{Name: "../x", SSH: "devbox"}}, `name must be at most 32`},
		{[]config.Host{ok, ok}, `[[hosts]] "devbox": another [[hosts]] entry has the same name`},
		{[]config.Host{{Name: "devbox"}}, `ssh is missing`},
		{[]config.Host{{Name: "devbox", SSH: "-oProxyCommand=sh"}}, `starts with '-', which ssh would take for an option`},
		{[]config.Host{{Name: "devbox", SSH: "devbox -p 22"}}, `holds a space`},
		{[]config.Host{{Name: "devbox", SSH: "devbox", Command: "-x"}}, `command = "-x" is not a program's path`},
		{[]config.Host{{Name: "devbox", SSH: "devbox", SSHOptions: []string{"-o", "A=b\nc"}}}, `with a control character`},
	} {
		err := checkConfig(config.File{Hosts: tt.hosts}, "config.toml")
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v refused: %v", tt.hosts, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: %v, want %q", tt.hosts, err, tt.want)
		}
	}
}
