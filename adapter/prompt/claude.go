package prompt

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Claude Code's own screens, as its terminal UI draws them (2.x without a box, 1.x inside
// ╭─╮ boxes; both are matched once borders are stripped):
//
//	✻ Thinking… (12s · esc to interrupt)           the spinner: busy
//
//	Do you want to proceed?                         a permission dialog: the question, then
//	❯ 1. Yes                                        a menu whose highlighted entry carries ❯
//	  2. Yes, and don't ask again for rm commands in /home/dev/shop
//	  3. No, and tell Claude what to do differently (esc)
//
//	──────────────────────────────────────
//	> Try "refactor <filepath>"                    the idle input box, between two borders
//	──────────────────────────────────────
//	  ? for shortcuts
//
// Claude Code 2.1.332 in auto mode asks with an unnumbered menu whose first entry is No;
// ❯ marks the highlighted entry, the others are indented to its label's column, and ↑/↓
// move the highlight. The command sits between two dashed rules (so it does in manual
// mode's numbered dialog):
//
//	 Bash command
//	 Touch a file                                  what the command is for
//	╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
//	 touch /tmp/scratch/touched-by-claude          the command
//	╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
//	 Auto mode can't check actions in this session, so this one needs your approval
//
//	 Do you want to proceed?
//	 ❯ No
//	   Yes
//
//	 Esc to cancel · Tab to amend

// element is a Claude Code screen found on lines start…end of the tail; its footer (the
// lines it owns below its last entry or border) starts at foot.
type element struct {
	start, foot, end int
	res              Result
}

// Lines that may follow a screen's last line before the screen counts as stale: a
// dialog's footer and option descriptions, the idle box's status lines and the slash
// command list that opens under it.
const (
	menuFooter = 6
	idleFooter = 12
	// busyReach is how many lines of text may separate the spinner from the idle box
	// below it (the todo list sits between them); a spinner farther up is history.
	busyReach = 15
)

var (
	// reSpinner matches Claude Code's spinner line: a spinner glyph, then a capitalised
	// -ing word ("Thinking", "Clauding", or a todo's "Running tests") and an ellipsis.
	// "✻ Worked for 1m 3s", written when a turn ends, has no ellipsis and does not match.
	reSpinner = lazyRegexp(`^([·✢✳✶✻✽✺✹✸✷∗*•])\s*\p{Lu}[\p{L}'-]*ing\b[^…]{0,60}?(…|\.\.\.)`)
	// reMenuOption matches an entry of Claude Code's menus. Its space after the dot may be
	// gone when the input was stripped of cursor moves by something other than StripANSI.
	reMenuOption = lazyRegexp(`^(?:([❯›>])\s*)?(\d{1,2})\.\s*(\S.*)$`)
	// reInputLine matches the first line of the input box: its prompt character.
	reInputLine = lazyRegexp(`^[>❯›](\s|$)`)
)

// claudeGlyphs are the spinner glyphs Claude Code cycles through.
const claudeGlyphs = "·✢✳✶✻✽✺✹✸✷∗*"

// busyLine returns the Busy result for l, or false when l is no busy indicator.
func busyLine(l line) (Result, bool) {
	m := reSpinner().FindStringSubmatch(l.text)
	i := strings.Index(l.sq, "esctointerrupt")
	interrupt := i == 0 || (i > 0 && strings.ContainsAny(lastRune(l.sq[:i]), "(·•|-,"))
	if m == nil && !interrupt {
		return Result{}, false
	}
	res := Result{Kind: Busy, Confidence: 0.85, Screen: ScreenBusy}
	if interrupt {
		res.Confidence = 0.95
	}
	if m != nil && strings.Contains(claudeGlyphs, m[1]) {
		res.Harness = HarnessClaude
	}
	return res, true
}

func lastRune(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return ""
	}
	return string(r[len(r)-1])
}

// lastBusy returns the index of the last busy indicator in ls and its result, or -1.
func lastBusy(ls []line) (int, Result) {
	for i := len(ls) - 1; i >= 0; i-- {
		if res, ok := busyLine(ls[i]); ok {
			return i, res
		}
	}
	return -1, Result{}
}

// option is one entry of a menu.
type option struct {
	n      int    // its number; 0 in an unnumbered menu
	cursor string // "❯", "›", ">" or ""
	label  string
}

func menuOption(l line) (option, bool) {
	if !l.content() {
		return option{}, false
	}
	m := reMenuOption().FindStringSubmatch(l.text)
	if m == nil {
		return option{}, false
	}
	n, _ := strconv.Atoi(m[2])
	return option{n: n, cursor: m[1], label: m[3]}, true
}

// menu is a block of options on lines first…last: numbered 1…N, or unnumbered with one
// of them highlighted.
type menu struct {
	first, last int
	opts        []option
}

// choices returns m's options as Choices (an unnumbered option has no Key), and the
// position from 1 of the highlighted one (0: none).
func (m menu) choices() ([]Choice, int) {
	cs := make([]Choice, 0, len(m.opts))
	at := 0
	for i, o := range m.opts {
		key := ""
		if o.n > 0 {
			key = strconv.Itoa(o.n)
		}
		cs = append(cs, Choice{Key: key, Label: label(o.label)})
		if o.cursor == "❯" || o.cursor == "›" {
			at = i + 1
		}
	}
	return cs, at
}

// lastMenu returns the last block of at least two options numbered from 1, allowing a few
// lines (AskUserQuestion's descriptions, a separator) between entries.
func lastMenu(ls []line) (menu, bool) {
	for i := len(ls) - 1; i >= 0; i-- {
		o, ok := menuOption(ls[i])
		if !ok || o.n != 1 {
			continue
		}
		m := menu{first: i, last: i, opts: []option{o}}
		gap := 0
		for j := i + 1; j < len(ls); j++ {
			if !ls[j].content() {
				continue
			}
			if p, ok := menuOption(ls[j]); ok {
				if p.n != len(m.opts)+1 {
					break
				}
				m.opts, m.last, gap = append(m.opts, p), j, 0
				continue
			}
			if gap++; gap > 4 {
				break
			}
		}
		if len(m.opts) >= 2 {
			return m, true
		}
	}
	return menu{}, false
}

// reCursorLine matches an entry that carries the highlight: the cursor, then its label.
var reCursorLine = lazyRegexp(`^([❯›])\s+(\S.*)$`)

// Limits of an unnumbered menu.
const (
	maxUnnumbered = 9 // entries: a dialog, not a list
	// unnumberedFooter is how many lines of text (key hints) may follow its last entry.
	unnumberedFooter = 2
)

// lastUnnumberedMenu returns the last unnumbered menu in ls: one entry highlighted ("❯ No"),
// at least one other indented to the column of its label ("  Yes"), consecutive lines, a
// line with a "?" a little above them, and below them key hints ("Esc to cancel · Tab to
// amend") and nothing else, or nothing at all under a dialog's title question (Claude
// Code's "Make auto mode your default permission mode?"). That is what tells it from a
// prompt of the conversation ("❯ run touch" over "  ⎿  $ touch …"), which has the input
// box or the spinner below it.
func lastUnnumberedMenu(ls []line) (menu, bool) {
	for i := len(ls) - 1; i >= 0; i-- {
		if !ls[i].content() {
			continue
		}
		c := reCursorLine().FindStringSubmatch(ls[i].text)
		if c == nil || reMenuOption().MatchString(ls[i].text) {
			continue
		}
		col := labelColumn(ls[i])
		entry := func(l line) bool {
			return l.content() && l.col == col && !reCursorLine().MatchString(l.text) && !reMenuOption().MatchString(l.text)
		}
		first, last := i, i
		for first > 0 && entry(ls[first-1]) {
			first--
		}
		for last+1 < len(ls) && entry(ls[last+1]) {
			last++
		}
		n := last - first + 1
		hints, ok := keyHints(ls[last+1:])
		if n < 2 || n > maxUnnumbered || !ok || !questionAbove(ls, first) || (hints == 0 && !titled(ls, first)) {
			continue
		}
		m := menu{first: first, last: last}
		for j := first; j <= last; j++ {
			o := option{label: ls[j].text}
			if j == i {
				o.cursor, o.label = c[1], c[2]
			}
			m.opts = append(m.opts, o)
		}
		return m, true
	}
	return menu{}, false
}

// labelColumn returns the column where the label of a highlighted entry starts: after its
// cursor and the spaces that follow it.
func labelColumn(l line) int {
	_, rest, _ := strings.Cut(l.raw, " ")
	return l.col + utf8.RuneCountInString(l.raw) - utf8.RuneCountInString(strings.TrimLeft(rest, " "))
}

// keyHints returns how many lines of text ls holds besides blank lines and rules, and
// whether they are at most unnumberedFooter, each a hint of keys.
func keyHints(ls []line) (int, bool) {
	n := 0
	for _, l := range ls {
		if !l.content() {
			continue
		}
		if n++; n > unnumberedFooter || !containsAny(l.sq, "esctocancel", "entertoselect", "entertoconfirm", "tonavigate", "tabtoamend") {
			return n, false
		}
	}
	return n, true
}

// questionReach is how far above a menu's first entry the line with its "?" may be.
const questionReach = 8

// questionAbove reports whether a line with a "?" is among the few above line first.
func questionAbove(ls []line, first int) bool {
	for i := first - 1; i >= 0 && i >= first-questionReach; i-- {
		if ls[i].content() && strings.Contains(ls[i].text, "?") {
			return true
		}
	}
	return false
}

// titled reports whether the entries from line first are a dialog's: its top rule is a
// little above them, right over a question.
func titled(ls []line, first int) bool {
	for i := first - 1; i > 0 && i >= first-questionReach; i-- {
		if ls[i].rule != notRule {
			return false
		}
		if ls[i-1].rule == rulePlain && strings.HasSuffix(ls[i].text, "?") {
			return true
		}
	}
	return false
}

// lastClaudeMenu returns the last menu of ls that ends later, numbered or not.
func lastClaudeMenu(ls []line) (menu, bool) {
	m, ok := lastMenu(ls)
	if u, uok := lastUnnumberedMenu(ls); uok && (!ok || u.last > m.last) {
		return u, true
	}
	return m, ok
}

// menuQuestion returns the line where a menu's question starts and the question: the
// paragraph holding the nearest line with a "?" above the menu, or else the paragraph
// just above it. It returns first and "" when there is none.
func menuQuestion(ls []line, first int) (int, string) {
	q := -1
	for i := first - 1; i >= 0 && i >= first-12 && q < 0; i-- {
		if ls[i].content() && strings.Contains(ls[i].text, "?") {
			q = i
		}
	}
	for i := first - 1; i >= 0 && i >= first-3 && q < 0; i-- {
		if ls[i].content() {
			q = i
		}
	}
	if q < 0 {
		return first, ""
	}
	a, b := q, q
	for a > 0 && q-a < 3 && ls[a-1].content() {
		a--
	}
	for b+1 < first && b-q < 3 && ls[b+1].content() {
		b++
	}
	parts := make([]string, 0, b-a+1)
	for _, l := range ls[a : b+1] {
		parts = append(parts, l.text)
	}
	return a, question(parts...)
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// menuScreen names the Claude Code dialog whose question, entries and footer, squeezed
// of white space, are window.
func menuScreen(window string) string {
	switch {
	case containsAny(window, "doyoutrustthefilesinthisfolder", "trustthisfolder",
		"isthisaprojectyoucreatedoroneyoutrust"):
		return ScreenTrust
	case containsAny(window, "wouldyouliketoproceed?", "exitplanmode?", "readytoexecute", "keepplanning",
		"auto-acceptedits", "manuallyapproveedits", "tellclaudewhattochange"):
		return ScreenPlan
	case containsAny(window, "doyouwanttomakethisedit", "doyouwanttomaketheseedits",
		"doyouwanttocreate", "doyouwanttooverwrite", "allowalledits"):
		return ScreenEdit
	case containsAny(window, "doyouwanttoproceed?", "doyouwanttoallow", "requestedpermission",
		"don'taskagain", "tellclaudewhattododifferently", "alwaysallowaccess", "requirespermission"):
		return ScreenPermission
	case containsAny(window, "typesomething", "chataboutthis", "entertoselect", "↑/↓tonavigate",
		"☐", "✔submit"):
		return ScreenQuestion
	}
	return ""
}

// claudeMenu returns the last of Claude Code's menus in ls, unless more than menuFooter
// lines of text follow it (it is then history) or nothing marks it as Claude Code's: a ❯
// on an entry, or a known dialog's wording.
func claudeMenu(ls []line) (element, menu, bool) {
	m, ok := lastClaudeMenu(ls)
	if !ok {
		return element{}, menu{}, false
	}
	after := 0
	for _, l := range ls[m.last+1:] {
		if l.content() {
			after++
		}
	}
	if after > menuFooter {
		return element{}, menu{}, false
	}
	start, q := menuQuestion(ls, m.first)
	var window strings.Builder
	for _, l := range ls[start:] {
		window.WriteString(l.sq)
		window.WriteByte('\n')
	}
	screen := menuScreen(window.String())
	cursor := false
	for _, o := range m.opts {
		cursor = cursor || o.cursor == "❯" || o.cursor == "›"
	}
	if screen == "" && strings.HasSuffix(q, "?") && cursor {
		screen = ScreenQuestion
	}
	if screen == "" && !cursor {
		return element{}, menu{}, false
	}
	res := Result{Kind: MultipleChoice, Confidence: 0.95, Question: q, Harness: HarnessClaude, Screen: screen}
	switch screen {
	case ScreenQuestion:
		res.Confidence = 0.9
	case "":
		res.Confidence = 0.85
	}
	res.Choices, res.Highlight = m.choices()
	res.Default = res.Choices[0]
	switch screen {
	case ScreenPermission:
		res.Command = claudeCommand(ls[max(0, start-claudeCommandReach):start])
	case ScreenEdit:
		if f := reEditFile().FindStringSubmatch(q); f != nil {
			res.File = f[1]
		}
	}
	res.Position = stackPosition(ls[max(0, start-claudeCommandReach):m.first])
	return element{start: start, foot: m.last + 1, end: len(ls) - 1, res: res}, m, true
}

// claudeCommandReach is how far above a dialog's question its header ("Bash command") and
// its command may be.
const claudeCommandReach = 30

var (
	// reEditFile matches the end of an edit dialog's question and takes its file.
	reEditFile = lazyRegexp(`(?i)do you want to (?:create|overwrite|make this edit to|make these edits to) (.+)\?$`)
	// reStack matches a line that says where a prompt stands among several that wait.
	reStack = lazyRegexp(`(?:^|[\s·(\[])(\d{1,3}) of (\d{1,3})[)\]]?$`)
)

// claudeCommand returns the command of the Bash dialog whose lines above its question are
// ls: the lines between the two dashed rules under the last "Bash command" header, joined
// by spaces (Claude Code breaks a long command into lines itself). It returns "" when ls
// holds no such header or rules, as Claude Code 2.1.197's dialog, which draws its command
// and what it is for alike, indented under the header.
func claudeCommand(ls []line) string {
	h := -1
	for i := len(ls) - 1; i >= 0 && h < 0; i-- {
		if strings.HasPrefix(ls[i].lower, "bash command") {
			h = i
		}
	}
	if h < 0 {
		return ""
	}
	var rules []int
	for i := h + 1; i < len(ls) && len(rules) < 2; i++ {
		if dashed(ls[i]) {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return ""
	}
	var parts []string
	for _, l := range ls[rules[0]+1 : rules[1]] {
		if l.content() {
			parts = append(parts, l.text)
		}
	}
	return question(parts...)
}

// stackPosition returns where the dialog whose head is ls (the lines above its entries)
// stands among several prompts that wait ("2 of 5"), when its head says so; "" otherwise.
// Only the lines under the dialog's top rule count, and not its command. (Claude Code
// stacks prompts since 2.1.286; how it draws the count is not observed here: a line that
// ends with "N of M", bare or in brackets, N ≤ M, is taken for it.)
func stackPosition(ls []line) string {
	pos, command := "", false
	for _, l := range ls {
		switch {
		case dashed(l):
			command = !command
		case l.rule != notRule:
			pos = "" // a box starts below: what was above is not this dialog
		case l.content() && !command:
			if m := reStack().FindStringSubmatch(l.lower); m != nil {
				n, _ := strconv.Atoi(m[1])
				if of, _ := strconv.Atoi(m[2]); n >= 1 && n <= of {
					pos = m[1] + " of " + m[2]
				}
			}
		}
	}
	return pos
}

// dashed reports whether l is a dashed rule (╌╌╌), which Claude Code draws above and
// below the command of a dialog.
func dashed(l line) bool { return l.rule == rulePlain && strings.HasPrefix(l.text, "╌") }

// claudeIdle returns the last input box in ls: a line that starts with the prompt
// character, a border or rule above it, and one below it after at most 15 lines of draft.
// It returns false when more than idleFooter lines of text follow the box, or when the
// prompt line is an entry of menu m.
func claudeIdle(ls []line, m *menu) (element, bool) {
	for i := len(ls) - 1; i >= 0; i-- {
		if !reInputLine().MatchString(ls[i].text) || (m != nil && i >= m.first && i <= m.last) {
			continue
		}
		top := i - 1
		for top >= 0 && ls[top].blank() {
			top--
		}
		if top < 0 || !ls[top].above() {
			continue
		}
		bottom := -1
		for j := i + 1; j < len(ls) && j <= i+15; j++ {
			if ls[j].rule != notRule {
				if ls[j].below() {
					bottom = j
				}
				break
			}
		}
		if bottom < 0 {
			continue
		}
		after, hints := 0, strings.Contains(ls[i].lower, `try "`)
		for _, l := range ls[bottom+1:] {
			if l.content() {
				after++
				hints = hints || containsAny(l.sq, "forshortcuts", "shift+tab", "⏵⏵", "⏸", "auto-compact")
			}
		}
		if after > idleFooter {
			return element{}, false
		}
		res := Result{Kind: FreeText, Confidence: 0.9, Harness: HarnessClaude, Screen: ScreenIdle}
		if hints {
			res.Confidence = 0.95
		}
		return element{start: top, foot: bottom + 1, end: len(ls) - 1, res: res}, true
	}
	return element{}, false
}

// Claude Code 2.1.332's offer before its first auto-mode dialog, when the server-side
// check cannot run (a gateway's URL):
//
//	Auto mode can't check actions in this session
//
//	Auto mode's safety check runs on the server. …
//	…
//	Enter to stay in auto mode · shift+Tab to leave for accept edits mode and stop · Esc to cancel
const (
	offerTitle = "automodecan'tcheckactionsinthissession"
	offerKeys  = "entertostayinautomode"
	// offerReach is how far above its key hints the offer's title may be.
	offerReach = 15
)

// claudeOffer returns the offer when it ends ls: its key hints among the last lines of
// text (a narrow pane breaks them in two), its title a little above them. Enter is its
// only choice offered here: it stays in auto mode, where each action is asked for;
// shift+Tab, which turns the checks off, and Esc are for the person at the keyboard.
func claudeOffer(ls []line) (Result, bool) {
	keys, after := -1, 0
	for i := len(ls) - 1; i >= 0 && keys < 0 && after <= 1; i-- {
		switch {
		case strings.Contains(ls[i].sq, offerKeys):
			keys = i
		case ls[i].content():
			after++
		}
	}
	if keys < 0 {
		return Result{}, false
	}
	for i := keys - 1; i >= 0 && i >= keys-offerReach; i-- {
		if ls[i].content() && strings.HasPrefix(ls[i].sq, offerTitle) {
			enter := Choice{Key: KeyEnter, Label: "Stay in auto mode"}
			return Result{Kind: PressEnter, Confidence: 0.9, Question: question(ls[i].text), Choices: []Choice{enter},
				Default: enter, Harness: HarnessClaude, Screen: ScreenOffer}, true
		}
	}
	return Result{}, false
}
