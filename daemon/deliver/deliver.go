package deliver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// The delivery of a person's answer (DELIVERY.md). This file and tmuxctl/deliver.go are
// the only code that types into a pane, and it types only here, after the checks: the
// record is pending, its session still stuck on it in its own pane, and (for keys) a fresh
// capture of the pane still shows that kind of prompt. Then one atomic claim, then the
// best path: the holding hook, the supervisor's PTY, or keys.

// Delivery defaults.
const (
	DefaultMaxReply   = 500                    // characters of a typed reply
	DefaultEnterPause = 200 * time.Millisecond // between the text and Enter: 20–60 ms is too short for some TUIs
	DefaultConfirm    = 2 * time.Second        // how long to look for the agent taking the answer
)

// Engine is what a Deliverer needs of the daemon's engine: the prompt records it checks,
// claims and releases, the session a record was asked in, and the audit log.
type Engine interface {
	// CheckPrompt returns prompt id and its session, or a *wire.PromptRefusal or an
	// unknown-prompt error when the prompt takes no answer now.
	CheckPrompt(ctx context.Context, id string) (queue.Prompt, queue.Session, error)
	// ClaimPrompt marks prompt id answered with key from channel, once.
	ClaimPrompt(ctx context.Context, id, key, channel string) (queue.Prompt, error)
	// ReleasePrompt makes a claimed prompt take answers again.
	ReleasePrompt(ctx context.Context, id string) error
	// Session returns session id as the engine has it now.
	Session(id string) (queue.Session, bool)
	// RecordDelivery adds an attempt to the audit log.
	RecordDelivery(ctx context.Context, d wire.Delivery) error
	// TakeIf applies ev only while the session is still as basis was (else
	// fault.ErrMoved, nothing changed).
	TakeIf(ctx context.Context, ev adapter.Event, basis queue.Session) error
}

// Holds is what a Deliverer needs of the hooks holding for an answer (the daemon's Holds).
type Holds interface {
	// Held reports whether a hook holds prompt id.
	Held(id string) bool
	// ExpectTake returns a channel closed when a hook takes the answer to prompt id.
	ExpectTake(id string) <-chan struct{}
	// Forget drops what is known of prompt id.
	Forget(id string)
}

// PTY is what a Deliverer needs of the streams of trailboss run's supervisors (the
// daemon's PTYHub).
type PTY interface {
	// Attached reports whether session's supervisor holds its stream open.
	Attached(session string) bool
	// Send writes data to session's PTY for prompt and reports whether the program took it
	// within confirm, or why not.
	Send(ctx context.Context, session, prompt, data string, confirm time.Duration) (bool, string)
}

// Deliverer applies answers to prompt records.
type Deliverer struct {
	Engine   Engine
	Tmux     func(socket string) *tmuxctl.Server
	PTY      PTY   // nil: no supervisor's PTY takes answers
	Holds    Holds // nil: no hook holds for an answer
	MaxReply int   // 0: DefaultMaxReply
	// Off, when not empty, refuses every answer with this message: delivery is off until
	// the operator switches it on.
	Off        string
	EnterPause time.Duration // 0: DefaultEnterPause
	Confirm    time.Duration // 0: DefaultConfirm
	// SilentApproval are the harnesses that say nothing of an approved permission until
	// its tool has run (daemon.SilentApprovals): an approval typed as keys, once seen
	// taken, takes the session out of the queue itself (outOnApproval).
	SilentApproval map[string]bool
	// Typing is how each harness's program takes an answer typed into its pane, by
	// harness name (daemon.TypingRules); a harness not in it is typed into as any program
	// in a pane.
	Typing map[string]termprompt.Typing
	Log    *slog.Logger

	paneMu sync.Map // pane key → *sync.Mutex: one answer typed into a pane at a time
}

// refuse returns the refusal of an answer for reason: nothing was typed.
func refuse(reason, msg string) error { return &wire.PromptRefusal{Reason: reason, Message: msg} }

// bad returns an answer that does not fit its prompt: nothing was typed.
func bad(format string, args ...any) error {
	return &wire.BadAnswerError{Message: fmt.Sprintf(format, args...)}
}

// ChannelAPI is the channel of every answer that comes through the HTTP API, whatever the
// caller says it is.
const ChannelAPI = wire.ChannelAPI

// Answer delivers a to prompt id and records the attempt in the audit log. It returns a
// *wire.PromptRefusal (409), the engine's unknown-prompt error (404) or a *wire.BadAnswerError (400) when
// nothing was typed; wire.OutcomeOf reads them.
func (d *Deliverer) Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error) {
	if a.Channel == "" {
		a.Channel = ChannelAPI
	}
	audit := wire.Delivery{At: time.Now(), Channel: adapter.CleanText(a.Channel, 40), PromptID: adapter.CleanText(id, 40),
		Actor: adapter.CleanText(a.Actor, 120), Claimed: adapter.CleanText(a.Claimed, 40), Choice: adapter.CleanText(a.Choice, 40)}
	out, err := d.answer(ctx, id, a, &audit)
	audit.Result, audit.Reason = wire.OutcomeOf(out, err).Audit()
	if rerr := d.Engine.RecordDelivery(context.WithoutCancel(ctx), audit); rerr != nil {
		d.Log.Error("audit log", "err", rerr)
	}
	d.Log.Info("answer", "prompt", audit.PromptID, "session", audit.SessionID, "channel", audit.Channel,
		"actor", audit.Actor, "claimed", audit.Claimed, "choice", a.Choice, "via", audit.Via, "result", audit.Result, "reason", audit.Reason)
	return out, err
}

func (d *Deliverer) answer(ctx context.Context, id string, a wire.Answer, audit *wire.Delivery) (wire.Delivered, error) {
	rec, sess, err := d.Engine.CheckPrompt(ctx, id)
	audit.SessionID, audit.Pane = rec.SessionID, rec.Pane
	if err != nil {
		return wire.Delivered{}, err
	}
	if d.Off != "" {
		return wire.Delivered{}, refuse(wire.RefusedOff, d.Off)
	}
	if a.Nonce != "" && a.Nonce != rec.Nonce {
		return wire.Delivered{}, refuse(wire.RefusedChanged, "this answer was made for another showing of the prompt; nothing was typed")
	}
	if err := d.fits(rec, a); err != nil {
		return wire.Delivered{}, err
	}
	switch {
	case sess.Harness == queue.HarnessPTY:
		audit.Via, audit.Length = wire.ViaPTY, len(ptyBytes(rec.Ask, a))
		return d.viaPTY(ctx, rec, a)
	case d.Holds != nil && d.Holds.Held(rec.ID) && (rec.Ask.Kind == adapter.AskPermission || rec.Ask.Kind == adapter.AskMenu):
		audit.Via, audit.Length = wire.ViaHook, len(a.Choice)
		out, err := d.viaHook(ctx, rec, a)
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, errHookGone) {
			return out, err
		}
		// The hook went away between its last wait and our claim: the dialog is on
		// screen still, so keys can answer it.
		audit.Via = wire.ViaKeys
		return d.viaKeys(ctx, rec, a, true, &audit.Length)
	}
	audit.Via = wire.ViaKeys
	return d.viaKeys(ctx, rec, a, false, &audit.Length)
}

// fits checks a against what rec asks: a secret prompt takes no answer from here (a
// *wire.PromptRefusal), and an answer it cannot take is a *wire.BadAnswerError. Nothing is typed.
// Several lines are one answer only to a program that reads a bracketed paste as one
// input (its Typing's Paste); any other program in a pane, and every child of trailboss
// run (whose answers are written to its terminal as typed), would read each line as an
// answer.
func (d *Deliverer) fits(rec queue.Prompt, a wire.Answer) error {
	if rec.Ask.Secret {
		return refuse(wire.RefusedSecret, SecretRefusal)
	}
	if rec.Ask.Kind == adapter.AskFreeText {
		if a.Choice != "" {
			return bad("this prompt asks for text, not a choice: send {\"text\": \"…\"}")
		}
		if err := d.fitsText(a.Text); err != nil {
			return err
		}
		if strings.Contains(a.Text, "\n") && !d.Typing[rec.Harness].Paste {
			return bad("%s reads each line as an answer of its own, so several lines could answer the "+
				"questions after this one: send one line (nothing was typed)", programOf(rec.Harness))
		}
		return nil
	}
	if a.Text != "" {
		return bad("this prompt takes one of its choices (%s), not text", keysOf(rec.Ask))
	}
	for _, c := range rec.Ask.Choices {
		if c.Key == a.Choice {
			return nil
		}
	}
	return bad("%q is not one of this prompt's choices (%s)", adapter.CleanText(a.Choice, 20), keysOf(rec.Ask))
}

// SecretRefusal is what an answer to a prompt that asks for a password (or a passphrase, a
// token; or anything asked while the program's terminal hides what is typed) is refused with, from every channel: such an answer is never typed, sent on, logged
// or stored.
const SecretRefusal = "this prompt asks for a password or secret (its words say so, or its program hides what is typed): " +
	"type it at the keyboard, in its pane or terminal — nothing was typed, and the answer was not kept"

// programOf names the program of harness for a message.
func programOf(harness string) string {
	if harness == queue.HarnessPTY {
		return "a program under trailboss run"
	}
	return "this program"
}

// MaxReplyLimit is the most characters a reply may have, whatever max_reply_length says: a
// reply goes to tmux in one send-keys command, which tmux refuses ("command too long") over
// about 16 KB, and 4,000 characters are at most 16,000 bytes of UTF-8 (typed into a real pane
// by TestTheLongestReplyIsTyped).
const MaxReplyLimit = 4000

func (d *Deliverer) fitsText(text string) error {
	max := d.MaxReply
	if max <= 0 {
		max = DefaultMaxReply
	}
	max = min(max, MaxReplyLimit)
	n := utf8.RuneCountInString(text)
	switch {
	case strings.TrimSpace(text) == "":
		return bad("the reply is empty: say something, or answer in the pane")
	case !utf8.ValidString(text):
		return bad("the reply is not valid UTF-8 text")
	case n > max:
		return bad("Reply too long (%d chars, max %d). Please shorten and try again.", n, max)
	}
	for _, r := range text {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			// An Escape followed by text reads as Alt+key; no control key is a person's words.
			return bad("the reply contains a control character (%U); send plain text", r)
		}
	}
	return nil
}

func keysOf(ask adapter.Ask) string {
	keys := make([]string, 0, len(ask.Choices))
	for _, c := range ask.Choices {
		keys = append(keys, c.Key)
	}
	return strings.Join(keys, ", ")
}

// errHookGone: the holding hook did not take the decision.
var errHookGone = errors.New("the holding hook did not take the answer")

// viaHook claims rec and lets the holding hook print the decision.
func (d *Deliverer) viaHook(ctx context.Context, rec queue.Prompt, a wire.Answer) (wire.Delivered, error) {
	taken := d.Holds.ExpectTake(rec.ID)
	if _, err := d.Engine.ClaimPrompt(ctx, rec.ID, a.Choice, answeredFrom(a)); err != nil {
		d.Holds.Forget(rec.ID)
		return wire.Delivered{}, err
	}
	select {
	case <-taken:
		return wire.Delivered{Delivered: true, Via: wire.ViaHook, Confirmed: true}, nil
	case <-time.After(d.confirm()):
		d.Holds.Forget(rec.ID)
		return wire.Delivered{}, errHookGone
	case <-ctx.Done():
		return wire.Delivered{Delivered: true, Via: wire.ViaHook}, nil
	}
}

func (d *Deliverer) confirm() time.Duration {
	if d.Confirm > 0 {
		return d.Confirm
	}
	return DefaultConfirm
}

// viaPTY claims rec and writes the answer to the supervisor's PTY.
func (d *Deliverer) viaPTY(ctx context.Context, rec queue.Prompt, a wire.Answer) (wire.Delivered, error) {
	if d.PTY == nil || !d.awaitSupervisor(ctx, rec.SessionID) {
		return wire.Delivered{}, refuse(wire.RefusedChanged,
			"the trailboss run supervisor of this session is not connected right now; try again in a moment — nothing was typed")
	}
	if _, err := d.Engine.ClaimPrompt(ctx, rec.ID, a.Choice, answeredFrom(a)); err != nil {
		return wire.Delivered{}, err
	}
	ok, reason := d.PTY.Send(ctx, rec.SessionID, rec.ID, ptyBytes(rec.Ask, a), d.confirm())
	if !ok {
		if err := d.Engine.ReleasePrompt(context.WithoutCancel(ctx), rec.ID); err != nil {
			d.Log.Error("release a prompt after a failed delivery", "prompt", rec.ID, "err", err)
		}
		if reason == wire.RefusedSecret {
			// The supervisor found the child's terminal hiding what is typed when the
			// answer came, though the record did not say secret.
			return wire.Delivered{}, refuse(wire.RefusedSecret, SecretRefusal)
		}
		return wire.Delivered{}, refuse(wire.RefusedChanged, "the program no longer shows this prompt ("+reason+"); nothing was typed")
	}
	return wire.Delivered{Delivered: true, Via: wire.ViaPTY, Confirmed: true}, nil
}

// awaitSupervisor reports whether session's supervisor holds its stream open, giving one
// that is reconnecting (the daemon just restarted) a moment to come back.
func (d *Deliverer) awaitSupervisor(ctx context.Context, session string) bool {
	deadline := time.Now().Add(d.confirm())
	for !d.PTY.Attached(session) {
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}

// ptyBytes is what an answer types into a PTY: the key or the text, then a carriage
// return, as a terminal sends Enter.
func ptyBytes(ask adapter.Ask, a wire.Answer) string {
	switch {
	case ask.Kind == adapter.AskFreeText:
		return strings.ReplaceAll(a.Text, "\n", "\r") + "\r"
	case a.Choice == termprompt.KeyEnter || a.Choice == adapter.ChoiceEnter:
		return "\r"
	}
	return a.Choice + "\r"
}

// keystrokes is what to type into a pane for an answer: text (literal), whether it must be
// pasted (several lines), and whether Enter follows; or an option of an unnumbered menu
// to move the highlight onto and pick with Enter.
type keystrokes struct {
	text  string
	paste bool
	enter bool
	pick  *menuPick
}

// offerRefusal is the refusal of an answer to a permission while the pane shows an offer
// (termprompt.ScreenOffer) before the dialog, named as the Typing of its harness names it.
func offerRefusal(typing termprompt.Typing) error {
	offer := typing.Offer
	if offer == "" {
		offer = "an offer"
	}
	return refuse(wire.RefusedChanged, "the pane shows "+offer+
		", not the dialog of this prompt: answer the offer in the pane; nothing was typed")
}

// plan checks that screen shows the very prompt rec asks (its kind, and its question where
// the record has the screen's own words for it; for a permission, the action it asks
// about where the screen names it) and says what to type for a: a menu's option is the
// one whose label gives the answer, as the screen lists them now.
func (d *Deliverer) plan(rec queue.Prompt, a wire.Answer, screen string) (keystrokes, error) {
	res := termprompt.Classify(screen)
	changed := refuse(wire.RefusedChanged, "the pane no longer shows this prompt; nothing was typed")
	// A menu the classifier reads as an agent's own (it names its harness) acts on the
	// digit alone; any other program's menu takes the digit and Enter.
	ownMenu := res.Harness != ""
	// A record read from a screen or a PTY has that screen's words: the screen must still
	// say them (a late "y" must not answer the next yes/no question).
	sameQuestion := rec.Ask.Question == "" || res.Question == rec.Ask.Question ||
		(rec.Ask.From != adapter.AskFromScreen && rec.Ask.From != adapter.AskFromPTY)
	switch rec.Ask.Kind {
	case adapter.AskFreeText:
		if !showsTextPrompt(rec, res, d.Typing[rec.Harness].InputBox) {
			return keystrokes{}, changed
		}
		return keystrokes{text: a.Text, paste: strings.Contains(a.Text, "\n"), enter: true}, nil
	case adapter.AskPressEnter:
		if res.Kind != termprompt.PressEnter || !sameQuestion {
			return keystrokes{}, changed
		}
		return keystrokes{enter: true}, nil
	case adapter.AskYesNo:
		if res.Kind != termprompt.YesNo || !hasKey(res.Choices, a.Choice) || !sameQuestion {
			return keystrokes{}, changed
		}
		return keystrokes{text: a.Choice, enter: true}, nil
	case adapter.AskPermission:
		if res.Screen == termprompt.ScreenOffer {
			return keystrokes{}, offerRefusal(d.Typing[res.Harness])
		}
		if res.Kind != termprompt.MultipleChoice || len(res.Choices) == 0 ||
			(ownMenu && !slices.Contains(approvalScreens, res.Screen)) {
			return keystrokes{}, changed
		}
		if why := sameSubject(rec, res, d.Typing[res.Harness].WholeSubject); why != "" {
			return keystrokes{}, refuse(wire.RefusedChanged, why+"; nothing was typed")
		}
		i, err := permissionOption(res, a.Choice)
		if err != nil {
			return keystrokes{}, err
		}
		return choose(res, i, ownMenu)
	case adapter.AskMenu:
		if res.Kind != termprompt.MultipleChoice || !sameQuestion {
			return keystrokes{}, changed
		}
		i := menuChoice(rec, res, a.Choice)
		if i < 0 {
			return keystrokes{}, changed
		}
		return choose(res, i, ownMenu)
	}
	return keystrokes{}, changed
}

// showsTextPrompt reports whether res, a fresh reading of the pane, shows the text prompt
// rec asks, its program's input box showing as box says: the program's own input box, as
// the classifier names it; for a program whose input box the classifier does not name as
// its own, a screen that shows no other prompt (sameProgram has checked that the agent
// itself runs there, in the pane's foreground, not a shell); for any other program, a
// text prompt with the record's question. Never a screen it cannot read: that may be a
// shell.
func showsTextPrompt(rec queue.Prompt, res termprompt.Result, box termprompt.InputBox) bool {
	switch box {
	case termprompt.InputOwn:
		return res.Harness == rec.Harness && res.Kind == termprompt.FreeText
	case termprompt.InputUnread:
		return res.Kind == termprompt.Unknown || res.Kind == termprompt.FreeText
	}
	if res.Kind != termprompt.FreeText {
		return false
	}
	read := rec.Ask.From == adapter.AskFromScreen || rec.Ask.From == adapter.AskFromPTY
	return !read || rec.Ask.Question == "" || res.Question == rec.Ask.Question
}

// sameCommand reports whether the approval on screen (res) asks for the command rec was
// made for, where the screen names the head of one ("$ …"); a dialog that names none is
// checked by its kind alone.
func sameCommand(rec queue.Prompt, res termprompt.Result) bool {
	cmd := strings.Join(strings.Fields(strings.TrimPrefix(res.Command, "$ ")), " ")
	if cmd == "" {
		return true
	}
	if len(res.Command) >= termprompt.MaxQuestionLen-4 {
		cmd = string([]rune(cmd)[:min(60, len([]rune(cmd)))]) // cut by the classifier: its head
	}
	return strings.Contains(strings.Join(strings.Fields(rec.Ask.Question), " "), cmd)
}

func hasKey(cs []termprompt.Choice, key string) bool {
	for _, c := range cs {
		if c.Key == key {
			return true
		}
	}
	return false
}

// answeredFrom is the channel an answered prompt names to the operator ("already answered,
// from popup"): what a local API caller said it is, as the audit log keeps it beside
// "api"; the audit log, not this, is the record of who answered.
func answeredFrom(a wire.Answer) string {
	if a.Channel == ChannelAPI && a.Claimed != "" {
		return adapter.CleanText(a.Claimed, 40)
	}
	return a.Channel
}

// viaKeys checks the pane's screen, claims rec (unless claimed already) and types the
// answer into the pane, then looks for the agent taking it.
func (d *Deliverer) viaKeys(ctx context.Context, rec queue.Prompt, a wire.Answer, claimed bool, typed *int) (wire.Delivered, error) {
	if rec.Pane == "" || rec.TmuxSocket == "" {
		return wire.Delivered{}, refuse(wire.RefusedPaneMoved, "this session has no tmux pane to type into; nothing was typed")
	}
	unlock := d.lockPane(rec.TmuxSocket, rec.Pane)
	defer unlock()
	tm := d.Tmux(rec.TmuxSocket)
	screen, keys, err := d.awaitPrompt(ctx, tm, rec, a)
	if err != nil {
		d.release(ctx, rec.ID, claimed)
		return wire.Delivered{}, err
	}
	if !claimed {
		if _, err := d.Engine.ClaimPrompt(ctx, rec.ID, a.Choice, answeredFrom(a)); err != nil {
			return wire.Delivered{}, err
		}
	}
	if keys.pick != nil {
		before, pressed, err := d.pickOption(ctx, tm, rec, *keys.pick)
		*typed = pressed
		if err != nil {
			return wire.Delivered{}, err
		}
		ok := d.confirmed(ctx, tm, rec, before)
		if ok {
			d.outOnApproval(ctx, tm, rec, a)
		}
		return wire.Delivered{Delivered: true, Via: wire.ViaKeys, Confirmed: ok}, nil
	}
	if err := d.typeKeys(ctx, tm, rec, keys, screen); err != nil {
		var typing *TypingError
		if errors.As(err, &typing) && typing.TextIn {
			*typed = len(keys.text) // the text went in, its Enter did not
		}
		return wire.Delivered{}, err
	}
	*typed = len(keys.text)
	if keys.enter {
		*typed++
	}
	ok := d.confirmed(ctx, tm, rec, screen)
	if ok {
		d.outOnApproval(ctx, tm, rec, a)
	}
	return wire.Delivered{Delivered: true, Via: wire.ViaKeys, Confirmed: ok}, nil
}

// outOnApproval takes rec's session out of the queue once its agent took the approval a
// typed as keys, for the harnesses that say nothing of it until the tool has run
// (SilentApproval): their first word of it may come seconds after the command itself
// ended, and no hook, file or chat record comes between (daemon/harnesses.go says which,
// and why). The dialog gone from the pane says the tool runs. A session moved meanwhile (a hook applied) is left as
// it is, and so is one whose pane still shows an approval (the keys not taken yet).
func (d *Deliverer) outOnApproval(ctx context.Context, tm *tmuxctl.Server, rec queue.Prompt, a wire.Answer) {
	if !d.SilentApproval[rec.Harness] || rec.Ask.Kind != adapter.AskPermission || a.Choice != adapter.ChoiceAllow {
		return
	}
	s, ok := d.Engine.Session(rec.SessionID)
	if !ok || !s.Stuck || !s.Since.Equal(rec.Since) {
		return
	}
	screen, err := tm.CapturePane(ctx, rec.Pane)
	if err != nil || termprompt.Classify(screen).Screen == termprompt.ScreenPermission {
		return
	}
	ev := adapter.Event{Harness: rec.Harness, SessionID: rec.SessionID, Kind: adapter.KindUnstuck,
		By: adapter.ByHuman, At: time.Now()}
	if err := d.Engine.TakeIf(context.WithoutCancel(ctx), ev, s); err != nil && !errors.Is(err, fault.ErrMoved) {
		d.Log.Error("take a session out of the queue after its approval", "session", rec.SessionID, "err", err)
	}
}

func (d *Deliverer) release(ctx context.Context, id string, claimed bool) {
	if !claimed {
		return
	}
	if err := d.Engine.ReleasePrompt(context.WithoutCancel(ctx), id); err != nil {
		d.Log.Error("release a prompt after a failed delivery", "prompt", id, "err", err)
	}
}

// typeKeys types k into rec's pane. Enter goes only once the program has drawn the text
// (awaitShown), and then after the pause: a TUI starved of CPU reads text and an Enter sent
// 200 ms later in one go, and a program that takes keys that arrive together for a paste
// makes that Enter a newline. screenBefore is the pane as the checks read it.
func (d *Deliverer) typeKeys(ctx context.Context, tm *tmuxctl.Server, rec queue.Prompt, k keystrokes, screenBefore string) error {
	var err error
	switch {
	case k.paste:
		err = tm.PasteText(ctx, rec.Pane, "trailboss-"+rec.ID, k.text)
	case k.text != "":
		err = tm.TypeLiteral(ctx, rec.Pane, k.text)
	}
	if err != nil {
		// tmux refused the command (a pane gone, a command too long): nothing reached the
		// pane, so the claim goes and the prompt takes answers again.
		d.release(ctx, rec.ID, true)
		return &TypingError{Pane: rec.Pane, Err: err}
	}
	if !k.enter {
		return nil
	}
	if k.text != "" {
		d.awaitShown(ctx, tm, rec.Pane, k, screenBefore)
		pause := d.EnterPause
		if pause <= 0 {
			pause = DefaultEnterPause
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
		}
	}
	if err := tm.PressEnter(context.WithoutCancel(ctx), rec.Pane); err != nil {
		if k.text == "" {
			d.release(ctx, rec.ID, true)
			return &TypingError{Pane: rec.Pane, Err: err}
		}
		// The text is in the pane's input already: typed again, it would be there twice.
		return &TypingError{Pane: rec.Pane, Err: err, TextIn: true}
	}
	return nil
}

// pickOption picks option p.to of the unnumbered menu in rec's pane: from where the
// highlight is, one arrow key at a time, each time reading the pane until the same menu
// shows the highlight one step on; then, the highlight seen on the option, Enter. Should the
// pane show anything else meanwhile (the dialog gone, another in its place, the highlight
// elsewhere), it stops: no key more, the claim released, the prompt answerable again. It
// returns the screen Enter was pressed on and how many keys were pressed.
func (d *Deliverer) pickOption(ctx context.Context, tm *tmuxctl.Server, rec queue.Prompt, p menuPick) (string, int, error) {
	pressed, at, was := 0, p.from, p.from
	for {
		screen, why := d.awaitHighlight(ctx, tm, rec.Pane, p.menu, at, was)
		if why != "" {
			d.release(ctx, rec.ID, true)
			return "", pressed, refuse(wire.RefusedChanged, stoppedPicking(why, pressed))
		}
		if at == p.to {
			if err := tm.PressEnter(context.WithoutCancel(ctx), rec.Pane); err != nil {
				d.release(ctx, rec.ID, true)
				return "", pressed, &TypingError{Pane: rec.Pane, Err: err}
			}
			return screen, pressed + 1, nil
		}
		arrow, step := tmuxctl.ArrowDown, 1
		if p.to < at {
			arrow, step = tmuxctl.ArrowUp, -1
		}
		if err := tm.PressArrow(ctx, rec.Pane, arrow); err != nil {
			d.release(ctx, rec.ID, true)
			return "", pressed, &TypingError{Pane: rec.Pane, Err: err}
		}
		pressed++
		was, at = at, at+step
	}
}

// stoppedPicking says why picking an option stopped, and what was pressed before.
func stoppedPicking(why string, pressed int) string {
	if pressed == 0 {
		return why + "; nothing was typed"
	}
	return fmt.Sprintf("%s; the highlight was moved (%d arrow key(s)) but Enter was not pressed: nothing was answered", why, pressed)
}

// awaitHighlight reads pane, within maxAwaitShown, until it shows menu with its highlight
// on option want, and returns that screen. While the highlight is still on option was (the
// arrow not taken yet) it reads again; anything else ends the wait with why, as does the
// time running out.
func (d *Deliverer) awaitHighlight(ctx context.Context, tm *tmuxctl.Server, pane string, menu termprompt.Result, want, was int) (string, string) {
	deadline := time.Now().Add(maxAwaitShown)
	for {
		screen, err := tm.CapturePane(ctx, pane)
		if err != nil {
			return "", "the pane could not be read (" + err.Error() + ")"
		}
		res := termprompt.Classify(screen)
		switch {
		case !termprompt.SameMenu(res, menu):
			return "", "the pane no longer shows this prompt's menu"
		case res.Highlight == want:
			return screen, ""
		case res.Highlight != was:
			return "", "the menu's highlight is not where it was moved to"
		case time.Now().After(deadline):
			return "", "the menu's highlight did not move"
		}
		select {
		case <-ctx.Done():
			return "", "the answer was called off"
		case <-time.After(15 * time.Millisecond):
		}
	}
}

// TypingError is tmux refusing to type an answer into a pane. Unless TextIn, nothing was
// typed and the prompt takes answers again; with TextIn the text was typed but not Enter.
type TypingError struct {
	Pane   string
	Err    error
	TextIn bool
}

func (e *TypingError) Error() string {
	if e.TextIn {
		return "the answer was typed into pane " + e.Pane + " but tmux did not press Enter (" + e.Err.Error() +
			"): press Enter in the pane to send it"
	}
	return "tmux did not type the answer into pane " + e.Pane + " (" + e.Err.Error() +
		"): nothing was typed, and the prompt takes answers again — try again, or answer in the pane"
}

func (e *TypingError) Unwrap() error { return e.Err }

// maxAwaitShown bounds how long Enter waits for typed text to be drawn. A program that does
// not echo (a password prompt) never draws it; then Enter goes after this, as before.
const maxAwaitShown = 1500 * time.Millisecond

// awaitShown waits, within maxAwaitShown, until pane shows what k typed: the end of its
// text once more than before (literal), or any change of the screen (a paste, which some
// programs draw as a placeholder).
func (d *Deliverer) awaitShown(ctx context.Context, tm *tmuxctl.Server, pane string, k keystrokes, before string) {
	tail := shownTail(k.text)
	if tail == "" && !k.paste {
		return // nothing visible to wait for
	}
	seen := strings.Count(before, tail)
	deadline := time.Now().Add(maxAwaitShown)
	for {
		now, err := tm.CapturePane(ctx, pane)
		if err != nil {
			return
		}
		if k.paste && now != before || !k.paste && strings.Count(now, tail) > seen {
			return
		}
		if time.Now().After(deadline) {
			d.Log.Debug("typed text not seen on screen; pressing Enter anyway", "pane", pane)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(15 * time.Millisecond):
		}
	}
}

// shownTail is the end of text that a screen is looked for: its last line's last few
// characters, few enough that a wrap of the line rarely splits them.
func shownTail(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	r := []rune(strings.TrimSpace(lines[len(lines)-1]))
	if len(r) > 8 {
		r = r[len(r)-8:]
	}
	return string(r)
}

// confirmed looks, for a few seconds, for the agent taking the answer: its session moved
// on from the stuck moment, or its screen no longer shows the prompt (another kind, another
// question, or another action or place in a stack of the same question).
func (d *Deliverer) confirmed(ctx context.Context, tm *tmuxctl.Server, rec queue.Prompt, before string) bool {
	deadline := time.Now().Add(d.confirm())
	was := termprompt.Classify(before)
	for {
		if s, ok := d.Engine.Session(rec.SessionID); !ok || !s.Stuck || !s.Since.Equal(rec.Since) {
			return true
		}
		if now, err := tm.CapturePane(ctx, rec.Pane); err == nil && now != before {
			res := termprompt.Classify(now)
			if res.Kind != was.Kind || res.Question != was.Question || res.Kind == termprompt.Busy ||
				res.Command != was.Command || res.File != was.File || res.Position != was.Position {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (d *Deliverer) lockPane(socket, pane string) func() {
	m, _ := d.paneMu.LoadOrStore(socket+"\x00"+pane, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}
