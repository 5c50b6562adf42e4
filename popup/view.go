package popup

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/trailboss/trailboss/daemon/client"
)

// The messages of the views without a list.
const (
	msgEmpty   = "Nothing stuck — all agents are working."
	msgDown    = "trailboss daemon is not running — start it with: trailboss start"
	msgLoading = "Loading the queue…"
)

// layout is how many lines each part of the screen gets.
type layout struct {
	list    int // lines of the list (rows and the cooling heading)
	preview int // lines of the preview, its rule included; 0 for none
}

// footerLines is the help line, plus the filter or status line when there is one.
func (m Model) footerLines() int {
	if m.filtering || m.filter.Value() != "" || m.status != "" {
		return 2
	}
	return 1
}

// minPreview is the smallest preview worth drawing: its rule and three lines.
const minPreview = 4

func (m Model) layout() layout {
	lines := len(m.visible)
	if m.ready < len(m.visible) {
		lines++ // the cooling heading
	}
	body := m.height - 2 - m.footerLines() // the title and the column heads
	if m.height <= 0 {                     // size unknown: draw everything
		return layout{list: lines}
	}
	if body < minPreview+3 {
		return layout{list: max(1, min(lines, body))}
	}
	list := min(lines, max(3, body/2))
	return layout{list: list, preview: body - list}
}

// cursorLine is the line of the list that the cursor is on.
func (m Model) cursorLine() int {
	if m.cursor >= m.ready {
		return m.cursor + 1 // below the cooling heading
	}
	return m.cursor
}

// scrollOffset returns the first line to draw of a list whose window is height lines, so
// that line cur is shown, moving the window from off as little as possible.
func scrollOffset(off, cur, height int) int {
	if height <= 0 {
		return 0
	}
	if cur < off {
		return cur
	}
	if cur >= off+height {
		return cur - height + 1
	}
	return off
}

// View draws the popup.
func (m Model) View() string {
	if m.quitting {
		return "" // leave a clean screen behind
	}
	var b strings.Builder
	b.WriteString(m.header())
	b.WriteByte('\n')
	switch {
	case m.showHelp:
		b.WriteString("\n" + m.help.FullHelpView(m.keys.FullHelp()) + "\n\n")
		b.WriteString(m.styles.Hint.Render("? or esc: back to the list · q: close"))
		return m.fit(b.String())
	case m.err != nil:
		b.WriteString("\n" + m.errorText() + "\n\n")
		b.WriteString(m.styles.Hint.Render("q: close · retrying every " + m.refresh.String()))
		return m.fit(b.String())
	case !m.loaded:
		b.WriteString("\n" + m.styles.Hint.Render(msgLoading))
		return m.fit(b.String())
	case len(m.rows) == 0:
		b.WriteString("\n" + m.styles.Empty.Render(msgEmpty) + "\n\n")
		b.WriteString(m.styles.Hint.Render("q: close"))
		return m.fit(b.String())
	}
	lay := m.layout()
	c := m.columns()
	b.WriteString(m.columnHeads(c))
	b.WriteString(m.list(c, lay.list))
	if lay.preview > 0 {
		b.WriteString(m.preview(lay.preview))
	}
	b.WriteString(m.footer())
	return m.fit(b.String())
}

// fit cuts every line to the width, so that nothing wraps and moves the rest down.
func (m Model) fit(s string) string {
	if m.width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			lines[i] = ansi.Truncate(l, m.width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

func (m Model) header() string {
	st := m.styles
	h := st.Title.Render("Trail Boss")
	if m.loaded && m.err == nil && len(m.rows) > 0 {
		cooling := 0
		for _, r := range m.rows {
			if !r.item.Ready {
				cooling++
			}
		}
		h += "  " + st.Count.Render(fmt.Sprintf("⚠ %d stuck", len(m.rows)))
		if cooling > 0 {
			h += st.Hint.Render(fmt.Sprintf(" · %d cooling", cooling))
		}
	}
	return h
}

func (m Model) errorText() string {
	if errors.Is(m.err, client.ErrDown) {
		return m.styles.Error.Render(msgDown)
	}
	return m.styles.Error.Render("trailboss: " + sanitize(m.err.Error()))
}

// columns are the widths of the list's columns.
type columns struct{ num, age, reason, where, project int }

func (m Model) columns() columns {
	var c columns
	now := m.now()
	for _, vi := range m.visible {
		r := m.rows[vi]
		c.age = max(c.age, len(Age(now.Sub(r.item.Since))))
		c.reason = max(c.reason, ansi.StringWidth(r.reason))
		c.where = max(c.where, ansi.StringWidth(r.where))
		c.project = max(c.project, ansi.StringWidth(r.projectText()))
	}
	c.num = len(fmt.Sprint(len(m.visible)))
	if m.ready < len(m.visible) {
		c.num++ // room for the "~" of a cooling row
	}
	c.reason, c.where, c.project = min(c.reason, 22), min(c.where, 16), min(c.project, 28)
	// At least as wide as the heads.
	c.num, c.age, c.reason = max(c.num, 1), max(c.age, 3), max(c.reason, 6)
	c.where, c.project = max(c.where, 5), max(c.project, 7)
	return c
}

// columnHeads is the line that names the columns.
func (m Model) columnHeads(c columns) string {
	heads := []string{pad("#", c.num), padLeft("AGE", c.age), pad("REASON", c.reason), pad("WHERE", c.where),
		pad("PROJECT", c.project), "SUMMARY"}
	return "  " + m.styles.ColumnHead.Render(strings.Join(heads, "  ")) + "\n"
}

func (r row) projectText() string {
	if r.branch == "" {
		return r.project
	}
	return r.project + " (" + r.branch + ")"
}

// list draws height lines of the list, from the scroll offset.
func (m Model) list(c columns, height int) string {
	st := m.styles
	if len(m.visible) == 0 {
		return "  " + st.Hint.Render(fmt.Sprintf("No item matches %q.", m.filter.Value())) + "\n"
	}
	now := m.now()
	total := len(m.visible)
	if m.ready < total {
		total++
	}
	var b strings.Builder
	for line := m.offset; line < min(total, m.offset+height); line++ {
		vi := line
		if m.ready < len(m.visible) && line >= m.ready {
			if line == m.ready {
				b.WriteString("  " + st.CoolingHeading.Render("cooling down after a skip") + "\n")
				continue
			}
			vi = line - 1
		}
		r := m.rows[m.visible[vi]]
		num := fmt.Sprint(vi + 1)
		if !r.item.Ready {
			num += "~"
		}
		cells := []string{
			pad(num, c.num),
			padLeft(Age(now.Sub(r.item.Since)), c.age),
			pad(clip(r.reason, c.reason), c.reason),
			pad(clip(r.where, c.where), c.where),
			pad(clip(r.projectText(), c.project), c.project),
		}
		used := 2 + c.num + c.age + c.reason + c.where + c.project + 2*len(cells)
		summary := r.summary
		if m.width > 0 {
			summary = clip(summary, max(10, m.width-used))
		}
		cursor := "  "
		if vi == m.cursor {
			cursor = st.Cursor.Render("›") + " "
		}
		if !r.item.Ready {
			b.WriteString(cursor + st.Cooling.Render(strings.Join(append(cells, summary), "  ")) + "\n")
			continue
		}
		styled := []string{st.Number.Render(cells[0]), st.Age.Render(cells[1]), st.Reason.Render(cells[2]),
			st.Where.Render(cells[3]), m.projectCell(r, cells[4]), st.Summary.Render(summary)}
		line := strings.Join(styled, "  ")
		if vi == m.cursor {
			line = st.Selected.Render(line)
		}
		b.WriteString(cursor + line + "\n")
	}
	return b.String()
}

// projectCell styles the padded project cell, the branch dimmer than the folder.
func (m Model) projectCell(r row, cell string) string {
	if i := len(r.project); r.branch != "" && len(cell) > i && cell[:i] == r.project {
		return m.styles.Project.Render(r.project) + m.styles.Branch.Render(cell[i:])
	}
	return m.styles.Project.Render(cell)
}

// preview draws the selected pane's screen under a rule: its last lines, since the bottom
// of an agent's screen is where it asks.
func (m Model) preview(height int) string {
	st := m.styles
	r, ok := m.selected()
	if !ok {
		return strings.Repeat("\n", height)
	}
	title := " " + r.where + " · " + r.item.Pane + " "
	if r.project != "" {
		title += "· " + r.projectText() + " "
	}
	w := m.width
	if w <= 0 {
		w = 80
	}
	rule := st.PreviewRule.Render("──") + st.PreviewTitle.Render(clip(title, max(1, w-4))) +
		st.PreviewRule.Render(strings.Repeat("─", max(0, w-2-ansi.StringWidth(clip(title, max(1, w-4))))))
	lines := make([]string, 0, height)
	lines = append(lines, rule)
	p, cached := m.previews[r.item.Pane]
	switch {
	case r.jumpErr != "":
		lines = append(lines, st.PreviewNote.Render("no preview: "+r.jumpErr))
	case !cached:
		lines = append(lines, st.PreviewNote.Render("capturing the pane…"))
	case p.err != nil:
		lines = append(lines, st.PreviewNote.Render("no preview: "+sanitize(p.err.Error())))
	default:
		screen := p.lines
		if len(screen) > height-1 {
			screen = screen[len(screen)-(height-1):]
		}
		for _, l := range screen {
			lines = append(lines, st.PreviewText.Render(clip(l, w)))
		}
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n") + "\n"
}

func (m Model) footer() string {
	st := m.styles
	var b strings.Builder
	switch {
	case m.filtering:
		b.WriteString(m.filter.View() + "\n")
		b.WriteString(m.help.ShortHelpView(m.keys.filterHelp()))
		return b.String()
	case m.status != "":
		b.WriteString(st.Status.Render(m.status) + "\n")
	case m.filter.Value() != "":
		b.WriteString(st.FilterPrompt.Render("/") + st.Filter.Render(m.filter.Value()) + st.Hint.Render("  (esc clears)") + "\n")
	}
	b.WriteString(m.help.ShortHelpView(m.keys.ShortHelp()))
	return b.String()
}

// clip cuts s to n display cells, ending it with "…" when cut.
func clip(s string, n int) string {
	if ansi.StringWidth(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return ansi.Truncate(s, n, "…")
}

// pad fills s with spaces to n display cells; padLeft puts them in front.
func pad(s string, n int) string { return s + strings.Repeat(" ", max(0, n-ansi.StringWidth(s))) }

func padLeft(s string, n int) string { return strings.Repeat(" ", max(0, n-ansi.StringWidth(s))) + s }
