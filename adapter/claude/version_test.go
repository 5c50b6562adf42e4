package claude

import "testing"

func TestCheckVersion(t *testing.T) {
	tests := []struct {
		in    string
		want  Support
		plain string
	}{
		{"2.1.197 (Claude Code)", Verified, "2.1.197"},
		{"2.1.332 (Claude Code)", Verified, "2.1.332"},
		{"2.1.332", Verified, "2.1.332"},
		{"v2.1.250", Supported, "2.1.250"},
		{"2.1.196 (Claude Code)", TooOld, "2.1.196"},
		{"1.0.128 (Claude Code)", TooOld, "1.0.128"},
		{"2.0.999", TooOld, "2.0.999"},
		{"2.1.333 (Claude Code)", NewerThanVerified, "2.1.333"},
		{"2.10.0", NewerThanVerified, "2.10.0"}, // numbers, not strings: 10 > 1
		{"3.0.0-beta.1", NewerThanVerified, "3.0.0"},
		{"", VersionUnreadable, ""},
		{"Claude Code", VersionUnreadable, ""},
		{"2.1", VersionUnreadable, ""},
		{"2.1.x", VersionUnreadable, ""},
		{"2.-1.5", VersionUnreadable, ""},
		{"2.+1.5", VersionUnreadable, ""},
	}
	for _, tt := range tests {
		got, plain := CheckVersion(tt.in)
		if got != tt.want || plain != tt.plain {
			t.Errorf("CheckVersion(%q) = %v, %q; want %v, %q", tt.in, got, plain, tt.want, tt.plain)
		}
	}
}
