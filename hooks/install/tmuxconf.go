package install

import (
	"bytes"
	"fmt"
	"strings"
)

// Markers of the block setup adds to tmux.conf: whole lines.
const (
	blockStart = "# >>> trailboss >>>"
	blockEnd   = "# <<< trailboss <<<"
)

// TmuxBlock is what setup adds to the tmux config: one line that runs tmux-conf --apply
// when tmux reads its config, so the keys follow the @trailboss-*-key options, the status
// segment is added once however often the config is sourced, and the daemon is started.
func TmuxBlock(bin string) string {
	return blockStart + "\n" +
		"# Trail Boss keys and status segment. `trailboss setup --undo` removes this block.\n" +
		"run-shell " + TmuxQuote(bin+" tmux-conf --apply") + "\n" +
		blockEnd + "\n"
}

// findBlock returns where the trailboss block starts and where its end marker's line ends
// (before its newline), or ok=false. Markers are whole lines. A start marker without an
// end is an error.
func findBlock(conf []byte) (start, end int, ok bool, err error) {
	start = -1
	for off := 0; off < len(conf); {
		n := bytes.IndexByte(conf[off:], '\n')
		lineEnd := len(conf)
		if n >= 0 {
			lineEnd = off + n
		}
		line := string(bytes.TrimRight(conf[off:lineEnd], " \t\r"))
		switch {
		case start < 0 && line == blockStart:
			start = off
		case start >= 0 && line == blockEnd:
			return start, lineEnd, true, nil
		}
		off = lineEnd + 1
	}
	if start >= 0 {
		return 0, 0, false, fmt.Errorf("the trailboss block has a start marker %q but no end marker %q: fix it by hand", blockStart, blockEnd)
	}
	return 0, 0, false, nil
}

// AddTmuxBlock returns conf with block at its end, or with the block already there
// replaced by block. When conf lacks a final newline, the newline the block needs goes
// before it and the block ends without one, so that RemoveTmuxBlock can give back conf
// exactly.
func AddTmuxBlock(conf []byte, block string) ([]byte, error) {
	start, end, ok, err := findBlock(conf)
	if err != nil {
		return nil, err
	}
	body := strings.TrimSuffix(block, "\n")
	if ok {
		return spliceBytes(conf, start, end, body), nil
	}
	switch {
	case len(conf) == 0, conf[len(conf)-1] == '\n':
		return append(bytes.Clone(conf), block...), nil
	default:
		return append(bytes.Clone(conf), "\n"+body...), nil
	}
}

// RemoveTmuxBlock returns conf without the block AddTmuxBlock added, and whether there was
// one.
func RemoveTmuxBlock(conf []byte) ([]byte, bool, error) {
	start, end, ok, err := findBlock(conf)
	if err != nil || !ok {
		return conf, false, err
	}
	if end < len(conf) && conf[end] == '\n' {
		return spliceBytes(conf, start, end+1, ""), true, nil
	}
	if start > 0 { // the block ends the file without a newline: the one before it is ours
		start--
	}
	return spliceBytes(conf, start, end, ""), true, nil
}

func spliceBytes(b []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(b)-(to-from)+len(with))
	out = append(out, b[:from]...)
	out = append(out, with...)
	return append(out, b[to:]...)
}

// TmuxQuote quotes s as one double-quoted tmux config word.
func TmuxQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`)
	return `"` + r.Replace(s) + `"`
}

// HasTmuxBlock reports whether conf already holds a trailboss block.
func HasTmuxBlock(conf []byte) bool {
	_, _, ok, err := findBlock(conf)
	return ok || err != nil
}
