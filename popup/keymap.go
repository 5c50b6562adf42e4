package popup

import "github.com/charmbracelet/bubbles/key"

// keymap is every key the popup answers to. The filter's own keys (filterAccept,
// filterCancel, filterUp, filterDown) apply only while the filter line has the focus, when
// letters and digits are typed into it instead.
type keymap struct {
	Up, Down     key.Binding
	Jump         key.Binding
	JumpTo       key.Binding // 1–9: select that row and jump
	Skip         key.Binding
	Dismiss      key.Binding
	Filter       key.Binding
	Help         key.Binding
	Back         key.Binding // Esc: clear the filter, close the help, else close
	Quit         key.Binding
	filterAccept key.Binding
	filterCancel key.Binding
	filterUp     key.Binding
	filterDown   key.Binding
}

func defaultKeymap() keymap {
	return keymap{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Jump:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "jump")),
		JumpTo:       key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "jump to #")),
		Skip:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "skip")),
		Dismiss:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "dismiss")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Back:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter / close")),
		Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "close")),
		filterAccept: key.NewBinding(key.WithKeys("enter", "tab"), key.WithHelp("enter", "keep filter")),
		filterCancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		filterUp:     key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "up")),
		filterDown:   key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "down")),
	}
}

// ShortHelp is the one line at the bottom of the list.
func (k keymap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.JumpTo, k.Jump, k.Skip, k.Dismiss, k.Filter, k.Help, k.Quit}
}

// FullHelp is the help view, in columns.
func (k keymap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Jump, k.JumpTo},
		{k.Skip, k.Dismiss},
		{k.Filter, k.Help, k.Back, k.Quit},
	}
}

// filterHelp is the bottom line while the filter is being typed.
func (k keymap) filterHelp() []key.Binding {
	return []key.Binding{k.filterAccept, k.filterCancel, k.filterUp, k.filterDown}
}
