package popup

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// The messages of the views without a list.
const (
	msgEmpty   = "Nothing stuck — all agents are working."
	msgLoading = "Loading the queue…"
)

// helpAnswering explains the answer keys under the help's columns.
const helpAnswering = "The selected item's prompt shows under the preview. a/x (a permission) and y/n " +
	"(a yes/no) answer it at once; r opens its answer line, for a menu's number, Enter, or a typed reply. " +
	"Nothing is sent without one of these keys."

// layout is how many lines each part of the screen gets.
type layout struct {
	list    int // lines of the list (rows and the cooling heading)
	preview int // lines of the preview, its rule included; 0 for none
	prompt  int // lines of the selected item's prompt block (its last ones when cut)
}

// footerLines is the help line, plus the filter line or the status (up to two lines).
func (m Model) footerLines() int {
	switch {
	case m.filtering:
		return 2
	case m.status != "":
		return 1 + len(m.statusLines())
	case m.filter.Value() != "":
		return 2
	}
	return 1
}

// maxStatusLines is as far as a status wraps.
const maxStatusLines = 2

// statusLines is the status wrapped to the width.
func (m Model) statusLines() []string {
	return wrap(m.status, m.width, maxStatusLines)
}

// minPreview is the smallest preview worth drawing: its rule and three lines.
const minPreview = 4

func (m Model) layout() layout {
	lines := max(1, len(m.visible)) // "No item matches" when none does
	if m.ready < len(m.visible) {
		lines++ // the cooling heading
	}
	block := len(m.promptBlock())
	if m.height <= 0 { // size unknown: draw everything
		return layout{list: lines, prompt: block}
	}
	body := max(0, m.height-2-m.footerLines()) // the title and the column heads
	block = min(block, max(0, body-1))         // the selected row is always drawn
	body -= block
	if body < minPreview+3 {
		return layout{list: min(lines, body), prompt: block}
	}
	list := min(lines, max(3, body/2))
	return layout{list: list, preview: body - list, prompt: block}
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
		for _, l := range wrap(helpAnswering, m.width, 3) {
			b.WriteString(m.styles.Hint.Render(l) + "\n")
		}
		b.WriteString("\n")
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
	if block := m.promptBlock(); lay.prompt > 0 {
		for _, l := range block[len(block)-lay.prompt:] {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString(m.footer())
	return m.fit(b.String())
}

// fit cuts every line to the width, so that nothing wraps and moves the rest down, and
// the frame to the height, keeping the title: a frame taller than the terminal loses its
// top lines.
func (m Model) fit(s string) string {
	if m.width <= 0 && m.height <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	if m.height > 0 && len(lines) > m.height {
		lines = append(lines[:1], lines[len(lines)-(m.height-1):]...)
	}
	for i, l := range lines {
		if m.width > 0 && ansi.StringWidth(l) > m.width {
			lines[i] = ansi.Truncate(l, m.width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// header is the title and the queue's counts: "⚠ 3 stuck · 1 cooling", where "stuck"
// counts the items that are ready (as the status line does) and "cooling" the skipped
// ones that are not yet, so that the two never overlap. With only cooling items, "0 stuck"
// is not a warning.
func (m Model) header() string {
	st := m.styles
	h := st.Title.Render("Trail Boss")
	if !m.loaded || m.err != nil || len(m.rows) == 0 {
		return h
	}
	ready := 0
	for _, r := range m.rows {
		if r.item.Ready {
			ready++
		}
	}
	cooling := len(m.rows) - ready
	if ready > 0 {
		h += "  " + st.Count.Render(fmt.Sprintf("⚠ %d stuck", ready))
	} else {
		h += "  " + st.Hint.Render("0 stuck")
	}
	if cooling > 0 {
		h += st.Hint.Render(fmt.Sprintf(" · %d cooling", cooling))
	}
	return h
}

func (m Model) errorText() string {
	if errors.Is(m.err, client.ErrDown) {
		return m.styles.Error.Render(client.ErrDown.Error())
	}
	return m.styles.Error.Render("trailboss: " + sanitize(m.err.Error()))
}

// columns lays the list out for the visible rows at the popup's width.
func (m Model) columns() columns {
	var w widths
	now := m.now()
	for _, vi := range m.visible {
		r := &m.rows[vi]
		w.num = max(w.num, len(r.num))
		if r.item.Ready {
			a := len(queue.Age(now.Sub(r.item.Since)))
			w.age, w.ageShort = max(w.age, a), max(w.ageShort, a)
		} else {
			w.age = max(w.age, ansi.StringWidth(coolingText(r.item, now, false)))
			w.ageShort = max(w.ageShort, ansi.StringWidth(coolingText(r.item, now, true)))
		}
		w.reason, w.kind = max(w.reason, r.reasonW), max(w.kind, r.kindW)
		w.where, w.project = max(w.where, r.whereW), max(w.project, r.projectW)
		w.summary = max(w.summary, r.summaryW)
	}
	return fitColumns(w, m.width)
}

// coolingText is what the AGE column says of a cooling item: "cooling 42s", or "~42s"
// when short, the time left before it can be the head again.
func coolingText(it client.Item, now time.Time, short bool) string {
	left := ""
	if it.CooldownUntil != nil && it.CooldownUntil.After(now) {
		left = queue.Age(it.CooldownUntil.Sub(now))
	}
	switch {
	case short:
		return "~" + left
	case left == "":
		return "cooling"
	}
	return "cooling " + left
}

// columnHeads is the line that names the shown columns.
func (m Model) columnHeads(c columns) string {
	heads := []string{pad(headNum, c.num)}
	for _, h := range []struct {
		name  string
		width int
		right bool
	}{{headAge, c.age, true}, {headReason, c.reason, false}, {headWhere, c.where, false}, {headProject, c.project, false}} {
		switch {
		case h.width == 0:
		case h.right:
			heads = append(heads, padLeft(h.name, h.width))
		default:
			heads = append(heads, pad(h.name, h.width))
		}
	}
	heads = append(heads, headSummary)
	return "  " + m.styles.ColumnHead.Render(strings.Join(heads, "  ")) + "\n"
}

// list draws height lines of the list, from the scroll offset.
func (m Model) list(c columns, height int) string {
	st := m.styles
	if len(m.visible) == 0 {
		if height <= 0 {
			return ""
		}
		return "  " + st.Hint.Render(fmt.Sprintf("No item matches %q.", m.filter.Value())) + "\n"
	}
	now := m.now()
	total := len(m.visible)
	if m.ready < total {
		total++
	}
	var b strings.Builder
	cells := make([]string, 0, 6)
	for line := m.offset; line < min(total, m.offset+height); line++ {
		vi := line
		if m.ready < len(m.visible) && line >= m.ready {
			if line == m.ready {
				b.WriteString("  " + st.CoolingHeading.Render("cooling down after a skip") + "\n")
				continue
			}
			vi = line - 1
		}
		r := &m.rows[m.visible[vi]]
		cooling := !r.item.Ready
		// Each cell padded to its column, styled unless the whole row is dimmed.
		style := func(s lipgloss.Style, text string) string {
			if cooling {
				return text
			}
			return s.Render(text)
		}
		cells = append(cells[:0], style(st.Number, pad(r.num, c.num)))
		if c.age > 0 {
			age := queue.Age(now.Sub(r.item.Since))
			if cooling {
				age = coolingText(r.item, now, c.coolShort)
			}
			cells = append(cells, style(st.Age, padLeft(age, c.age)))
		}
		if c.reason > 0 {
			cells = append(cells, style(st.Reason, pad(c.reasonText(*r), c.reason)))
		}
		if c.where > 0 {
			cells = append(cells, style(st.Where, pad(whereText(*r, c.where), c.where)))
		}
		if c.project > 0 {
			name, branch := projectParts(*r, c.project)
			cell := pad(name+branch, c.project)
			if !cooling {
				cell = st.Project.Render(name) + st.Branch.Render(cell[len(name):])
			}
			cells = append(cells, cell)
		}
		summary, summaryStyle := r.summary, st.Summary
		if n, ok := m.noteFor(*r); ok {
			summary = n.text
			switch {
			case n.pending:
				summaryStyle = st.Hint
			case n.ok:
				summaryStyle = st.Sent
			default:
				summaryStyle = st.Refused
			}
		}
		if m.width > 0 {
			summary = clip(summary, c.summary)
		}
		cells = append(cells, style(summaryStyle, summary))
		text := strings.Join(cells, "  ")
		switch {
		case cooling:
			text = st.Cooling.Render(text)
		case vi == m.cursor:
			text = st.Selected.Render(text)
		}
		cursor := "  "
		if vi == m.cursor {
			cursor = st.Cursor.Render("›") + " "
		}
		b.WriteString(cursor + text + "\n")
	}
	return b.String()
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
	w := m.drawWidth()
	rule := m.rule(title, st.PreviewTitle)
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

// drawWidth is the width to draw rules to: the popup's, or 80 when it is not known.
func (m Model) drawWidth() int {
	if m.width <= 0 {
		return 80
	}
	return m.width
}

// rule is a line across the popup with title near its left end, as "── title ───".
func (m Model) rule(title string, titleStyle lipgloss.Style) string {
	w := m.drawWidth()
	st := m.styles
	title = clip(title, max(1, w-4))
	return st.PreviewRule.Render("──") + titleStyle.Render(title) +
		st.PreviewRule.Render(strings.Repeat("─", max(0, w-2-ansi.StringWidth(title))))
}

// promptBlock draws the selected item's pending prompt under the preview: a rule that
// says it can be answered from here (and for how long), the question, and what answers
// it — its choices with their keys, or the reply line. It has no lines when the item has
// no prompt.
func (m Model) promptBlock() []string {
	r, ok := m.selected()
	if !ok || r.item.Prompt == nil {
		return nil
	}
	st, p, w, now := m.styles, r.item.Prompt, m.drawWidth(), m.now()
	expired := r.expired(now)
	title := " answer from here "
	switch {
	case m.offFor(r):
		title = " delivery is off: answer it in the pane (enter jumps there) "
		expired = true // its question, and no keys
	case expired:
		title = " expired: answer it in the pane (enter jumps there) "
	case p.Secret:
		title = " a password or secret: type it in the pane (enter jumps there) "
		expired = true // its question, and no keys
	case !p.ExpiresAt.IsZero():
		title = " answer from here · " + queue.Age(p.ExpiresAt.Sub(now)) + " left "
	}
	lines := []string{m.rule(title, st.PromptTitle)}
	if r.question != "" {
		n := 2
		if p.Kind == wire.KindPermission {
			n = commandLines
		}
		for _, l := range wrap(r.question, w, n) {
			lines = append(lines, st.Question.Render(l))
		}
	}
	if expired {
		return lines
	}
	if r.long != "" {
		lines = append(lines, st.Hint.Render(clip(r.long+" — approve it in the pane (enter jumps there); x denies from here", w)))
	}
	open := m.answering != nil && m.answering.session == r.item.SessionID
	if p.Kind == wire.KindFreeText {
		if open {
			return append(lines, m.reply.View())
		}
		return append(lines, st.ChoiceKey.Render("r")+" "+st.ChoiceLabel.Render("reply with a line of text"))
	}
	if len(r.offers) == 0 {
		return append(lines, st.Hint.Render("no choice to offer — answer it in the pane (enter jumps there)"))
	}
	var items []chip
	for _, o := range r.offers {
		items = append(items, chip{o.press + " " + o.label, st.ChoiceKey.Render(o.press) + " " + st.ChoiceLabel.Render(o.label)})
	}
	if !open && !direct(p.Kind) { // in the list, its keys mean something else: r first
		items[0] = chip{"r, then " + items[0].plain, st.Hint.Render("r, then ") + items[0].drawn}
	}
	if open {
		items = append(items, chip{"esc back", st.Hint.Render("esc back")})
	}
	return append(lines, flow(items, w, 3, chip{" · ", st.Hint.Render(" · ")})...)
}

// chip is one item of a flowed line: its plain text (for its width) and as drawn.
type chip struct{ plain, drawn string }

// flow lays chips out left to right in lines of width cells, sep between two on a line,
// in at most n lines; a chip that does not fit on a line of its own is cut, and chips
// beyond the n lines are left out, the last line then ending in "…".
func flow(chips []chip, width, n int, sep chip) []string {
	var lines []string
	var cur strings.Builder
	used, sepWidth := 0, ansi.StringWidth(sep.plain)
	for _, c := range chips {
		cw := ansi.StringWidth(c.plain)
		if used > 0 && used+sepWidth+cw > width {
			if len(lines) == n-1 {
				lines = append(lines, cur.String()+sep.drawn+"…")
				return lines
			}
			lines = append(lines, cur.String())
			cur.Reset()
			used = 0
		}
		if used > 0 {
			cur.WriteString(sep.drawn)
			used += sepWidth
		}
		if cw > width-used {
			cur.WriteString(ansi.Truncate(c.drawn, max(0, width-used), "…"))
			used = width
		} else {
			cur.WriteString(c.drawn)
			used += cw
		}
	}
	return append(lines, cur.String())
}

// wrap wraps plain text s to width cells (unknown: not at all) in at most n lines, the
// last one ending in "…" when text is left over.
func wrap(s string, width, n int) []string {
	if width <= 0 {
		return []string{s}
	}
	lines := strings.Split(ansi.Wrap(s, width, ""), "\n")
	if len(lines) > n {
		rest := strings.Join(lines[n-1:], " ")
		lines = append(lines[:n-1], ansi.Truncate(rest, width, "…"))
	}
	return lines
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
		for _, l := range m.statusLines() {
			b.WriteString(st.Status.Render(l) + "\n")
		}
	case m.filter.Value() != "":
		b.WriteString(st.FilterPrompt.Render("/") + st.Filter.Render(m.filter.Value()) + st.Hint.Render("  (esc clears)") + "\n")
	}
	b.WriteString(m.help.ShortHelpView(m.helpKeys()))
	return b.String()
}

// helpKeys are the keys the help line names: the answer line's while it is open, else the
// list's with the selected prompt's.
func (m Model) helpKeys() []key.Binding {
	r, ok := m.selected()
	switch {
	case !ok:
		return m.keys.ShortHelp()
	case m.answering != nil:
		return m.keys.answerHelp(r)
	case r.item.Prompt != nil && !r.expired(m.now()) && !m.offFor(r):
		return m.keys.listHelp(&r)
	}
	return m.keys.ShortHelp()
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
