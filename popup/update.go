package popup

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := m.update(msg)
	m.offset = scrollOffset(m.offset, m.cursorLine(), m.layout().list)
	return m, cmd
}

func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.Width = msg.Width
		m.reply.Width = max(1, msg.Width-ansi.StringWidth(m.reply.Prompt)-1)
		return m, nil
	case Snapshot:
		m = m.apply(msg)
		return m, m.capture(true) // the selected pane's screen moves on too
	case tickMsg:
		if m.fetching {
			return m, m.tick()
		}
		m.fetching = true
		return m, tea.Batch(m.tick(), m.fetch())
	case previewMsg:
		delete(m.capturing, msg.pane)
		m.previews[msg.pane] = preview{lines: msg.lines, err: msg.err}
		return m, nil
	case actionMsg:
		if msg.err != nil {
			m.status = msg.verb + " failed: " + msg.err.Error()
		} else {
			m.status = ""
		}
		m.fetching = true
		return m, m.fetch()
	case answerMsg:
		return m.answered(msg)
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

// apply shows a fresh snapshot, keeping the selection on the same session when it is still
// there, else on the same row.
func (m Model) apply(s Snapshot) Model {
	m.loaded, m.fetching = true, false
	m.err = s.Err
	if s.Err != nil {
		if m.answering != nil { // its prompt is no longer shown: nothing may be sent to it
			m = m.closeAnswer()
		}
		return m
	}
	m.rows = buildRows(s, m.socket)
	m.refilter()
	m.deliveryOff = s.DeliveryOff
	if m.deliveryOff != "" && !m.offSaid && m.anyPrompt() {
		m.status, m.offSaid = "answering from here is off — "+m.deliveryOff, true
	}
	queued := make(map[string]bool, len(m.rows))
	for _, r := range m.rows {
		queued[r.item.Pane] = true
	}
	for pane := range m.previews {
		if !queued[pane] {
			delete(m.previews, pane)
		}
	}
	m.keepNotes()
	if m.answering != nil {
		r, ok := m.selected()
		if !ok || r.item.SessionID != m.answering.session || r.item.Prompt == nil || r.item.Prompt.ID != m.answering.prompt {
			m = m.closeAnswer()
			m.status = "the prompt you were answering is no longer waiting (answered in the pane, or it changed): nothing was sent"
		}
	}
	return m
}

// keepNotes forgets the notes of sessions that left the queue or now wait on another
// prompt; a note whose answer is still on its way is kept.
func (m *Model) keepNotes() {
	now := make(map[string]row, len(m.rows))
	for _, r := range m.rows {
		now[r.item.SessionID] = r
	}
	for id, n := range m.notes {
		if n.pending {
			continue
		}
		if r, ok := now[id]; !ok || (r.item.Prompt != nil && r.item.Prompt.ID != n.prompt) {
			delete(m.notes, id)
		}
	}
}

// refilter recomputes the visible rows and puts the cursor back on the selected session.
func (m *Model) refilter() {
	f := m.filter.Value()
	m.visible, m.ready = make([]int, 0, len(m.rows)), 0
	for i, r := range m.rows {
		if f == "" || r.matches(f) {
			m.visible = append(m.visible, i)
			if r.item.Ready {
				m.ready++
			}
		}
	}
	for vi, ri := range m.visible {
		if m.rows[ri].item.SessionID == m.selID {
			m.cursor = vi
			return
		}
	}
	m.cursor = max(0, min(m.cursor, len(m.visible)-1))
	if r, ok := m.selected(); ok {
		m.selID = r.item.SessionID
	}
}

// moveTo selects visible row i (clamped) and captures its pane if it is not cached.
func (m Model) moveTo(i int) (Model, tea.Cmd) {
	if len(m.visible) == 0 {
		return m, nil
	}
	m.cursor = max(0, min(i, len(m.visible)-1))
	r, _ := m.selected()
	m.selID = r.item.SessionID
	return m, m.capture(false)
}

func (m Model) key(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.keys
	if msg.Type == tea.KeyCtrlC {
		m.quitting = true // at once, even with an answer on its way
		return m, tea.Quit
	}
	if m.closing {
		return m, nil // closing once the answer on its way is done
	}
	if key.Matches(msg, k.Quit) && !m.filtering && m.answering == nil {
		return m.quit()
	}
	if m.showHelp {
		if key.Matches(msg, k.Help, k.Back) {
			m.showHelp = false
		}
		return m, nil
	}
	if m.filtering {
		return m.filterKey(msg)
	}
	if m.answering != nil {
		return m.answerModeKey(msg)
	}
	m.status = ""
	if m.err != nil || !m.loaded { // no list is shown: only closing and the help apply
		switch {
		case key.Matches(msg, k.Back):
			return m.quit()
		case key.Matches(msg, k.Help):
			m.showHelp = true
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Back):
		if m.filter.Value() != "" {
			m.filter.Reset()
			m.refilter()
			return m, m.capture(false)
		}
		return m.quit()
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.Up):
		return m.moveTo(m.cursor - 1)
	case key.Matches(msg, k.Down):
		return m.moveTo(m.cursor + 1)
	case key.Matches(msg, k.JumpTo):
		return m.jumpTo(int(msg.Runes[0] - '0'))
	case key.Matches(msg, k.Jump):
		return m.jump()
	case key.Matches(msg, k.Skip):
		return m.actOnSelected("skip")
	case key.Matches(msg, k.Dismiss):
		return m.actOnSelected("dismiss")
	case key.Matches(msg, k.Allow, k.Deny, k.Yes, k.No):
		return m.answerKey(msg.String())
	case key.Matches(msg, k.Answer):
		return m.openAnswer()
	case key.Matches(msg, k.Filter):
		m.filtering = true
		return m, m.filter.Focus()
	}
	return m, nil
}

// filterKey handles a key while the filter line has the focus: letters, digits and symbols
// are typed into it.
func (m Model) filterKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.filterCancel):
		m.filtering = false
		m.filter.Blur()
		m.filter.Reset()
		m.refilter()
		return m, m.capture(false)
	case key.Matches(msg, k.filterAccept):
		m.filtering = false
		m.filter.Blur()
		return m, nil
	case key.Matches(msg, k.filterUp):
		return m.moveTo(m.cursor - 1)
	case key.Matches(msg, k.filterDown):
		return m.moveTo(m.cursor + 1)
	}
	before := m.filter.Value()
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(msg)
	if m.filter.Value() != before {
		m.refilter()
		return m, tea.Batch(cmd, m.capture(false))
	}
	return m, cmd
}

// quit closes the popup, once the answers on their way are done: closing now would cut
// them off halfway, leaving the operator not knowing whether they arrived.
func (m Model) quit() (Model, tea.Cmd) {
	if len(m.inflight) > 0 {
		m.closing = true
		m.status = "closing once the answer on its way is delivered… (ctrl+c closes now)"
		return m, nil
	}
	m.quitting = true
	return m, tea.Quit
}

// jump ends the popup with the selected row as the choice, or says why it cannot.
func (m Model) jump() (Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	if r.jumpErr != "" {
		m.status = "cannot jump there: " + r.jumpErr
		return m, nil
	}
	it := r.item
	m.choice = &it
	return m.quit()
}

// jumpTo selects the row numbered pos (its place in the queue) and jumps there. A number
// that the filter hides is not jumped to: the operator cannot see what they would land on.
func (m Model) jumpTo(pos int) (Model, tea.Cmd) {
	for vi, ri := range m.visible {
		if m.rows[ri].pos == pos {
			m, _ = m.moveTo(vi)
			return m.jump()
		}
	}
	if pos <= len(m.rows) {
		m.status = fmt.Sprintf("%d is hidden by the filter (esc clears it)", pos)
	}
	return m, nil
}

// actOnSelected skips or dismisses the selected session. The selection moves to the row
// below (or above, at the bottom), as if the session had left the list: a skipped one
// reappears at the tail, and following it there would be a surprise.
func (m Model) actOnSelected(verb string) (Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	next := m.cursor + 1
	if next >= len(m.visible) {
		next = m.cursor - 1
	}
	var capture tea.Cmd
	if next >= 0 {
		m, capture = m.moveTo(next)
	} else {
		m.selID = ""
	}
	m.status = verb + ": " + r.summaryOr(r.item.SessionID) + "…"
	return m, tea.Batch(m.act(verb, r.item.SessionID), capture)
}

func (r row) summaryOr(s string) string {
	if r.summary != "" {
		return clip(r.summary, 40)
	}
	return s
}
