package popup

import "github.com/charmbracelet/x/ansi"

// The list's columns, left to right: #, AGE, REASON, WHERE, PROJECT, SUMMARY. The summary
// says what the agent wants, so it is the column the others make room for: at any width
// each row shows at least summaryWant cells of it when the others can be shrunk or dropped
// far enough (see fitColumns).

// widths are what each column needs to show all of its text in every shown row, never
// less than its head.
type widths struct {
	num      int
	age      int // cooling rows saying "cooling 42s"
	ageShort int // cooling rows saying "~42s"
	reason   int // "permission/Bash"
	kind     int // the reasons without their detail: "permission"
	where    int
	project  int // with the branches
	summary  int
}

// columns is the list's layout: the width of each column, 0 for a dropped one (the number
// is never dropped), and which shorter forms the text takes.
type columns struct {
	num, age, reason, where, project, summary int

	kindOnly  bool // reasons without their detail: "permission" for "permission/Bash"
	coolShort bool // cooling rows say "~42s" rather than "cooling 42s"
}

const (
	colGap      = 2  // between two columns
	cursorWidth = 2  // "› " in front of each row
	summaryWant = 31 // 30 cells of summary and the "…" of a cut one

	// The widest a column grows, so that one long name does not take a whole row.
	maxReason, maxWhere, maxProject = 22, 16, 28
	// How far project and where shrink before a column is dropped: a project's name with a
	// little of its branch, and a session name's first letters with the window.
	minProject, minWhere = 10, 6
)

// The columns' heads; a shown column is never narrower than its head.
const (
	headNum, headAge, headReason, headWhere, headProject, headSummary = "#", "AGE", "REASON", "WHERE", "PROJECT", "SUMMARY"
)

// fitColumns lays the columns out in width cells (0: unknown, every column at its full
// width). Each column starts at its full width, capped; while the summary would get
// fewer than summaryWant cells (or fewer than it needs, when it is shorter), the next of
// these steps is taken:
//
//  1. the project shrinks to minProject (its branch is cut first, then dropped);
//  2. the place shrinks to minWhere (the session name is cut, the window kept);
//  3. the reason loses its detail ("permission/Bash" is "permission");
//  4. the project shrinks to its head's width (the branches go);
//  5. cooling rows say "~42s" instead of "cooling 42s";
//  6. the WHERE column is dropped (the preview's rule still names the selected row's);
//  7. the PROJECT column is dropped (the preview's rule names it too);
//  8. the REASON column is dropped;
//  9. the AGE column is dropped.
//
// The summary then takes what is left, which is more than summaryWant when the steps
// freed more than needed. The number column and the summary are never dropped.
func fitColumns(w widths, width int) columns {
	c := columns{
		num:     max(w.num, len(headNum)),
		age:     max(w.age, len(headAge)),
		reason:  max(min(w.reason, maxReason), len(headReason)),
		where:   max(min(w.where, maxWhere), len(headWhere)),
		project: max(min(w.project, maxProject), len(headProject)),
	}
	if width <= 0 {
		c.summary = w.summary
		return c
	}
	want := min(max(w.summary, len(headSummary)), summaryWant)
	need := func() int { return want - c.room(width) }
	shrink := func(col *int, floor int) { *col = max(min(*col, floor), *col-need()) }
	steps := []func(){
		func() { shrink(&c.project, minProject) },
		func() { shrink(&c.where, minWhere) },
		func() {
			c.kindOnly = true
			c.reason = max(min(w.kind, maxReason), len(headReason))
		},
		func() { shrink(&c.project, len(headProject)) },
		func() {
			c.coolShort = true
			c.age = max(w.ageShort, len(headAge))
		},
		func() { c.where = 0 },
		func() { c.project = 0 },
		func() { c.reason = 0 },
		func() { c.age = 0 },
	}
	for _, step := range steps {
		if need() <= 0 {
			break
		}
		step()
	}
	c.summary = max(0, c.room(width))
	return c
}

// room is what a row of width cells leaves for the summary.
func (c columns) room(width int) int {
	used := cursorWidth + c.num + colGap
	for _, w := range []int{c.age, c.reason, c.where, c.project} {
		if w > 0 {
			used += w + colGap
		}
	}
	return width - used
}

// reasonText is r's reason as the layout shows it.
func (c columns) reasonText(r row) string {
	if c.kindOnly {
		return clip(r.kind, c.reason)
	}
	return clip(r.reason, c.reason)
}

// whereText is r's place in n cells: a session name too long is cut and its window kept
// ("long-sess…:3").
func whereText(r row, n int) string {
	if r.whereW <= n {
		return r.where
	}
	if ww := ansi.StringWidth(r.window); r.session != "" && n-ww >= 2 {
		return clip(r.session, n-ww) + r.window
	}
	return clip(r.where, n)
}

// projectText is the folder with its branch, "web (dark-mode)".
func (r row) projectText() string {
	if r.branch == "" {
		return r.project
	}
	return r.project + " (" + r.branch + ")"
}

// projectParts are r's folder and branch in n cells, the branch as " (dark-…)" or "": the
// branch is cut first, and dropped when fewer than two of its letters would show.
func projectParts(r row, n int) (name, branch string) {
	if r.projectW <= n {
		if r.branch == "" {
			return r.project, ""
		}
		return r.project, " (" + r.branch + ")"
	}
	pw := ansi.StringWidth(r.project)
	if room := n - pw - len(" ()"); r.branch != "" && room >= 3 {
		return r.project, " (" + clip(r.branch, room) + ")"
	}
	return clip(r.project, n), ""
}
