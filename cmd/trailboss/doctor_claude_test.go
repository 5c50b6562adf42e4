package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDoctorClaudeCode: doctor names the Claude Code on PATH and says whether Trail Boss
// supports it, and what to do when it cannot tell or when it does not.
func TestDoctorClaudeCode(t *testing.T) {
	old := claudeVersionTimeout
	claudeVersionTimeout = 500 * time.Millisecond
	t.Cleanup(func() { claudeVersionTimeout = old })

	tests := []struct {
		name   string
		script string // the fake claude; "" for none on PATH
		level  level
		what   string // a part of the line
		fix    string // a part of the fix, if any
	}{
		{"the newest verified", "echo '2.1.332 (Claude Code)'", good, "Claude Code 2.1.332 (", ""},
		{"the oldest supported", "echo '2.1.197 (Claude Code)'", good, "): verified with Trail Boss", ""},
		{"between the two", "echo '2.1.250 (Claude Code)'", good, "): supported (verified with 2.1.197 and 2.1.332)", ""},
		{"too old", "echo '2.1.100 (Claude Code)'", bad, "is older than Trail Boss supports (2.1.197 or newer)", "claude update"},
		{"newer than verified", "echo '2.1.400 (Claude Code)'", note,
			"is newer than verified (2.1.332): should work; report problems", ""},
		{"not a version", "echo 'command not found: node'", note, `said "command not found: node"`, "run claude --version yourself"},
		{"fails", "echo oops >&2; exit 3", note, "claude --version failed (exit status 3: oops)", "run claude --version yourself"},
		{"hangs", "exec sleep 30", note, "did not answer within 500ms", "run claude --version yourself"},
		{"not on PATH", "", note, "Claude Code (claude) is not on your PATH", "claude --version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.script != "" {
				if err := os.WriteFile(filepath.Join(dir, "claude"), []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// A file called claude that cannot be run is not taken for it.
			other := t.TempDir()
			if err := os.WriteFile(filepath.Join(other, "claude"), []byte("not a program"), 0o644); err != nil {
				t.Fatal(err)
			}
			d := &doctor{getenv: func(k string) string {
				return map[string]string{"PATH": other + string(os.PathListSeparator) + dir}[k]
			}}
			start := time.Now()
			f := d.claudeCode(context.Background())
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("doctor took %v", took)
			}
			if f.level != tt.level || !strings.Contains(f.what, tt.what) || !strings.Contains(f.fix, tt.fix) {
				t.Errorf("got %s %q (fix %q); want %s with %q (fix with %q)", f.level.mark(), f.what, f.fix, tt.level.mark(), tt.what, tt.fix)
			}
			if tt.script != "" && tt.level != note && !strings.Contains(f.what, filepath.Join(dir, "claude")) {
				t.Errorf("%q does not say which claude", f.what)
			}
		})
	}
}
