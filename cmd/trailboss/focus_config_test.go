package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFocusConfig: [focus] advance is off unless "after_answer"; advance_after defaults to
// 2s; a wrong value is refused with the setting named and what it takes.
func TestFocusConfig(t *testing.T) {
	cases := []struct {
		toml    string
		want    time.Duration
		wantErr string
	}{
		{"", 0, ""},
		{"[focus]\nadvance = \"off\"\nadvance_after = \"5s\"\n", 0, ""},
		{"[focus]\nadvance = \"after_answer\"\n", 2 * time.Second, ""},
		{"[focus]\nadvance = \"after_answer\"\nadvance_after = \"750ms\"\n", 750 * time.Millisecond, ""},
		{"[focus]\nadvance = \"always\"\n", 0, `[focus] advance = "always": use "after_answer"`},
		{"[focus]\nadvance = \"after_answer\"\nadvance_after = \"10ms\"\n", 0, "[focus] advance_after must be between 500ms and 1h"},
		{"[focus]\nspeed = 1\n", 0, `unknown setting "focus.speed"`},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "trailboss"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "trailboss", "config.toml"), []byte(c.toml), 0o600); err != nil {
			t.Fatal(err)
		}
		getenv := func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				return dir
			}
			return ""
		}
		cfg, err := loadConfig(getenv)
		if err == nil {
			err = checkFocus(cfg, "config.toml")
		}
		switch {
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%q: error %v, want one saying %q", c.toml, err, c.wantErr)
		case c.wantErr == "" && err != nil:
			t.Errorf("%q: %v", c.toml, err)
		case c.wantErr == "" && focusAdvance(cfg) != c.want:
			t.Errorf("%q: advance after %v, want %v", c.toml, focusAdvance(cfg), c.want)
		}
	}
}
