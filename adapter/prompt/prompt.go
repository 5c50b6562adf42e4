// Package prompt classifies what a terminal is asking of its human: given a pane's screen
// or the tail of its output, it says whether the last thing on it is a yes/no question, a
// press-enter gate, a numbered menu, a free-text prompt, or a busy indicator, and reads
// the question, the choices and a safe default off it. It knows Claude Code's own screens
// (permission, edit and plan dialogs, AskUserQuestion menus, the folder-trust dialog, the
// idle input box, the spinner), Codex CLI's approval prompt, OpenCode's permission dialog
// and question, and generic prompts of other programs.
//
// Classification is a pure function of the text: no I/O, no clock. Only the last
// screenful counts, so a prompt that has scrolled away, or that a spinner has replaced,
// is not a prompt.
//
// This package imports nothing of ours but adapter, for CleanText and the shared words.
package prompt

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/trailboss/trailboss/adapter"
)

// Kind says what kind of prompt is on a screen.
type Kind int

const (
	// Unknown: no prompt recognised. Its Confidence is 0.
	Unknown Kind = iota
	// YesNo: a yes/no question; Choices are yes and no, Default is always no.
	YesNo
	// PressEnter: a gate that waits for Enter (or any key); Default is Enter.
	PressEnter
	// MultipleChoice: a menu, numbered, lettered, or (Claude Code's) unnumbered with a
	// highlighted option; Default is its first choice.
	MultipleChoice
	// FreeText: a prompt for typed text (Secret when it asks for a password); no Default.
	FreeText
	// Busy: a busy indicator is the last thing on screen: the program is working and is
	// not waiting for its human, whatever older prompt is still visible above.
	Busy
)

var kindNames = [...]string{"unknown", "yes-no", "press-enter", "multiple-choice", "free-text", "busy"}

// String returns the kind's name ("yes-no", "press-enter", …), or "Kind(n)" when k is not
// one of the kinds.
func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Valid reports whether k is one of the kinds.
func (k Kind) Valid() bool { return k >= Unknown && k <= Busy }

// Choice is one answer a prompt accepts.
type Choice struct {
	// Key is what to type: "1", "a", "y", "yes", or KeyEnter; "" for an option of an
	// unnumbered menu (Claude Code 2.1.332's "❯ No / Yes"), which is chosen by moving the
	// highlight onto it and pressing Enter.
	Key   string
	Label string // what the screen calls it: "Yes, and don't ask again …", "Deploy to staging"
}

// KeyEnter is the Key of the Enter key: a carriage return, as a terminal sends it.
const KeyEnter = "\r"

// Harness and screen names in a Result.
const (
	HarnessClaude   = adapter.HarnessClaude
	HarnessCodex    = adapter.HarnessCodex
	HarnessOpenCode = adapter.HarnessOpenCode
	HarnessCopilot  = adapter.HarnessCopilot

	ScreenPermission = "permission" // "Do you want to proceed?" over a Yes / Yes, and don't ask again / No menu; Codex's "Would you like to run the following command?"
	ScreenEdit       = "edit"       // "Do you want to make this edit to X?", "Do you want to create X?"; Codex's "Would you like to make the following edits?"
	ScreenPlan       = "plan"       // plan approval: "Would you like to proceed?"
	ScreenQuestion   = "question"   // an AskUserQuestion menu, or another ❯ menu under a "?"
	ScreenTrust      = "trust"      // "Do you trust the files in this folder?"
	ScreenIdle       = "idle"       // the input box, waiting for the next prompt
	ScreenBusy       = "busy"       // the spinner: "✻ Thinking… (esc to interrupt)"
	// ScreenOffer is Claude Code 2.1.332's "Auto mode can't check actions in this session",
	// shown before the first auto-mode dialog: Enter stays in auto mode (and asks for each
	// action), shift+Tab leaves it for accept edits mode, Esc cancels.
	ScreenOffer = "offer"
)

// MaxQuestionLen caps Result.Question, in bytes.
const MaxQuestionLen = 300

// maxLabelLen caps a Choice's Label, in bytes.
const maxLabelLen = 200

// Result is what Classify read off a screen.
type Result struct {
	Kind Kind
	// Confidence is 0 for Unknown and in (0, 1] otherwise: 0.9–0.95 for Claude Code's
	// known dialogs, its input box and spinner, bracketed yes/no markers ("[y/N]",
	// "(yes/no)"), press-enter phrases and password prompts; 0.8–0.85 for a bare "y/N",
	// a lone "[y]", "press y", a Claude menu of no known dialog and a spinner without
	// "esc to interrupt"; 0.75–0.85 for a generic menu; 0.7 for "Enter your name:"; 0.5
	// for a line that merely ends in "?" and 0.45 for one that ends in ":" (0.1 more when
	// a bare input marker such as ">" follows it).
	Confidence float64
	// Question is the prompt's question line(s), cleaned to one line of at most
	// MaxQuestionLen bytes; "" when the screen shows none (the idle box, a spinner).
	Question string
	// Choices are the answers, in screen order: the menu's entries for MultipleChoice,
	// yes and no for YesNo, Enter for PressEnter.
	Choices []Choice
	// Default is the answer to give when the human gives none: "no" for YesNo (whatever
	// the prompt's own capital letter says), Enter for PressEnter, the first choice for
	// MultipleChoice, none (the zero Choice) for FreeText, Busy and Unknown.
	//
	// The first choice of Claude Code's permission, edit, plan and trust menus is the one
	// that approves ("1. Yes"): there Default is the menu's own default, not a safe one.
	// Never send it unattended; the refusing choice is the one whose Label starts "No".
	Default Choice
	// Secret marks a FreeText prompt for a password, passphrase or token: the answer must
	// not be echoed, logged or stored.
	Secret bool
	// Harness is HarnessClaude or HarnessCodex when the screen is one of Claude Code's or
	// Codex CLI's own, else "".
	Harness string
	// Screen names the Claude Code or Codex screen (ScreenPermission, …, ScreenBusy), or "".
	Screen string
	// Command is what an approval asks to run, as the screen shows it ("$ touch probe.txt
	// && ls"), cleaned to one line of at most MaxQuestionLen bytes; "" when it shows none.
	Command string
	// Reason is why the agent asks, as its approval gives it ("Run ls outside the
	// sandbox?"), cleaned like Command; "" when it gives none.
	Reason string
	// File is the file an edit dialog of Claude Code names in its question ("hello.txt" of
	// "Do you want to create hello.txt?"); "" for any other screen.
	File string
	// Highlight is the position in Choices, from 1, of the option the menu highlights (❯ or
	// ›): the one Enter picks, from which ↑ and ↓ move. 0 when no option is highlighted, or
	// the screen shows no menu.
	Highlight int
	// Position is where the prompt shown stands in a stack of prompts that wait together
	// ("2 of 5"), as the screen says it; "" when it says nothing of the kind.
	Position string
}

// Limits on what Classify reads.
const (
	// maxInput is how much of the end of its input Classify replays: far more than a
	// screenful even when every character carries colour escapes.
	maxInput = 256 << 10
	// tailLines is how many non-blank lines, counted from the bottom, make "the screen".
	tailLines = 40
)

// Classify returns the kind of prompt that the last screenful of screen shows, with its
// question, choices and safe default. screen is a captured pane or a tail of raw output,
// with or without ANSI escapes, LF or CRLF line ends. Only the last 40 non-blank lines
// count, and the last thing on them wins: a spinner below a menu means Busy, a menu below
// a spinner means the menu. It returns a Result of Kind Unknown and Confidence 0 when no
// prompt is recognised.
//
// Codex's approval prompt ends the screen with "Press enter to confirm or esc to cancel";
// it is read as the menu it is, with its command and reason, not as a press-enter gate.
func Classify(screen string) Result {
	if len(screen) > maxInput {
		screen = screen[len(screen)-maxInput:]
	}
	return classify(tail(StripANSI(screen)))
}

// classify decides what the last thing on ls is. Claude Code's last menu and its input
// box are found first, and the later of the two stands for Claude Code; it owns the few
// lines under it (footer, status line), and when more follow it is history and ignored.
// A generic prompt must end the screen, below any spinner; below a Claude Code screen it
// wins only when it is explicit (yes/no, press-enter, password), for the footer of Claude
// Code's input box also ends in ":" or "?" and lists numbered things, and the box stays
// on screen after Claude Code exits to the shell. A spinner wins over what is above it:
// a menu that starts above it, and the input box it sits on top of (unless more than
// busyReach lines of text separate them: then it is history).
func classify(ls []line) Result {
	if res, ok := codexApproval(ls); ok {
		return res
	}
	if res, ok := openCodeDialog(ls); ok {
		return res
	}
	if res, ok := geminiDialog(ls); ok {
		return res
	}
	if res, ok := copilotDialog(ls); ok {
		return res
	}
	if res, ok := claudeOffer(ls); ok {
		return res
	}
	busyAt, busy := lastBusy(ls)
	var el *element
	menuEl, m, menuOK := claudeMenu(ls)
	var mp *menu
	if menuOK {
		el, mp = &menuEl, &m
	}
	if idle, ok := claudeIdle(ls, mp); ok && (el == nil || idle.start > el.start) {
		el = &idle
	}
	from := busyAt + 1
	if el != nil {
		from = max(from, el.foot)
	}
	if res, ok := generic(ls[from:]); ok && (el == nil || res.Kind == YesNo || res.Kind == PressEnter || res.Secret) {
		return res
	}
	if busyAt < 0 {
		if el != nil {
			return el.res
		}
		return Result{}
	}
	if el != nil && el.start > busyAt {
		if el.res.Screen != ScreenIdle {
			return el.res
		}
		between := 0
		for _, l := range ls[busyAt+1 : el.start] {
			if l.content() {
				between++
			}
		}
		if between > busyReach {
			return el.res
		}
	}
	return busy
}

// line is one line of the screen, prepared for matching.
type line struct {
	col   int    // the column its text starts at: how many border and space runes precede it
	raw   string // box borders and the white space around them stripped, nothing else
	text  string // box borders stripped, white space folded to single spaces, trimmed
	lower string // text in lower case, curly apostrophes made straight
	sq    string // lower without any white space, for matching words glued together
	rule  rule   // a horizontal box-drawing line
}

type rule int

const (
	notRule    rule = iota
	ruleTop         // ╭───╮, ┌───┐, possibly with a title
	ruleBottom      // ╰───╯, └───┘
	rulePlain       // ──────
)

func (l line) blank() bool { return l.text == "" }

// content reports whether l holds text rather than nothing or a border.
func (l line) content() bool { return l.text != "" && l.rule == notRule }

// above reports whether l can close a box from above (a top border or a rule).
func (l line) above() bool { return l.rule == ruleTop || l.rule == rulePlain }

// below reports whether l can close a box from below (a bottom border or a rule).
func (l line) below() bool { return l.rule == ruleBottom || l.rule == rulePlain }

// tail returns the lines of text from the tailLines-th non-blank line from the bottom on.
func tail(text string) []line {
	raw := strings.Split(text, "\n")
	start, n := 0, 0
	for i := len(raw) - 1; i >= 0; i-- {
		if strings.TrimSpace(raw[i]) != "" {
			if n++; n == tailLines {
				start = i
				break
			}
		}
	}
	ls := make([]line, 0, len(raw)-start)
	for _, s := range raw[start:] {
		ls = append(ls, newLine(s))
	}
	return ls
}

func newLine(s string) line {
	var l line
	l.col = utf8.RuneCountInString(s) - utf8.RuneCountInString(strings.TrimLeftFunc(s, isBorder))
	s = strings.TrimFunc(s, isBorder)
	l.raw = s
	l.rule = ruleOf(s)
	l.text = strings.Join(strings.Fields(strings.ReplaceAll(s, "\u00a0", " ")), " ")
	l.lower = strings.ReplaceAll(strings.ToLower(l.text), "’", "'")
	l.sq = strings.ReplaceAll(l.lower, " ", "")
	return l
}

// isBorder reports whether r is white space or a vertical box-drawing border, which
// frame the text of a boxed line.
func isBorder(r rune) bool {
	switch r {
	case '│', '┃', '║', '╎', '╏', '┆', '┇', '┊', '┋':
		return true
	}
	return unicode.IsSpace(r)
}

func ruleOf(s string) rule {
	if s == "" {
		return notRule
	}
	first, last := []rune(s)[0], []rune(s)[len([]rune(s))-1]
	switch first {
	case '╭', '┌', '╔':
		return ruleTop
	case '╰', '└', '╚':
		return ruleBottom
	}
	for _, r := range s {
		boxDrawing := r >= 0x2500 && r <= 0x257f
		blocks := r >= 0x2580 && r <= 0x259f
		if !boxDrawing && !blocks && r != ' ' {
			return notRule
		}
	}
	if last == '╮' || last == '┐' {
		return ruleTop
	}
	if last == '╯' || last == '┘' {
		return ruleBottom
	}
	return rulePlain
}

// question returns text cleaned to be a Result's Question.
func question(parts ...string) string {
	return adapter.CleanText(strings.Join(parts, " "), MaxQuestionLen)
}

func label(s string) string { return adapter.CleanText(s, maxLabelLen) }

// lazyRegexp compiles expr on first use. The patterns serve the daemon's screen adapter;
// compiled at package start they cost every command of the one binary, every hook among
// them, half a millisecond.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
