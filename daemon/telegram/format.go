package telegram

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// What a message says, as pure functions of the prompt record and where its session is.
// Messages are HTML (parse_mode HTML): only <, > and & need escaping, and everything that
// came from an agent, a screen or a folder name is escaped and cut.

// Limits of what a message shows. Telegram takes 4,096 characters of text after its
// entities are parsed (counted here in UTF-16 units, as Telegram counts them, which is never
// fewer than runes); a message keeps room under that for the line that says what became of
// its prompt (closedHTML) or that Trail Boss restarted.
const (
	maxText     = 4096 // characters of a message's text: Telegram's limit
	textBudget  = 3800 // characters a prompt's message may use while it takes answers
	maxQuestion = 1500 // runes of the question, the command or the last words
	headTail    = 600  // runes of each end of a command too long to show whole
	maxChoice   = 200  // runes of one option in the text
	maxButton   = 40   // runes of a button's label
	maxButtons  = 90   // buttons under one message (Telegram takes 100)
	maxCallback = 64   // bytes of callback_data: Telegram's limit
)

// place is where a session runs, as a message names it.
type place struct {
	Project string // the base name of its folder
	Branch  string // its git branch, or ""
	Tmux    string // "session:window", the pane id when the window is unknown, or ""
	Run     bool   // it runs under trailboss run
	Host    string // the [[hosts]] name of the machine it runs on; "" for this one
}

// view is what one message shows: a prompt record, its session's words and place.
type view struct {
	Prompt  queue.Prompt
	Reason  string // the session's reason (permission, stopped)
	Detail  string // its detail (question, plan, error …)
	Where   place
	Restart bool // the daemon restarted since it was first sent
}

// clip returns s cut to n runes on a word boundary when one is near, with "…" when cut,
// its control characters (line ends aside) taken out and its format characters shown
// (adapter.ShowFormat).
func clip(s string, n int) string {
	s = visible(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)[:n]
	cut := string(rs)
	if i := strings.LastIndexAny(cut, " \n\t"); i > len(cut)*3/4 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n\t") + "…"
}

// visible returns s trimmed, its control characters (line ends and tabs aside) taken out
// and its format characters shown as marks.
func visible(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	return adapter.ShowFormat(s)
}

func esc(s string) string { return html.EscapeString(s) }

// textLen is how long Telegram counts a message's HTML to be: its text after entities, in
// UTF-16 units.
func textLen(h string) int { return len(utf16.Encode([]rune(plainText(h)))) }

// thousands writes n with a comma every three digits: 1,956.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

var tag = regexp.MustCompile(`<[^>]*>`)

// plainText returns the words of a message's HTML: its tags out, its entities read.
func plainText(h string) string { return html.UnescapeString(tag.ReplaceAllString(h, "")) }

// oneLine returns s on one line: runs of white space become one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// header is the message's first line: the project, its branch, the tmux place.
func header(w place) string {
	var b strings.Builder
	b.WriteString("⏸ ")
	if w.Project != "" {
		b.WriteString("<b>" + esc(clip(oneLine(w.Project), 60)) + "</b>")
	} else {
		b.WriteString("<b>a session</b>")
	}
	if w.Branch != "" {
		b.WriteString(" (" + esc(clip(oneLine(w.Branch), 60)) + ")")
	}
	switch {
	case w.Tmux != "":
		b.WriteString(" · tmux <code>" + esc(clip(oneLine(w.Tmux), 60)) + "</code>")
	case w.Run:
		b.WriteString(" · trailboss run")
	}
	if w.Host != "" {
		b.WriteString(" · on <b>" + esc(clip(oneLine(w.Host), 40)) + "</b>")
	}
	return b.String()
}

// asks says in words what the prompt waits for.
func asks(v view) string {
	if v.Prompt.Ask.Secret {
		return "asks for a password or secret"
	}
	switch v.Prompt.Ask.Kind {
	case adapter.AskPermission:
		if v.Detail == adapter.DetailPlan {
			return "asks you to approve its plan"
		}
		return "asks permission"
	case adapter.AskMenu:
		if v.Detail == "question" {
			return "asks you a question"
		}
		return "asks you to choose"
	case adapter.AskYesNo:
		return "asks yes or no"
	case adapter.AskPressEnter:
		return "waits for Enter"
	case adapter.AskFreeText:
		switch {
		case v.Prompt.Harness == queue.HarnessPTY:
			return "waits for a line of input"
		case v.Reason == adapter.ReasonStopped && v.Detail != "":
			return "stopped (" + oneLine(v.Detail) + ") and waits for your next message"
		default:
			return "finished and waits for your next message"
		}
	}
	return "waits for you"
}

// composed is a prompt's message while it takes answers: its HTML and its buttons.
type composed struct {
	HTML     string
	Keyboard *Keyboard // nil: none
	// PaneOnly says why the message takes no answer at all ("" when it takes one): a
	// secret, which is answered at the keyboard only.
	PaneOnly string
}

// Hints that end a message, and what closedHTML looks for to replace them.
const (
	hintDeadline = "Takes answers until"
	hintPaneOnly = "🔒 "
	hintRestart  = "<i>Trail Boss restarted"
)

// compose lays out prompt v's message within Telegram's limits (textBudget characters
// after entities): where and what, the question (a command too long to show whole as its
// head and tail, with its length), as many of a menu's options as fit, and a button for
// each answer shown. Nothing is offered that the message does not show: a command not shown
// whole gets no Allow, options left out get no button, and a secret gets no button and no
// reply request (it is answered at the keyboard).
func compose(v view, loc *time.Location) composed {
	p := v.Prompt
	var b strings.Builder
	b.WriteString(header(v.Where) + "\n")
	b.WriteString(esc(asks(v)) + ":\n")
	q := visible(p.Ask.Question)
	cmd := commandShown{whole: true}

	switch {
	case q == "":
		b.WriteString("<i>(it said nothing more)</i>\n")
	case p.Ask.Kind == adapter.AskPermission && !p.Ask.Secret:
		cmd = showCommand(p.Ask.Question)
		b.WriteString(cmd.html)
	default:
		b.WriteString("<blockquote>" + esc(clip(q, maxQuestion)) + "</blockquote>\n")
	}
	last := ""
	restart := ""
	if v.Restart {
		restart = "\n" + hintRestart + "; this prompt still takes answers.</i>"
	}
	deadline := " " + hintDeadline + " " + p.ExpiresAt.In(loc).Format("15:04") + "."
	var choices []int // the indexes of the choices that get a button
	switch {
	case p.Ask.Secret:
		last = hintPaneOnly + "Answer it at the keyboard in its pane: Trail Boss never sends a password or secret through Telegram, so it takes no reply here."
		return composed{HTML: b.String() + last + restart, PaneOnly: "it asks for a password or secret"}
	case p.Ask.Kind == adapter.AskFreeText:
		last = "Reply to this message with your answer." + deadline
	case p.Ask.Kind == adapter.AskPermission && !cmd.whole:
		last = esc(cmd.length) + " — approve it in the pane. Deny works from here." + deadline
		for i, c := range p.Ask.Choices {
			if c.Key != "allow" {
				choices = append(choices, i)
			}
		}
	case p.Ask.Kind == adapter.AskPermission:
		last = "Tap Allow or Deny." + deadline
	default:
		last = "Tap a button." + deadline
	}
	if p.Ask.Kind == adapter.AskMenu {
		// The options that fit, in order; the rest are named by their number only.
		room := textBudget - textLen(b.String()+last+restart) - len("… and 999 more options — answer in the pane\n")
		shown := 0
		for i, c := range p.Ask.Choices {
			line := esc(c.Key) + ". " + esc(clip(oneLine(c.Label), maxChoice)) + "\n"
			n := textLen(line)
			if n > room || shown == maxButtons {
				break
			}
			room -= n
			b.WriteString(line)
			choices = append(choices, i)
			shown++
		}
		if left := len(p.Ask.Choices) - shown; left > 0 {
			word := "options"
			if left == 1 {
				word = "option"
			}
			fmt.Fprintf(&b, "… and %d more %s — answer in the pane\n", left, word)
		}
	} else if p.Ask.Kind != adapter.AskPermission || cmd.whole {
		for i := range p.Ask.Choices {
			if i < maxButtons {
				choices = append(choices, i)
			}
		}
	}
	return composed{HTML: b.String() + last + restart, Keyboard: keyboard(p, choices)}
}

// messageHTML is the text of a prompt's message while it takes answers.
func messageHTML(v view, loc *time.Location) string { return compose(v, loc).HTML }

// commandShown is how a permission's command is shown.
type commandShown struct {
	html   string
	whole  bool   // all of it is shown
	length string // when not whole: "1,956 characters", "over 2,000 characters"
}

// showCommand shows command, a permission's question, whole when it fits in maxQuestion
// runes (its format characters shown as marks) and its record kept all of it; else its
// head and its tail (its head only, when the record kept only its start: adapter.Cut)
// with how long it is.
func showCommand(command string) commandShown {
	q := visible(command)
	n := utf8.RuneCountInString(q)
	cut := adapter.Cut(command) // cut as its record was made: only its start is known
	if n <= maxQuestion && !cut {
		return commandShown{html: "<pre>" + esc(q) + "</pre>\n", whole: true}
	}
	rs := []rune(q)
	if cut {
		head := string(rs[:min(len(rs)-1, 2*headTail)])
		length := "over " + thousands(n-1) + " characters"
		return commandShown{length: length, html: "<pre>" + esc(head) + "</pre>\n" +
			"<i>… and more: the command is " + esc(length) + " long, and only its start was kept.</i>\n"}
	}
	length := thousands(utf8.RuneCountInString(strings.TrimSpace(command))) + " characters"
	return commandShown{length: length, html: "<pre>" + esc(string(rs[:headTail])) + "</pre>\n" +
		"<i>… " + thousands(n-2*headTail) + " characters not shown here; it ends:</i>\n" +
		"<pre>" + esc(string(rs[n-headTail:])) + "</pre>\n"}
}

// keyboard is the buttons of a prompt's message: one for each of its choices at the
// indexes given, in rows of up to three (one a row when a label is long).
func keyboard(p queue.Prompt, indexes []int) *Keyboard {
	if len(indexes) == 0 {
		return nil
	}
	var row []Button
	var rows [][]Button
	long := false
	for _, i := range indexes {
		if utf8.RuneCountInString(p.Ask.Choices[i].Label) > 12 {
			long = true
		}
	}
	for _, i := range indexes {
		label := buttonLabel(p.Ask.Kind, p.Ask.Choices[i])
		row = append(row, Button{Text: label, Data: callbackData(p, i)})
		if long || len(row) == 3 {
			rows = append(rows, row)
			row = nil
		}
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return &Keyboard{Rows: rows}
}

// notShownHTML is a prompt's message when its full message cannot be sent (Telegram
// refused it): where, what it waits for, and that it is answered in the pane.
func notShownHTML(v view, why string) string {
	return header(v.Where) + "\n" + esc(asks(v)) + ", but this prompt cannot be shown here (" + esc(clip(oneLine(why), 200)) +
		").\n" + hintPaneOnly + "Answer it in its pane; nothing can be sent to it from here."
}

func buttonLabel(kind string, c adapter.AskChoice) string {
	label := clip(oneLine(c.Label), maxButton)
	switch {
	case kind == adapter.AskPermission:
		if c.Key == "allow" {
			return "✅ " + label
		}
		return "❌ " + label
	case kind == adapter.AskMenu:
		return c.Key + ". " + label
	case label == "":
		return c.Key
	}
	return label
}

// Callback data: "a:" prompt id ":" nonce ":" choice, where choice is the choice's key,
// or "#" and its index when the key would not fit in Telegram's 64 bytes.
func callbackData(p queue.Prompt, i int) string {
	base := "a:" + p.ID + ":" + p.Nonce + ":"
	if key := p.Ask.Choices[i].Key; len(base)+len(key) <= maxCallback && !strings.HasPrefix(key, "#") {
		return base + key
	}
	return base + "#" + strconv.Itoa(i)
}

// tap is a parsed button press.
type tap struct {
	PromptID, Nonce string
	Key             string // the choice's key, or "" when Index names it
	Index           int    // -1 unless the data named the choice by its index
}

// parseCallback reads callback data made by callbackData; ok is false for anything else.
func parseCallback(data string) (tap, bool) {
	parts := strings.SplitN(data, ":", 4)
	if len(parts) != 4 || parts[0] != "a" || parts[1] == "" || parts[2] == "" || parts[3] == "" || len(data) > maxCallback {
		return tap{}, false
	}
	t := tap{PromptID: parts[1], Nonce: parts[2], Key: parts[3], Index: -1}
	if n, ok := strings.CutPrefix(parts[3], "#"); ok {
		i, err := strconv.Atoi(n)
		if err != nil || i < 0 {
			return tap{}, false
		}
		t.Key, t.Index = "", i
	}
	return t, true
}

// outcome says in a line what became of a prompt that no longer takes answers.
func outcome(p queue.Prompt, found bool, now time.Time) string {
	switch {
	case !found:
		return "↪ No longer waiting."
	case p.Status == queue.PromptAnswered:
		what := ""
		if l := p.Ask.Label(p.Answer); l != "" {
			what = ": " + esc(l)
		}
		if p.Channel == "telegram" {
			return "✅ Answered from Telegram" + what + "."
		}
		return "✅ Answered from " + esc(wire.ChannelWords(p.Channel)) + what + "."
	case p.Status == queue.PromptExpired || (p.Status == queue.PromptPending && !now.Before(p.ExpiresAt)):
		return "⌛ Expired: nothing was typed. Answer it in its pane."
	case p.Status == queue.PromptFailed:
		return "✖ The session ended (its program exited, or its pane is gone). This prompt is no longer active."
	case p.Status == queue.PromptWithdrawn:
		return "↪ No longer waiting: the session moved on (answered at the keyboard, or it asks something else now)."
	}
	return "↪ No longer waiting."
}

// closedHTML is the text of a prompt's message once it no longer takes answers: what it
// said, its last line (the hint and the deadline) replaced by the outcome.
func closedHTML(sent, outcomeLine string) string {
	body := sent
	hint := func(line string) bool {
		return strings.Contains(line, hintDeadline) || strings.HasPrefix(line, hintPaneOnly)
	}
	if i := strings.LastIndex(body, "\n"); i >= 0 && (hint(body[i+1:]) || strings.HasPrefix(body[i+1:], hintRestart)) {
		body = body[:i]
		if j := strings.LastIndex(body, "\n"); j >= 0 && hint(body[j+1:]) {
			body = body[:j]
		}
	}
	body = strings.Replace(body, "⏸ ", "", 1)
	return body + "\n<b>" + outcomeLine + "</b>"
}
