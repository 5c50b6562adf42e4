package prompt

import "testing"

// Allow is the one plain Yes, whatever its key hint or full stop; a Yes that allows more
// is not one. Deny is any No.
func TestLabelsThatAllowAndRefuse(t *testing.T) {
	for _, c := range []struct {
		label   string
		yes, no bool
	}{
		{"Yes", true, false},
		{"  Yes, proceed (y) ", true, false},
		{"Yes, just this once.", true, false},
		{"Yes, I trust this folder", true, false},
		{"Yes, and don't ask again for this command", false, false},
		{"Yes, and switch to auto mode", false, false},
		{"No", false, true},
		{"No (esc)", false, true},
		{"No, and tell Claude what to do differently", false, true},
		{"Nothing", false, false},
	} {
		if got := IsPlainYes(c.label); got != c.yes {
			t.Errorf("IsPlainYes(%q) = %v, want %v", c.label, got, c.yes)
		}
		if got := IsNo(c.label); got != c.no {
			t.Errorf("IsNo(%q) = %v, want %v", c.label, got, c.no)
		}
	}
}

// The same menu with its highlight moved is the same menu; another option, another question.
func TestSameMenu(t *testing.T) {
	a := Result{Kind: MultipleChoice, Question: "Proceed?", Highlight: 1,
		Choices: []Choice{{Label: "Yes"}, {Label: "No"}}}
	b := a
	b.Highlight = 2
	if !SameMenu(a, b) {
		t.Error("the menu with its highlight moved is not the same menu")
	}
	c := a
	c.Choices = []Choice{{Label: "Yes"}, {Label: "No, and tell Claude"}}
	d := a
	d.Question = "Proceed with the edit?"
	if SameMenu(a, c) || SameMenu(a, d) {
		t.Error("a menu with other options, or another question, is the same menu")
	}
}
