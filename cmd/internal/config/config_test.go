package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadSaysWhatASettingTakes: a value of the wrong type is reported with the file, the
// line and what the setting takes, in words, not the Go field it could not fill.
func TestLoadSaysWhatASettingTakes(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"addr = 4000\n", `config.toml:1: addr: must be text in quotes, not an integer`},
		{"[delivery]\nenabled = \"yes\"\n", `config.toml:2: delivery.enabled: must be true or false, not a string`},
		{"[telegram]\nchat_id = \"x\"\n", `config.toml:2: telegram.chat_id: must be a whole number, not a string`},
		{"colour = \"red\"\n", `config.toml:1: unknown setting "colour" (known: addr,`},
		{"[[hosts]]\nname = \"a\"\nssh_options = \"-p 22\"\n", `config.toml:3: hosts.ssh_options: must be a list of text in quotes, such as ["-p", "2222"], not a string`},
		{"hosts = \"devbox\"\n", `config.toml:1: hosts: must be [[hosts]] tables, one per machine, each with name and ssh, not a string`},
		{"[[hosts]]\nname = \"a\"\nport = 22\n", `config.toml:3: unknown setting "hosts.port" (known: addr,`},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "trailboss"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "trailboss", "config.toml"), []byte(tt.file), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				return dir
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.file, err, tt.want)
		}
	}
}

func TestTypeMismatch(t *testing.T) {
	for _, tt := range []struct {
		msg, kind string
		ok        bool
	}{
		{"cannot decode TOML integer into struct field config.File.Addr of type string", "integer", true},
		{"cannot decode TOML string into struct field config.File.Delivery.Enabled of type bool", "string", true},
		{"cannot decode TOML  into x", "", false},
		{"cannot decode TOML two words into x", "", false},
		{"something else", "", false},
	} {
		if kind, ok := typeMismatch(tt.msg); kind != tt.kind || ok != tt.ok {
			t.Errorf("typeMismatch(%q) = %q, %v; want %q, %v", tt.msg, kind, ok, tt.kind, tt.ok)
		}
	}
}
