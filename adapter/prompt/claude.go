package prompt

import (
	"strconv"
	"strings"
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

// option is one numbered entry of a menu.
type option struct {
	n      int
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

// menu is a block of options numbered 1…N on lines first…last.
type menu struct {
	first, last int
	opts        []option
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
	case containsAny(window, "wouldyouliketoproceed?", "readytoexecute", "keepplanning",
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
	m, ok := lastMenu(ls)
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
	for _, o := range m.opts {
		res.Choices = append(res.Choices, Choice{Key: strconv.Itoa(o.n), Label: label(o.label)})
	}
	res.Default = res.Choices[0]
	return element{start: start, foot: m.last + 1, end: len(ls) - 1, res: res}, m, true
}

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
