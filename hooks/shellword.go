// Package hooks is how the agents' hooks reach Trail Boss: emit is the command every hook
// runs, install writes Trail Boss into the agents' settings and tmux.conf. This package holds
// what both share.
package hooks

import "strings"

// plainWord reports whether sh reads s as one literal word, quoted or not: it is not empty
// and holds only A-Z a-z 0-9 _ . / + : @ % = , -. (Checked by hand rather than with a
// regexp: this package is linked into every hook, and a package-level regexp is compiled at
// each start.)
func plainWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case strings.IndexByte("_./+:@%=,-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// ShellWord returns s as one word for sh: as it is when nothing in it is special to sh,
// else in single quotes. Every command line Trail Boss writes for a shell (hook commands,
// tmux lines, the fixes doctor prints) quotes with it.
func ShellWord(s string) string {
	if plainWord(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
