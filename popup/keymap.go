package popup

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/trailboss/trailboss/daemon/wire"
)

// keymap is every key the popup answers to. The filter's own keys (filterAccept,
// filterCancel, filterUp, filterDown) apply only while the filter line has the focus, when
// letters and digits are typed into it instead; the answer line's (answerSend, answerBack)
// only while it is open.
//
// Answering keys meet the list's: digits jump to a queue position and Enter jumps to the
// selected pane, in the list as before. So a menu's digits and a press-enter prompt's Enter
// are pressed after r, which opens the answer line for the selected prompt; only the
// letters that mean nothing else in the list answer from it at once (a / x a permission,
// y / n a yes/no question), and only when the selected prompt offers them.
type keymap struct {
	Up, Down     key.Binding
	Jump         key.Binding
	JumpTo       key.Binding // 1–9: select that row and jump
	Skip         key.Binding
	Dismiss      key.Binding
	Allow, Deny  key.Binding // a permission, from the list
	Yes, No      key.Binding // a yes/no question, from the list
	Answer       key.Binding // r: the answer line for the selected prompt
	Filter       key.Binding
	Help         key.Binding
	Back         key.Binding // Esc: clear the filter, close the help, else close
	Quit         key.Binding
	filterAccept key.Binding
	filterCancel key.Binding
	filterUp     key.Binding
	filterDown   key.Binding
	answerSend   key.Binding // Enter sends a typed reply
	answerBack   key.Binding // Esc closes the answer line, sending nothing
}

func defaultKeymap() keymap {
	return keymap{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Jump:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "jump")),
		JumpTo:       key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "jump to #")),
		Skip:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "skip")),
		Dismiss:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "dismiss")),
		Allow:        key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "allow")),
		Deny:         key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "deny")),
		Yes:          key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes")),
		No:           key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "no")),
		Answer:       key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "answer: menu, enter, reply")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Back:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter / close")),
		Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "close")),
		filterAccept: key.NewBinding(key.WithKeys("enter", "tab"), key.WithHelp("enter", "keep filter")),
		filterCancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		filterUp:     key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "up")),
		filterDown:   key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "down")),
		answerSend:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		answerBack:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back, send nothing")),
	}
}

// ShortHelp is the one line at the bottom of the list when the selected item has nothing
// to answer.
func (k keymap) ShortHelp() []key.Binding {
	return k.listHelp(nil)
}

// listHelp is the line at the bottom of the list; r is the selected row when its prompt
// can be answered, and its keys follow Enter.
func (k keymap) listHelp(r *row) []key.Binding {
	keys := []key.Binding{k.Up, k.Down, k.JumpTo, k.Jump}
	if r != nil && !r.item.Prompt.Secret {
		switch p := r.item.Prompt; {
		case direct(p.Kind) && len(r.offers) > 0:
			presses, labels := make([]string, len(r.offers)), make([]string, len(r.offers))
			for i, o := range r.offers {
				presses[i], labels[i] = o.press, strings.ToLower(o.label)
			}
			keys = append(keys, key.NewBinding(key.WithKeys(presses...),
				key.WithHelp(strings.Join(presses, "/"), strings.Join(labels, "/"))))
		case p.Kind == wire.KindFreeText:
			keys = append(keys, key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reply")))
		default:
			keys = append(keys, key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "answer")))
		}
	}
	return append(keys, k.Skip, k.Dismiss, k.Filter, k.Help, k.Quit)
}

// FullHelp is the help view, in columns.
func (k keymap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Jump, k.JumpTo},
		{k.Skip, k.Dismiss, k.Allow, k.Deny, k.Yes, k.No, k.Answer},
		{k.Filter, k.Help, k.Back, k.Quit},
	}
}

// filterHelp is the bottom line while the filter is being typed.
func (k keymap) filterHelp() []key.Binding {
	return []key.Binding{k.filterAccept, k.filterCancel, k.filterUp, k.filterDown}
}

// answerHelp is the bottom line while the answer line is open for r.
func (k keymap) answerHelp(r row) []key.Binding {
	if r.item.Prompt.Kind == wire.KindFreeText {
		return []key.Binding{k.answerSend, k.answerBack}
	}
	presses := make([]string, len(r.offers))
	for i, o := range r.offers {
		presses[i] = o.press
	}
	pick := key.NewBinding(key.WithKeys(presses...), key.WithHelp(strings.Join(presses, "/"), "answer"))
	return []key.Binding{pick, k.answerBack, k.Quit}
}
