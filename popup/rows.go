package popup

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
)

// row is one queue item as the popup shows it: the text of each column, and its width,
// worked out once per refresh rather than once per frame.
type row struct {
	item    client.Item
	pos     int    // place in the queue from 1: the number shown, filtered or not
	num     string // pos as shown: "4", or "4~" while cooling
	reason  string // "permission/Bash"
	kind    string // the reason without its detail: "permission"
	where   string // "main:2", or why there is no such place
	session string // where as its session and window, "main" and ":2"; "" when where is
	window  string // not a place
	project string // base of the folder
	branch  string
	summary string // one line
	jumpErr string // why Enter cannot land here, or ""
	text    string // everything the filter matches, lower-cased

	question string  // its pending prompt's question, one line; "" without a prompt
	offers   []offer // what its prompt offers, with the keys that pick each
	// long is the length of a permission's command that the prompt block cannot show
	// whole ("1,956 characters"; set by at): its question is then its head … its tail,
	// and Allow is not offered.
	long string

	reasonW, kindW, whereW, projectW, summaryW int // display widths (projectW with the branch)
}

// buildRows turns a snapshot into rows, ready items first then cooling ones, each group in
// the daemon's order (which already is that order: the partition only guards the view).
// A row's position is its place in that order. socket is the tmux server the popup runs
// on; a client can only land on its panes.
func buildRows(s Snapshot, socket string) []row {
	rows := make([]row, 0, len(s.Items))
	for _, cooling := range []bool{false, true} {
		for _, it := range s.Items {
			if it.Ready == cooling {
				continue
			}
			rows = append(rows, newRow(it, len(rows)+1, s, socket))
		}
	}
	return rows
}

func newRow(it client.Item, pos int, s Snapshot, socket string) row {
	r := row{item: it, pos: pos, num: strconv.Itoa(pos), reason: sanitize(it.Reason), summary: sanitize(it.Summary)}
	if !it.Ready {
		r.num += "~"
	}
	r.kind = r.reason
	if it.Detail != "" {
		r.reason += "/" + sanitize(it.Detail)
	}
	dir := it.Cwd
	var windowName string
	switch {
	case it.Host != "":
		// Another machine's pane: the jump there (ssh -t HOST trailboss attach) is to come.
		// Its prompt is answered from here all the same: the hub forwards the answer to
		// that machine's daemon, which decides.
		r.where, r.jumpErr = sanitize(it.Host)+":"+it.Pane, "its pane is on "+sanitize(it.Host)+": go there to answer it"
		if it.Prompt != nil {
			r.jumpErr = "its pane is on " + sanitize(it.Host) + ": answer its prompt from here, or go there"
		}
	case it.Pane == "":
		r.where, r.jumpErr = "no pane", "it has no tmux pane"
	case socket != "" && it.TmuxSocket != "" && it.TmuxSocket != socket:
		r.where, r.jumpErr = "other tmux", "its pane "+it.Pane+" is on another tmux server"
	case s.Panes == nil:
		r.where = it.Pane // list-panes failed: the pane id is all we know
	default:
		p, ok := s.Panes[it.Pane]
		if !ok {
			r.where, r.jumpErr = "gone", "its pane "+it.Pane+" is gone"
			break
		}
		r.session, r.window = sanitize(p.SessionName), ":"+strconv.Itoa(p.WindowIndex)
		r.where = r.session + r.window
		windowName = sanitize(p.WindowName)
		if dir == "" {
			dir = p.CurrentPath
		}
	}
	if dir != "" {
		r.project = sanitize(filepath.Base(dir))
		r.branch = s.Branches[dir]
	}
	r.reasonW, r.kindW, r.whereW = ansi.StringWidth(r.reason), ansi.StringWidth(r.kind), ansi.StringWidth(r.where)
	r.projectW, r.summaryW = ansi.StringWidth(r.projectText()), ansi.StringWidth(r.summary)
	if it.Prompt != nil {
		r.question, r.offers = sanitize(it.Prompt.Question), offersFor(*it.Prompt)
	}
	r.text = strings.ToLower(strings.Join([]string{r.reason, r.where, windowName, it.Pane, r.project, r.branch, r.summary, r.question}, " "))
	return r
}

// matches reports whether r holds every word of filter (case-insensitive).
func (r row) matches(filter string) bool {
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if !strings.Contains(r.text, w) {
			return false
		}
	}
	return true
}

// commandLines is how many lines the prompt block gives a permission's command.
const commandLines = 6

// at returns r as the prompt block shows it at width cells: a permission's command that
// does not fit whole in commandLines lines, or whose record kept only its start, becomes
// its head … its tail with its length, and loses its Allow — only what is shown is
// approved from here.
func (r row) at(width int) row {
	p := r.item.Prompt
	if p == nil || p.Kind != wire.KindPermission || r.question == "" {
		return r
	}
	q := []rune(r.question)
	cut := adapter.Cut(p.Question) // cut as its record was made: only its start is known
	if !cut && len(wrap(r.question, width, commandLines+1)) <= commandLines {
		return r
	}
	end := max(10, 2*width-4) // runes of each end: the two and " … " in about five lines
	if cut {
		r.long = "over " + thousands(len(q)-1) + " characters"
		r.question = string(q[:min(len(q)-1, 2*end)]) + " … (the rest was not kept)"
	} else {
		r.long = thousands(len([]rune(strings.TrimSpace(p.Question)))) + " characters"
		if len(q) > 2*end {
			r.question = string(q[:end]) + " … " + string(q[len(q)-end:])
		}
	}
	offers := make([]offer, 0, len(r.offers))
	for _, o := range r.offers {
		if o.choice != wire.ChoiceAllow {
			offers = append(offers, o)
		}
	}
	r.offers = offers
	return r
}

// thousands writes n with a comma every three digits: 1,956.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// sanitize makes s one line that is safe to draw: whitespace runs become one space,
// control characters (an escape sequence's ESC included) are dropped, and format
// characters (bidi overrides, zero-width) are shown as marks (adapter.FormatMark).
func sanitize(s string) string {
	var b strings.Builder
	space := false
	for _, c := range s {
		switch {
		case unicode.IsSpace(c):
			space = b.Len() > 0
		case unicode.IsControl(c) || c == unicode.ReplacementChar:
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			if mark, ok := adapter.FormatMark(c); ok {
				b.WriteString(mark)
				continue
			}
			b.WriteRune(c)
		}
	}
	return b.String()
}

// sanitizeScreen makes a captured pane safe to draw, line by line: tabs become spaces and
// other control characters are dropped. Trailing blank lines are cut.
func sanitizeScreen(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		var b strings.Builder
		for _, c := range l {
			switch {
			case c == '\t':
				b.WriteString("    ")
			case unicode.IsControl(c):
			default:
				b.WriteRune(c)
			}
		}
		lines[i] = strings.TrimRight(b.String(), " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
