package popup

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
)

// Styles is every style the popup draws with. The colours are the terminal's own 16, so
// the popup follows the operator's theme, and nothing asks the terminal for its background
// (an OSC query that a popup cannot afford to wait for). Under the Ascii profile (NO_COLOR)
// every style renders as plain text; the view never relies on colour alone: the selected
// row has a "›", cooling rows a "~", their time left ("cooling 42s") and a heading of
// their own.
type Styles struct {
	Title, Count            lipgloss.Style
	ColumnHead              lipgloss.Style
	Cursor, Selected        lipgloss.Style
	Number, Age, Reason     lipgloss.Style
	Where, Project, Branch  lipgloss.Style
	Summary                 lipgloss.Style
	Cooling, CoolingHeading lipgloss.Style // a row cooling down after a skip, and its heading
	Empty, Error, Hint      lipgloss.Style
	Status                  lipgloss.Style // feedback on the last key, such as a failed skip
	FilterPrompt, Filter    lipgloss.Style
	PreviewRule             lipgloss.Style
	PreviewTitle            lipgloss.Style
	PreviewText             lipgloss.Style
	PreviewNote             lipgloss.Style // "loading", "pane is gone"
	PromptTitle             lipgloss.Style // "answer from here · 9m left" on the prompt's rule
	Question                lipgloss.Style
	ChoiceKey, ChoiceLabel  lipgloss.Style // "a" and "Allow"
	Sent, Refused           lipgloss.Style // a row's note on the answer sent from the popup
	HelpKey, HelpDesc       lipgloss.Style
	HelpSep                 lipgloss.Style
}

// NewStyles returns the popup's styles for r, whose colour profile decides how they render
// (set termenv.Ascii on it for NO_COLOR and for golden tests).
func NewStyles(r *lipgloss.Renderer) Styles {
	s := r.NewStyle
	return Styles{
		Title:          s().Bold(true),
		Count:          s().Foreground(lipgloss.Color("3")).Bold(true),
		ColumnHead:     s().Faint(true),
		Cursor:         s().Foreground(lipgloss.Color("5")).Bold(true),
		Selected:       s().Bold(true),
		Number:         s().Foreground(lipgloss.Color("6")),
		Age:            s().Foreground(lipgloss.Color("3")),
		Reason:         s().Foreground(lipgloss.Color("5")),
		Where:          s().Foreground(lipgloss.Color("4")),
		Project:        s().Foreground(lipgloss.Color("2")),
		Branch:         s().Faint(true),
		Summary:        s(),
		Cooling:        s().Faint(true),
		CoolingHeading: s().Faint(true).Italic(true),
		Empty:          s().Foreground(lipgloss.Color("2")),
		Error:          s().Foreground(lipgloss.Color("1")).Bold(true),
		Hint:           s().Faint(true),
		Status:         s().Foreground(lipgloss.Color("3")),
		FilterPrompt:   s().Foreground(lipgloss.Color("6")).Bold(true),
		Filter:         s(),
		PreviewRule:    s().Faint(true),
		PreviewTitle:   s().Bold(true),
		PreviewText:    s(),
		PreviewNote:    s().Faint(true).Italic(true),
		PromptTitle:    s().Foreground(lipgloss.Color("3")).Bold(true),
		Question:       s().Bold(true),
		ChoiceKey:      s().Foreground(lipgloss.Color("6")).Bold(true),
		ChoiceLabel:    s(),
		Sent:           s().Foreground(lipgloss.Color("2")),
		Refused:        s().Foreground(lipgloss.Color("1")),
		HelpKey:        s().Bold(true),
		HelpDesc:       s().Faint(true),
		HelpSep:        s().Faint(true),
	}
}

// helpStyles dresses the help bubble in s (its defaults use adaptive colours, which query
// the terminal's background).
func (s Styles) helpStyles() help.Styles {
	return help.Styles{
		Ellipsis:       s.HelpSep,
		ShortKey:       s.HelpKey,
		ShortDesc:      s.HelpDesc,
		ShortSeparator: s.HelpSep,
		FullKey:        s.HelpKey,
		FullDesc:       s.HelpDesc,
		FullSeparator:  s.HelpSep,
	}
}
