package telegram

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
)

// What a message says, as pure functions of the prompt record and where its session is.
// Messages are HTML (parse_mode HTML): only <, > and & need escaping, and everything that
// came from an agent, a screen or a folder name is escaped and cut.

// Limits of what a message shows; Telegram takes 4096 characters.
const (
	maxQuestion = 1500 // runes of the question, the command or the last words
	maxChoice   = 200  // runes of one option in the text
	maxButton   = 40   // runes of a button's label
	maxCallback = 64   // bytes of callback_data: Telegram's limit
)

// place is where a session runs, as a message names it.
type place struct {
	Project string // the base name of its folder
	Branch  string // its git branch, or ""
	Tmux    string // "session:window", the pane id when the window is unknown, or ""
	Run     bool   // it runs under trailboss run
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
// its control characters (line ends aside) taken out.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
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

func esc(s string) string { return html.EscapeString(s) }

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
	return b.String()
}

// asks says in words what the prompt waits for.
func asks(v view) string {
	switch v.Prompt.Ask.Kind {
	case adapter.AskPermission:
		if v.Detail == "plan" {
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

// messageHTML is the text of a prompt's message while it takes answers.
func messageHTML(v view, loc *time.Location) string {
	p := v.Prompt
	var b strings.Builder
	b.WriteString(header(v.Where) + "\n")
	b.WriteString(esc(asks(v)) + ":\n")
	q := clip(p.Ask.Question, maxQuestion)
	switch {
	case q == "":
		b.WriteString("<i>(it said nothing more)</i>\n")
	case p.Ask.Kind == adapter.AskPermission:
		b.WriteString("<pre>" + esc(q) + "</pre>\n")
	default:
		b.WriteString("<blockquote>" + esc(q) + "</blockquote>\n")
	}
	if p.Ask.Kind == adapter.AskMenu {
		for _, c := range p.Ask.Choices {
			b.WriteString(esc(c.Key) + ". " + esc(clip(oneLine(c.Label), maxChoice)) + "\n")
		}
	}
	switch p.Ask.Kind {
	case adapter.AskFreeText:
		b.WriteString("Reply to this message with your answer.")
	case adapter.AskPermission:
		b.WriteString("Tap Allow or Deny.")
	default:
		b.WriteString("Tap a button.")
	}
	b.WriteString(" Takes answers until " + p.ExpiresAt.In(loc).Format("15:04") + ".")
	if v.Restart {
		b.WriteString("\n<i>Trail Boss restarted; this prompt still takes answers.</i>")
	}
	return b.String()
}

// keyboard is the buttons of a prompt's message: one per choice, none for free text.
func keyboard(p queue.Prompt) *Keyboard {
	if len(p.Ask.Choices) == 0 {
		return nil
	}
	var row []Button
	var rows [][]Button
	long := false
	for _, c := range p.Ask.Choices {
		if utf8.RuneCountInString(c.Label) > 12 {
			long = true
		}
	}
	for i, c := range p.Ask.Choices {
		label := buttonLabel(p.Ask.Kind, c)
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
		if l := labelOf(p, p.Answer); l != "" {
			what = ": " + esc(l)
		}
		if p.Channel == "telegram" {
			return "✅ Answered from Telegram" + what + "."
		}
		return "✅ Answered from " + esc(channelName(p.Channel)) + what + "."
	case p.Status == queue.PromptExpired || (p.Status == queue.PromptPending && !now.Before(p.ExpiresAt)):
		return "⌛ Expired: nothing was typed. Answer it in its pane."
	case p.Status == queue.PromptFailed:
		return "✖ The session ended (its program exited, or its pane is gone). This prompt is no longer active."
	case p.Status == queue.PromptWithdrawn:
		return "↪ No longer waiting: the session moved on (answered at the keyboard, or it asks something else now)."
	}
	return "↪ No longer waiting."
}

func channelName(ch string) string {
	switch ch {
	case "popup":
		return "the popup"
	case "cli":
		return "trailboss reply"
	case "", "api":
		return "the API"
	}
	return ch
}

func labelOf(p queue.Prompt, key string) string {
	for _, c := range p.Ask.Choices {
		if c.Key == key {
			return c.Label
		}
	}
	return ""
}

// closedHTML is the text of a prompt's message once it no longer takes answers: what it
// said, its last line (the hint and the deadline) replaced by the outcome.
func closedHTML(sent, outcomeLine string) string {
	body := sent
	if i := strings.LastIndex(body, "\n"); i >= 0 && (strings.Contains(body[i:], "Takes answers until") || strings.HasPrefix(body[i+1:], "<i>Trail Boss restarted")) {
		body = body[:i]
		if j := strings.LastIndex(body, "\n"); j >= 0 && strings.Contains(body[j:], "Takes answers until") {
			body = body[:j]
		}
	}
	body = strings.Replace(body, "⏸ ", "", 1)
	return body + "\n<b>" + outcomeLine + "</b>"
}
