// Package popup is the queue picker that tmux's display-popup shows: the stuck sessions in
// queue order, where each one is, what it wants, and a preview of the selected pane. It is
// a Bubble Tea model whose I/O (the daemon, tmux) happens only in tea.Cmds, through the
// Daemon and Tmux interfaces, so that tests drive it with made-up messages and stubs. The
// operator's choice comes back through the final model (Choice); the caller does the jump.
package popup

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/trailboss/trailboss/daemon/client"
)

// Options configure a Model. Only Daemon and Tmux are required.
type Options struct {
	Daemon Daemon
	Tmux   Tmux
	Socket string // the tmux server the popup runs on; items elsewhere cannot be jumped to
	Client string // the tmux client that opened it, said with each answer for the audit log
	Styles *Styles
	// Width and Height are the terminal's size, when known before the program starts: the
	// first frame is then drawn at the right size instead of waiting for a WindowSizeMsg.
	Width, Height int
	// First is a snapshot loaded before the program starts (see Load), so the first frame
	// shows the queue; without it the model loads the queue in its first Cmd.
	First *Snapshot
	// Refresh is how often the queue is fetched again while the popup is open (1s).
	Refresh time.Duration
	// Now is the clock for the items' ages (time.Now).
	Now func() time.Time
}

// cmdTimeout bounds every daemon and tmux call of the popup.
const cmdTimeout = 3 * time.Second

// Model is the popup's Bubble Tea model.
type Model struct {
	daemon  Daemon
	tmux    Tmux
	socket  string
	refresh time.Duration
	now     func() time.Time
	keys    keymap
	styles  Styles
	help    help.Model
	filter  textinput.Model

	width, height int

	loaded   bool
	err      error // the last fetch failed: shown instead of the list
	rows     []row
	visible  []int  // indexes into rows that pass the filter, in order
	cursor   int    // index into visible
	offset   int    // first line of the list that is drawn (it scrolls)
	ready    int    // how many of the visible rows are ready; cooling ones follow
	selID    string // session id of the selected row, kept across refreshes
	fetching bool   // a fetch is under way: ticks do not start another

	filtering bool // the filter line has the focus
	showHelp  bool
	status    string // feedback on the last key, such as a failed skip

	previews  map[string]preview // by pane id: a pane's last capture
	capturing map[string]bool    // panes whose capture is under way

	answering *answerTarget     // the answer line is open for this prompt
	reply     textinput.Model   // the line a free-text answer is typed in
	inflight  map[string]string // session id → the prompt whose answer is on its way
	notes     map[string]note   // session id → what became of the last answer sent to it
	closing   bool              // asked to close while an answer was on its way

	// deliveryOff, when not empty, is why nothing is answered from here (delivery is
	// off): the answer keys are hidden, and the status says so once (offSaid).
	deliveryOff string
	offSaid     bool

	client string // the tmux client that opened the popup ("" when not known)

	choice   *client.Item
	quitting bool
}

// preview is a captured pane.
type preview struct {
	lines []string
	err   error
}

// New returns a popup model.
func New(o Options) Model {
	st := o.Styles
	if st == nil {
		s := NewStyles(lipgloss.DefaultRenderer())
		st = &s
	}
	m := Model{
		daemon: o.Daemon, tmux: o.Tmux, socket: o.Socket, client: o.Client, refresh: o.Refresh, now: o.Now,
		keys: defaultKeymap(), styles: *st, help: help.New(), filter: textinput.New(),
		width: o.Width, height: o.Height,
		previews: map[string]preview{}, capturing: map[string]bool{},
		reply: textinput.New(), inflight: map[string]string{}, notes: map[string]note{},
	}
	if m.refresh <= 0 {
		m.refresh = time.Second
	}
	if m.now == nil {
		m.now = time.Now
	}
	m.help.Styles = st.helpStyles()
	m.help.Width = m.width
	m.filter.Prompt = "/"
	m.filter.PromptStyle = st.FilterPrompt
	m.filter.TextStyle = st.Filter
	m.filter.Placeholder = "type to filter"
	m.filter.PlaceholderStyle = st.Hint
	m.filter.Cursor.SetMode(cursor.CursorStatic) // a blinking cursor redraws twice a second for nothing
	m.filter.Cursor.Style = st.Filter.Reverse(true)
	m.filter.Cursor.TextStyle = st.Filter
	m.reply.Prompt = "reply› "
	m.reply.PromptStyle = st.FilterPrompt
	m.reply.TextStyle = st.Filter
	m.reply.Placeholder = "type your answer; enter sends it"
	m.reply.PlaceholderStyle = st.Hint
	m.reply.Cursor.SetMode(cursor.CursorStatic)
	m.reply.Cursor.Style = st.Filter.Reverse(true)
	m.reply.Cursor.TextStyle = st.Filter
	if o.First != nil {
		m = m.apply(*o.First)
	}
	return m
}

// Init fetches the queue unless a first snapshot was given, captures the selected pane,
// and starts the refresh tick.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.tick()}
	if m.loaded {
		cmds = append(cmds, m.capture(true))
	} else {
		cmds = append(cmds, m.fetch())
	}
	return tea.Batch(cmds...)
}

// Choice returns the item the operator chose to jump to, and false when they closed the
// popup without choosing.
func (m Model) Choice() (client.Item, bool) {
	if m.choice == nil {
		return client.Item{}, false
	}
	return *m.choice, true
}

// selected returns the selected row, or false when no row is visible.
func (m Model) selected() (row, bool) {
	if m.cursor < 0 || m.cursor >= len(m.visible) {
		return row{}, false
	}
	return m.rows[m.visible[m.cursor]].at(m.drawWidth()), true
}

// ---- commands: the only places that do I/O --------------------------------------------

type (
	tickMsg    time.Time
	previewMsg struct {
		pane  string
		lines []string
		err   error
	}
	actionMsg struct {
		verb, id string
		err      error
	}
)

func (m Model) tick() tea.Cmd {
	return tea.Tick(m.refresh, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// fetch loads a Snapshot.
func (m Model) fetch() tea.Cmd {
	d, t := m.daemon, m.tmux
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
		defer cancel()
		return Load(ctx, d, t)
	}
}

// capture captures the selected pane unless a capture of it is under way, or, when force
// is false, unless it is already cached. It marks the pane as being captured.
func (m Model) capture(force bool) tea.Cmd {
	r, ok := m.selected()
	if !ok || r.jumpErr != "" {
		return nil
	}
	pane := r.item.Pane
	if m.capturing[pane] {
		return nil
	}
	if _, cached := m.previews[pane]; cached && !force {
		return nil
	}
	m.capturing[pane] = true
	t := m.tmux
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
		defer cancel()
		out, err := t.CapturePane(ctx, pane)
		return previewMsg{pane: pane, lines: sanitizeScreen(out), err: err}
	}
}

// act runs a skip or a dismiss of one session.
func (m Model) act(verb, id string) tea.Cmd {
	d := m.daemon
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
		defer cancel()
		var err error
		if verb == "skip" {
			err = d.SkipSession(ctx, id)
		} else {
			err = d.Dismiss(ctx, id)
		}
		return actionMsg{verb: verb, id: id, err: err}
	}
}
