package hooks

import "testing"

func TestShellWord(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"trailboss", "trailboss"},
		{"/usr/local/bin/trailboss-hot", "/usr/local/bin/trailboss-hot"},
		{"a_b.c/d+e:f@g%h=i,j-k", "a_b.c/d+e:f@g%h=i,j-k"},
		{"", "''"},
		{"/my dir/trailboss", "'/my dir/trailboss'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"a;b", "'a;b'"},
		{"é", "'é'"},
		{"a\nb", "'a\nb'"},
	} {
		if got := ShellWord(tt.in); got != tt.want {
			t.Errorf("ShellWord(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
