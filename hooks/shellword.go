// Package hooks is how the agents' hooks reach Trail Boss: emit is the command every hook
// runs, install writes Trail Boss into the agents' settings and tmux.conf. This package holds
// what both share.
package hooks

import (
	"regexp"
	"strings"
)

// plainWord is what sh reads as one literal word, quoted or not.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./+:@%=,-]+$`)

// ShellWord returns s as one word for sh: as it is when nothing in it is special to sh,
// else in single quotes. Every command line Trail Boss writes for a shell (hook commands,
// tmux lines, the fixes doctor prints) quotes with it.
func ShellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
