package popup

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
)

// Answering from the popup. The selected item's pending prompt (wire.Prompt, carried by the
// queue) is shown under the preview with the keys that answer it. A permission's a / x and
// a yes/no's y / n answer at once from the list; every prompt can be answered with r, then
// its own key: a menu's digit (in the list, digits jump), Enter for press-enter (in the
// list, Enter jumps), or a typed line for free text. Nothing is sent but on such a key, and
// always to the prompt record the operator saw; the daemon refuses it when that prompt is
// no longer the one waiting, and the popup says why in plain words.

// AnswerTimeout bounds one answer: the daemon types it, waits, and looks for the agent to
// take it, which takes a few seconds.
const AnswerTimeout = 20 * time.Second

// offer is one answer a prompt offers, as the popup offers it.
type offer struct {
	press  string // the key that picks it: "a", "1", "enter"
	choice string // the prompt's own key, which is what is sent: "allow", "1", "enter"
	label  string // what it means: "Allow", "Outline B"
}

// offersFor returns what p offers, in its order, each with the key that picks it: a
// permission's allow and deny are a and x, yes and no y and n, press-enter's enter is
// Enter, and any other one-character key is itself. A longer key gets its place in the
// list, 1–9, when no other choice has that key; a choice left without a key is not offered.
// Free text offers no choices.
func offersFor(p wire.Prompt) []offer {
	if p.Kind == wire.KindFreeText {
		return nil
	}
	named := map[string]string{wire.ChoiceAllow: "a", wire.ChoiceDeny: "x", "yes": "y", "no": "n", wire.ChoiceEnter: "enter"}
	press := make([]string, len(p.Choices))
	taken := map[string]bool{}
	for i, c := range p.Choices {
		k, ok := named[strings.ToLower(c.Key)]
		if !ok && len([]rune(c.Key)) == 1 && strings.TrimSpace(c.Key) != "" {
			k, ok = c.Key, true
		}
		if ok && !taken[k] {
			press[i], taken[k] = k, true
		}
	}
	for i := range p.Choices {
		if n := strconv.Itoa(i + 1); press[i] == "" && i < 9 && !taken[n] {
			press[i], taken[n] = n, true
		}
	}
	out := make([]offer, 0, len(p.Choices))
	for i, c := range p.Choices {
		if press[i] == "" {
			continue
		}
		label := sanitize(c.Label)
		if label == "" {
			label = sanitize(c.Key)
		}
		out = append(out, offer{press: press[i], choice: c.Key, label: label})
	}
	return out
}

// direct reports whether a prompt of kind is answered by its keys straight from the list:
// a permission's a / x and a yes/no's y / n, which mean nothing else there.
func direct(kind string) bool { return kind == wire.KindPermission || kind == wire.KindYesNo }

// offerFor returns r's offer picked by the key press.
func (r row) offerFor(press string) (offer, bool) {
	for _, o := range r.offers {
		if o.press == press {
			return o, true
		}
	}
	return offer{}, false
}

// offersText lists r's offers as the block shows them: "a Allow · x Deny".
func (r row) offersText() string {
	parts := make([]string, len(r.offers))
	for i, o := range r.offers {
		parts[i] = o.press + " " + o.label
	}
	return strings.Join(parts, " · ")
}

// expired reports whether r's prompt's time has run out by now.
func (r row) expired(now time.Time) bool {
	p := r.item.Prompt
	return p != nil && !p.ExpiresAt.IsZero() && !now.Before(p.ExpiresAt)
}

// answerTarget is the prompt whose answer line is open.
type answerTarget struct {
	session, prompt string
}

// note is what became of the last answer sent from the popup to a session, shown on its
// row while its prompt is the one answered (or it has none).
type note struct {
	prompt  string
	text    string
	pending bool // on its way
	ok      bool // delivered
}

// answerMsg is the daemon's answer to one answer.
type answerMsg struct {
	session, prompt string
	where, what     string
	res             wire.Delivered
	err             error
	timedOut        bool
}

// answer sends a to prompt id of session; where and what name the row and the answer
// in what the popup then says.
func (m Model) answer(session, id, where, what string, a wire.Answer) tea.Cmd {
	d := m.daemon
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), AnswerTimeout)
		defer cancel()
		res, err := d.Answer(ctx, id, a)
		return answerMsg{session: session, prompt: id, where: where, what: what, res: res, err: err,
			timedOut: err != nil && (ctx.Err() != nil || isTimeout(err))}
	}
}

// isTimeout reports whether err is a request that ran out of time (the client reports
// every failed request as the daemon being down).
func isTimeout(err error) bool {
	var down *client.DownError
	if errors.As(err, &down) {
		err = down.Cause
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

// cannotAnswer returns why r's prompt cannot be answered from the popup now, or "".
func (m Model) cannotAnswer(r row) string {
	switch {
	case m.offFor(r):
		return "nothing sent: " + m.deliveryOff
	case r.item.Prompt == nil:
		return "nothing sent to " + r.where + ": " + client.WhyNoPrompt(r.item, m.now()) + " — enter jumps to its pane"
	case r.expired(m.now()):
		return "its prompt expired — answer it in the pane (enter jumps there)"
	case r.item.Prompt.Secret:
		return "nothing sent: " + secretHint
	case m.inflight[r.item.SessionID] != "":
		return "an answer to " + r.where + " is on its way — wait for it"
	}
	return ""
}

// secretHint says why a prompt for a password or the like takes no answer from the popup.
const secretHint = "it asks for a password or secret, which Trail Boss never carries — type it in the pane (enter jumps there)"

// anyPrompt reports whether a row carries a prompt.
// offFor reports whether this machine's delivery being off keeps r from being answered
// here. Another host's item is not: its answer goes to its own daemon, whose delivery
// rules decide (and refuse with their words).
func (m Model) offFor(r row) bool { return m.deliveryOff != "" && r.item.Host == "" }

func (m Model) anyPrompt() bool {
	for _, r := range m.rows {
		if r.item.Prompt != nil && r.item.Host == "" {
			return true
		}
	}
	return false
}

// answerable returns the selected row when its prompt can be answered from the popup now;
// otherwise false, and m with its status saying why (when a row is selected).
func (m Model) answerable() (Model, row, bool) {
	r, ok := m.selected()
	if !ok {
		return m, r, false
	}
	if why := m.cannotAnswer(r); why != "" {
		m.status = why
		return m, r, false
	}
	return m, r, true
}

// answerKey answers the selected row's prompt with press (a, x, y or n) from the list.
func (m Model) answerKey(press string) (Model, tea.Cmd) {
	m, r, ok := m.answerable()
	if !ok {
		return m, nil
	}
	o, ok := r.offerFor(press)
	if !ok && r.long != "" && press == "a" {
		m.status = "nothing sent: this command is " + r.long + " long, more than shows here — approve it in the pane (enter jumps there); x denies it"
		return m, nil
	}
	if !ok || !direct(r.item.Prompt.Kind) {
		m.status = press + " does not answer this prompt: " + m.howToAnswer(r)
		return m, nil
	}
	return m.send(r, wire.Answer{Choice: o.choice}, o.label)
}

// howToAnswer says which keys answer r's prompt from the list.
func (m Model) howToAnswer(r row) string {
	switch {
	case r.item.Prompt.Kind == wire.KindFreeText:
		return "r, then type a line"
	case direct(r.item.Prompt.Kind):
		return r.offersText()
	case len(r.offers) == 0:
		return "it offers no choice — answer it in the pane (enter jumps there)"
	}
	return "r, then " + r.offersText()
}

// openAnswer opens the answer line for the selected row's prompt: its keys, or a line to
// type for free text.
func (m Model) openAnswer() (Model, tea.Cmd) {
	m, r, ok := m.answerable()
	if !ok {
		return m, nil
	}
	p := r.item.Prompt
	if p.Kind != wire.KindFreeText && len(r.offers) == 0 {
		m.status = "this prompt offers no choice — answer it in the pane (enter jumps there)"
		return m, nil
	}
	m.answering = &answerTarget{session: r.item.SessionID, prompt: p.ID}
	if p.Kind == wire.KindFreeText {
		m.reply.Reset()
		m.reply.Width = max(1, m.width-ansi.StringWidth(m.reply.Prompt)-1)
		return m, m.reply.Focus()
	}
	return m, nil
}

// answerModeKey handles a key while the answer line is open: the prompt's keys pick an
// answer, or for free text the line takes the typing; Esc goes back to the list.
func (m Model) answerModeKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok || r.item.SessionID != m.answering.session {
		m = m.closeAnswer()
		return m, nil
	}
	k := m.keys
	if key.Matches(msg, k.answerBack) {
		m = m.closeAnswer()
		m.status = "nothing was sent"
		return m, nil
	}
	if r.item.Prompt.Kind == wire.KindFreeText {
		switch {
		case key.Matches(msg, k.answerSend):
			text := strings.TrimSpace(m.reply.Value())
			if text == "" {
				m.status = "type a reply first, or esc to go back"
				return m, nil
			}
			return m.send(r, wire.Answer{Text: text}, "your reply")
		}
		m.status = ""
		var cmd tea.Cmd
		m.reply, cmd = m.reply.Update(msg)
		return m, cmd
	}
	if o, ok := r.offerFor(msg.String()); ok {
		return m.send(r, wire.Answer{Choice: o.choice}, o.label)
	}
	if key.Matches(msg, k.Quit) {
		m = m.closeAnswer()
		return m.quit()
	}
	presses := make([]string, len(r.offers))
	for i, o := range r.offers {
		presses[i] = o.press
	}
	m.status = msg.String() + " is not an answer here: press " + strings.Join(presses, ", ") + ", or esc to go back"
	return m, nil
}

// closeAnswer closes the answer line.
func (m Model) closeAnswer() Model {
	m.answering = nil
	m.reply.Blur()
	m.reply.Reset()
	return m
}

// send sends answer a, described as what, to r's prompt.
func (m Model) send(r row, a wire.Answer, what string) (Model, tea.Cmd) {
	m = m.closeAnswer()
	a.Channel, a.Client = "popup", m.client
	id := r.item.Prompt.ID
	m.inflight[r.item.SessionID] = id
	m.notes[r.item.SessionID] = note{prompt: id, text: "… sending " + what, pending: true}
	m.status = "sending " + what + " to " + r.where + "…"
	return m, m.answer(r.item.SessionID, id, r.where, what, a)
}

// answered takes the daemon's answer in: the row's note and the status line say what
// happened, and the list is fetched again.
func (m Model) answered(msg answerMsg) (Model, tea.Cmd) {
	delete(m.inflight, msg.session)
	n, status := outcome(msg)
	n.prompt = msg.prompt
	m.notes[msg.session] = n
	m.status = status
	if m.closing && len(m.inflight) == 0 {
		m.closing = false
		return m.quit()
	}
	m.fetching = true
	return m, m.fetch()
}

// Ways an answer went, as the popup says them.
var viaWords = map[string]string{
	wire.ViaKeys: "typed into the pane",
	wire.ViaHook: "handed to Claude Code through its hook",
	wire.ViaPTY:  "written to the program's terminal (trailboss run)",
}

// refusedWords says a 409's reason in plain words: the row's short note, then the rest
// of the status line.
var refusedWords = map[string][2]string{
	wire.RefusedAnswered:  {"already answered", "it was already answered"},
	wire.RefusedExpired:   {"expired — answer in the pane", "its prompt expired — answer it in the pane (enter jumps there)"},
	wire.RefusedChanged:   {"the session moved on", "the session moved on or now asks something else — look at it again"},
	wire.RefusedPaneMoved: {"pane taken by another session", "its pane is gone or belongs to another session now"},
	wire.RefusedUnknownAsker: {"asker unknown — answer in the pane",
		"Trail Boss cannot tell which program asked it, so it types nothing there — answer it in its pane (enter jumps there)"},
}

// outcome is what the popup says of an answer's fate: the row's note and the status line.
func outcome(msg answerMsg) (note, string) {
	var bad *client.RefusedError
	err := msg.err
	o := wire.OutcomeOf(msg.res, err)
	switch {
	case o.Delivered() && msg.res.Delivered:
		via := viaWords[msg.res.Via]
		if via == "" {
			via = "delivered"
		}
		short := "✓ " + msg.what + ": " + msg.res.Via + ", "
		if o.Kind == wire.OutcomeConfirmed {
			return note{text: short + "confirmed", ok: true},
				fmt.Sprintf("%s sent to %s — %s; the agent took it.", msg.what, msg.where, via)
		}
		return note{text: short + "not confirmed yet", ok: true},
			fmt.Sprintf("%s sent to %s — %s; not confirmed yet: if it does not move on, look at the pane (enter jumps there).", msg.what, msg.where, via)
	case o.Delivered():
		return note{text: "✗ not delivered"}, fmt.Sprintf("%s was not delivered to %s — answer it in the pane (enter jumps there).", msg.what, msg.where)
	case msg.timedOut:
		return note{text: "? no word from the daemon"},
			fmt.Sprintf("No word from the daemon within %v: %s may or may not have reached %s — look at the pane (enter jumps there).", AnswerTimeout, msg.what, msg.where)
	case o.Kind == wire.OutcomeRefused:
		words, ok := refusedWords[o.Reason]
		if !ok {
			words = [2]string{sanitize(o.Message), sanitize(o.Message)}
		}
		return note{text: "✗ " + words[0]}, fmt.Sprintf("Nothing was sent to %s: %s.", msg.where, words[1])
	case o.Kind == wire.OutcomeUnknownPrompt:
		return note{text: "✗ that prompt is gone"},
			fmt.Sprintf("Nothing was sent to %s: the daemon no longer knows that prompt (answered or replaced) — look at it again.", msg.where)
	case errors.As(err, &bad): // any other no of the daemon's: a 400 for an answer that does not fit
		return note{text: "✗ refused"}, fmt.Sprintf("Nothing was sent to %s: the daemon refused it: %s.", msg.where, sanitize(bad.Message))
	case errors.Is(err, client.ErrDown):
		return note{text: "✗ the daemon is not running"}, "Nothing was sent: " + client.ErrDown.Error() + "."
	}
	return note{text: "✗ failed"}, fmt.Sprintf("Sending to %s failed: %s.", msg.where, sanitize(err.Error()))
}

// noteFor returns the note to show on r: the last answer's, while r still waits on the
// prompt it answered or on none.
func (m Model) noteFor(r row) (note, bool) {
	n, ok := m.notes[r.item.SessionID]
	if !ok || (r.item.Prompt != nil && r.item.Prompt.ID != n.prompt) {
		return note{}, false
	}
	return n, true
}
