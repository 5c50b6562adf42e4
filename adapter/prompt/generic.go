package prompt

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Prompts of programs other than Claude Code. Each must be the last text on the screen:
// a question with output after it has been answered or abandoned.

var (
	// Yes/no markers, matched in lower case: "(y/n)", "[Y/n]", "(yes/no)",
	// "(yes/no/[fingerprint])", "(y)es/(n)o", "[y] [n]", a bare "y/N" or "yes/no" at the
	// end, a lone "[y]" or "[n]" at the end, "press y to continue".
	reYNBracket = lazyRegexp(`[\[(]\s*(y|yes)\s*/\s*(n|no)\s*(?:/[^\])]*)?[\])]`)
	reYNWords   = lazyRegexp(`\(y\)es\s*/\s*\(n\)o`)
	reYNPair    = lazyRegexp(`\[\s*(y|yes)\s*\]\s*/?\s*\[\s*(n|no)\s*\]`)
	reYNBare    = lazyRegexp(`(?:^|[\s?:,])(y|yes)\s*/\s*(n|no)\s*[?:]?$`)
	reYNSingle  = lazyRegexp(`\[\s*(y|yes|n|no)\s*\]\s*[?:]?$`)
	reYNPress   = lazyRegexp(`\b(?:press|type|enter|hit)\s+['"]?(y|yes)['"]?\s+(?:to|for)\b`)

	// pressEnter phrases, matched with white space squeezed out.
	pressEnter = []string{"pressenter", "pressreturn", "hitenter", "hitreturn", "pressanykey",
		"hitanykey", "strikeanykey", "pressakey", "press<enter>", "press<return>", "press⏎",
		"[enter]", "--more--"}

	// Menu entries: "1) foo", "1. foo", "(1) foo", "1: foo", "[1] foo", "a) foo", "(a) foo",
	// "[a] foo", possibly behind a cursor.
	reNumEntry    = lazyRegexp(`^(?:[>❯›*]\s*)?\(?(\d{1,2})(?:[.:]\s+|\)\s*)(\S.*)$`)
	reBoxEntry    = lazyRegexp(`^(?:[>❯›*]\s*)?\[(\d{1,2}|[a-zA-Z])\]\s*(\S.*)$`)
	reLetterEntry = lazyRegexp(`^(?:[>❯›*]\s*)?\(?([a-zA-Z])\)\s*(\S.*)$`)
	// reInlineEntry finds the entries of a menu written on one line: "1) foo 2) bar".
	reInlineEntry = lazyRegexp(`(?:^|\s)(?:(\d{1,2})\)|\[(\d{1,2})\])\s+`)
	// reAskLine matches a line that asks for a menu answer: "Enter choice [1-3]:", "#?", ">".
	reAskLine = lazyRegexp(`[:?>]$|^#\?$|choice|select|choose|option|number|pick|enter|\[\d+-\d+\]`)

	// reSecret matches a prompt for something that must not be echoed.
	reSecret = lazyRegexp(`password|passphrase|pass phrase|passcode|\bpin\b|one-time code|\botp\b|api key|token|secret`)
	// reAskWords marks a line ending in ":" as a request for input rather than a heading.
	reAskWords = lazyRegexp(`\b(enter|type|input|provide|specify|choose|select|name|value|path|file|email|username|user|message|description|url|address|key|answer|reply|title|version)\b`)
)

// bareMarkers are lines that only show where to type, below the question they answer.
var bareMarkers = map[string]bool{">": true, ">>": true, "›": true, "❯": true, "»": true,
	"→": true, "#?": true, "?": true, ":": true}

// generic returns the prompt that ends ls, if any.
func generic(ls []line) (Result, bool) {
	var cs []line
	for _, l := range ls {
		if l.content() {
			cs = append(cs, l)
		}
	}
	if len(cs) == 0 {
		return Result{}, false
	}
	pl := len(cs) - 1 // the prompt line: the last, or the one above a bare marker
	marker := bareMarkers[cs[pl].text]
	if marker && pl > 0 {
		pl--
	}
	for _, f := range []func([]line, int) (Result, bool){yesNo, pressEnterGate} {
		if res, ok := f(cs, pl); ok {
			return res, true
		}
	}
	if res, ok := multipleChoice(cs); ok {
		return res, true
	}
	return freeText(cs, pl, marker)
}

// yesNo recognises a yes/no marker on the prompt line. Its keys are "yes" and "no" when
// the marker spells the words out (ssh and friends accept nothing shorter), else "y" and
// "n"; its default is no whatever letter the prompt capitalises.
func yesNo(cs []line, pl int) (Result, bool) {
	p := cs[pl]
	conf, words, loc := 0.0, false, []int(nil)
	switch {
	case reYNBracket().MatchString(p.lower):
		m := reYNBracket().FindStringSubmatchIndex(p.lower)
		if len(p.lower)-m[1] > 25 { // the marker must end the question
			return Result{}, false
		}
		conf, words, loc = 0.95, p.lower[m[2]:m[3]] == "yes", m[:2]
	case reYNWords().MatchString(p.lower):
		conf, loc = 0.95, reYNWords().FindStringIndex(p.lower)
	case reYNPair().MatchString(p.lower):
		m := reYNPair().FindStringSubmatchIndex(p.lower)
		conf, words, loc = 0.95, p.lower[m[2]:m[3]] == "yes", m[:2]
	case reYNBare().MatchString(p.lower):
		m := reYNBare().FindStringSubmatchIndex(p.lower)
		conf, words, loc = 0.85, p.lower[m[2]:m[3]] == "yes", m[:2]
	case reYNSingle().MatchString(p.lower):
		m := reYNSingle().FindStringSubmatchIndex(p.lower)
		w := p.lower[m[2]:m[3]]
		conf, words, loc = 0.8, w == "yes" || w == "no", m[:2]
	case reYNPress().MatchString(p.lower):
		conf, loc = 0.8, reYNPress().FindStringIndex(p.lower)
	default:
		return Result{}, false
	}
	yes, no := Choice{"y", "Yes"}, Choice{"n", "No"}
	if words {
		yes.Key, no.Key = "yes", "no"
	}
	q := p.text
	if letters(p.lower[:loc[0]]+p.lower[loc[1]:]) < 3 && pl > 0 {
		q = cs[pl-1].text + " " + q // "[y/N]" alone under its question
	}
	return Result{Kind: YesNo, Confidence: conf, Question: question(q),
		Choices: []Choice{yes, no}, Default: no}, true
}

// pressEnterGate recognises "Press Enter to continue", "Hit enter", "-- More --" and the
// like on the prompt line.
func pressEnterGate(cs []line, pl int) (Result, bool) {
	if !containsAny(cs[pl].sq, pressEnter...) {
		return Result{}, false
	}
	enter := Choice{KeyEnter, "Enter"}
	return Result{Kind: PressEnter, Confidence: 0.9, Question: question(cs[pl].text),
		Choices: []Choice{enter}, Default: enter}, true
}

// entry parses a menu entry, returning its key and label.
func entry(l line) (key, lbl string, ok bool) {
	for _, re := range []func() *regexp.Regexp{reNumEntry, reBoxEntry, reLetterEntry} {
		if m := re().FindStringSubmatch(l.text); m != nil {
			return m[1], m[2], true
		}
	}
	return "", "", false
}

// follows reports whether key comes right after prev in a menu: 2 after 1, b after a.
func follows(prev, key string) bool {
	if p, err := strconv.Atoi(prev); err == nil {
		k, err := strconv.Atoi(key)
		return err == nil && k == p+1
	}
	return len(prev) == 1 && len(key) == 1 && unicode.ToLower(rune(key[0])) == unicode.ToLower(rune(prev[0]))+1
}

func isFirstKey(k string) bool { return k == "1" || k == "a" || k == "A" }

// multipleChoice recognises a menu whose entries, keyed 1, 2, … or a, b, …, end the
// screen, or are followed by at most two lines that ask for the answer ("Enter choice
// [1-3]:", "#?", ">"); or a menu written on one line ("1) foo 2) bar").
func multipleChoice(cs []line) (Result, bool) {
	for trail := 0; trail <= 2 && trail < len(cs); trail++ {
		asks := true
		for _, l := range cs[len(cs)-trail:] {
			asks = asks && reAskLine().MatchString(l.lower)
		}
		if !asks {
			break
		}
		last := len(cs) - 1 - trail
		keys, labels, first := menuEndingAt(cs, last)
		if keys == nil {
			continue
		}
		res := Result{Kind: MultipleChoice, Confidence: 0.75}
		var above string
		if first > 0 {
			above = cs[first-1].text
		}
		ask := ""
		if trail > 0 {
			res.Confidence += 0.05
			ask = cs[len(cs)-trail].text
			if bareMarkers[ask] {
				ask = ""
			}
		}
		switch {
		case strings.HasSuffix(above, ":") || strings.HasSuffix(above, "?"):
			res.Confidence = min(res.Confidence+0.05, 0.85) // a menu is a heuristic: below 0.9
			res.Question = question(above)
		case ask != "":
			res.Question = question(ask)
		default:
			res.Question = question(above)
		}
		for i := range keys {
			res.Choices = append(res.Choices, Choice{Key: keys[i], Label: label(labels[i])})
		}
		res.Default = res.Choices[0]
		return res, true
	}
	return inlineChoice(cs)
}

// menuEndingAt returns the keys and labels of the menu whose last entry is cs[last], and
// the index of its first entry; nil keys when cs[last] ends no menu that starts at 1 or a.
// One line (a wrapped label) may sit between two entries.
func menuEndingAt(cs []line, last int) (keys, labels []string, first int) {
	k, lbl, ok := entry(cs[last])
	if !ok {
		return nil, nil, 0
	}
	keys, labels, first = []string{k}, []string{lbl}, last
	for i := last - 1; i >= 0 && !isFirstKey(keys[0]) && first-i <= 2; i-- {
		pk, plbl, ok := entry(cs[i])
		if !ok {
			continue
		}
		if !follows(pk, keys[0]) {
			return nil, nil, 0
		}
		keys, labels, first = append([]string{pk}, keys...), append([]string{plbl}, labels...), i
	}
	if len(keys) < 2 || !isFirstKey(keys[0]) {
		return nil, nil, 0
	}
	return keys, labels, first
}

// inlineChoice recognises a menu written on the last line: "Pick one: 1) foo 2) bar".
func inlineChoice(cs []line) (Result, bool) {
	p := cs[len(cs)-1]
	locs := reInlineEntry().FindAllStringSubmatchIndex(p.text, -1)
	if len(locs) < 2 {
		return Result{}, false
	}
	res := Result{Kind: MultipleChoice, Confidence: 0.75}
	for i, m := range locs {
		k := ""
		if m[2] >= 0 {
			k = p.text[m[2]:m[3]]
		} else {
			k = p.text[m[4]:m[5]]
		}
		if (i == 0 && k != "1") || (i > 0 && !follows(res.Choices[i-1].Key, k)) {
			return Result{}, false
		}
		end := len(p.text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		res.Choices = append(res.Choices, Choice{Key: k, Label: label(p.text[m[1]:end])})
	}
	q := strings.TrimSpace(p.text[:locs[0][0]])
	if q == "" && len(cs) > 1 {
		q = cs[len(cs)-2].text
	}
	res.Question = question(q)
	res.Default = res.Choices[0]
	return res, true
}

// freeText recognises a prompt line that ends in ":" or "?" and asks for typed text,
// flagging it Secret when it asks for a password or the like.
func freeText(cs []line, pl int, marker bool) (Result, bool) {
	p := cs[pl]
	colon, mark := strings.HasSuffix(p.text, ":"), strings.HasSuffix(p.text, "?")
	if (!colon && !mark) || letters(p.lower) == 0 {
		return Result{}, false
	}
	res := Result{Kind: FreeText, Question: question(p.text)}
	switch {
	case reSecret().MatchString(p.lower):
		res.Confidence, res.Secret = 0.9, true
	case colon && reAskWords().MatchString(p.lower):
		res.Confidence = 0.7
	case colon:
		res.Confidence = 0.45
	default:
		res.Confidence = 0.5
	}
	if marker {
		res.Confidence = min(res.Confidence+0.1, 0.9)
	}
	return res, true
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
