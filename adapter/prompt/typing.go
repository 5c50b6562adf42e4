package prompt

import "time"

// Typing is what the deliverer (daemon/deliver) must know of one harness's program, beyond
// what Classify reads off its screen, to type an answer into its pane: how its screen
// settles, how it reads several lines, how its input box and its dialogs show. The registry
// of harnesses (daemon/harnesses.go) hands each harness's Typing to the deliverer. The zero
// Typing is a program the deliverer knows nothing of, typed into as any program in a pane.
type Typing struct {
	// HoldStill is how long its pane must show the same screen before an answer is typed
	// into it (0: at once): for a program that draws its screen again as its turn ends, and
	// loses keys it gets meanwhile.
	HoldStill time.Duration
	// StillView, when not nil, returns the part of a screen that must hold still: the
	// screen without what moves while the program waits, such as an animated logo.
	StillView func(screen string) string
	// Paste says it reads a bracketed paste as one input, so a reply of several lines is
	// one answer; any other program would read each line as an answer of its own.
	Paste bool
	// InputBox says how a screen shows its input box for free text.
	InputBox InputBox
	// Offer names its offer (a screen Classify reads as ScreenOffer, which asks something
	// else before the dialog a record is for) in a refusal: `X's offer "…"`.
	Offer string
	// WholeSubject says its approvals show what they ask about whole, as its hooks' records
	// name it: a command dialog's Command, an edit dialog's File. An unnumbered approval of
	// it, which no hook holds, is bound to its record by that alone, so it must show one.
	// Otherwise an approval's Command is the head of a command ("$ …"), looked for in the
	// record's question.
	WholeSubject bool
}

// InputBox is how a screen shows a program's input box for free text.
type InputBox int

const (
	// InputAsked: a FreeText prompt; with the record's question, when the record was read
	// off a screen. What any program in a pane shows.
	InputAsked InputBox = iota
	// InputOwn: a FreeText screen Classify names as the program's own (its Harness).
	InputOwn
	// InputUnread: a box Classify does not name as the program's: a screen that shows no
	// other prompt (Unknown or FreeText) is taken for it, the deliverer having checked that
	// the agent itself runs in the pane, in its foreground.
	InputUnread
)
