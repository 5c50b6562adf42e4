package telegram

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

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// Config is the relay's part of config.toml ([telegram]).
type Config struct {
	Token        string
	ChatID       int64   // the one chat prompts go to and answers come from
	AllowedUsers []int64 // who may answer, in that chat
	APIURL       string  // "": DefaultAPIURL
	PollTimeout  time.Duration
	MinBackoff   time.Duration // 0: 1 s
	MaxBackoff   time.Duration // 0: 60 s
	Location     *time.Location
	// TextWindow: a text that replies to no message is not delivered when a prompt that
	// takes text came or went within this time before it was written (0: DefaultTextWindow).
	TextWindow time.Duration
}

// Defaults.
const (
	DefaultPollTimeout = 50 * time.Second // one getUpdates long poll: idle, the relay wakes about once a minute
	DefaultMinBackoff  = time.Second
	DefaultMaxBackoff  = 60 * time.Second
	callTimeout        = 15 * time.Second // any other Bot API call
	handleTimeout      = 30 * time.Second // one update, its delivery included
	messagesKept       = 7 * 24 * time.Hour
)

// Host is what the relay runs on: the daemon's engine, deliverer and store, each seen
// through the little of it the relay uses, tmux, a log and a clock.
type Host struct {
	Queue   Queue
	Deliver Answerer
	Store   Store
	Tmux    func(socket string) *tmuxctl.Server
	Log     *slog.Logger
	Now     func() time.Time // nil: time.Now
	// Hosts, on a hub, is the other machines' items and the way to answer them; nil on a
	// daemon without [[hosts]].
	Hosts Hosts
}

// Queue is what the relay reads of the daemon's queue (the engine).
type Queue interface {
	// Items returns the queue; an item with a Prompt waits for an answer.
	Items() []queue.Item
	// Prompt returns a prompt record, pending or not, or wire.ErrUnknownPrompt.
	Prompt(ctx context.Context, id string) (queue.Prompt, error)
	// Subscribe returns a channel that receives after committed changes.
	Subscribe() <-chan struct{}
}

// Answerer delivers an operator's answer (the daemon's Deliverer), the only way the relay
// has to deliver one. Its errors are those wire.OutcomeOf reads.
type Answerer interface {
	Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error)
}

// Store keeps, across restarts, the messages the relay sent and how far it read the
// updates (the daemon's store).
type Store interface {
	TelegramMessages(ctx context.Context, closedSince time.Time) ([]store.TelegramMessage, error)
	SaveTelegramMessage(ctx context.Context, m store.TelegramMessage) error
	ForgetTelegramMessages(ctx context.Context, cut time.Time) error
	TelegramOffset(ctx context.Context) (int64, error)
	SetTelegramOffset(ctx context.Context, off int64) error
}

// Relay is the Telegram delivery channel; the daemon runs it beside itself.
type Relay struct {
	cfg Config
	bot *Bot
	h   Host
	log *slog.Logger

	mu       sync.Mutex
	shown    map[string]*store.TelegramMessage // by prompt id: each message sent (closed ones for a week)
	byMsg    map[int64]string                  // message id → prompt id
	reopened map[string]bool                   // prompts whose message was open when the daemon started
	// unsendable: prompts Telegram refused every message for (why); paneOnly: prompts whose
	// message takes no answer (why): a secret, or a notice sent instead of a refused message.
	unsendable map[string]string
	paneOnly   map[string]string
	sentDate   map[string]int64   // by prompt id: Telegram's date of its message, this run
	texts      textLog            // the prompts that take text, as they came and went
	poll       wire.ChannelStatus // the poller's state
	sendErr    string             // the last failure to update the chat, "" once one worked
	remote     remotePrompts      // other hosts' prompt records, as last seen (on a hub)

	kick chan struct{} // wakes the sync loop at once (the Bot API answers again)
}

// New returns a relay for cfg; Run starts it.
func New(cfg Config) *Relay {
	if cfg.PollTimeout <= 0 {
		cfg.PollTimeout = DefaultPollTimeout
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	if cfg.TextWindow <= 0 {
		cfg.TextWindow = DefaultTextWindow
	}
	return &Relay{cfg: cfg, bot: NewBot(cfg.APIURL, cfg.Token), shown: map[string]*store.TelegramMessage{},
		byMsg: map[int64]string{}, reopened: map[string]bool{}, kick: make(chan struct{}, 1),
		unsendable: map[string]string{}, paneOnly: map[string]string{}, sentDate: map[string]int64{},
		texts: textLog{seen: map[string]*textLife{}},
		poll:  wire.ChannelStatus{Name: "telegram", State: wire.ChannelStarting, Since: time.Now()}}
}

// Name is the channel's name in logs and in the audit log.
func (r *Relay) Name() string { return "telegram" }

// Status says how the relay is doing: its poller's state, or an outage when it cannot
// update the chat although polling works.
func (r *Relay) Status() wire.ChannelStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.poll
	if st.State == wire.ChannelOK && r.sendErr != "" {
		st.State, st.Detail = wire.ChannelOutage, r.sendErr
	}
	for _, m := range r.shown {
		if !m.Closed {
			st.Shown++
		}
	}
	return st
}

// Run relays until ctx ends: prompts out to the chat, taps and replies back in.
func (r *Relay) Run(ctx context.Context, h Host) error {
	r.h, r.log = h, h.Log
	if r.h.Now == nil {
		r.h.Now = time.Now
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	now := r.h.Now()
	if err := h.Store.ForgetTelegramMessages(ctx, now.Add(-messagesKept)); err != nil {
		r.log.Warn("telegram: forget old messages", "err", err)
	}
	msgs, err := h.Store.TelegramMessages(ctx, now.Add(-messagesKept))
	if ctx.Err() != nil {
		return nil // the daemon stopped as the relay started
	}
	if err != nil {
		return fmt.Errorf("telegram relay: %w", err)
	}
	for i := range msgs {
		m := msgs[i]
		r.remember(&m)
		if !m.Closed {
			r.reopened[m.PromptID] = true
		}
		// What took text before the restart, for a text written then and read now.
		if p, err := h.Queue.Prompt(ctx, m.PromptID); err == nil {
			r.texts.note(p, now)
		}
	}
	off, err := h.Store.TelegramOffset(ctx)
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("telegram relay: %w", err)
	}
	r.log.Info("telegram relay started", "chat", r.cfg.ChatID, "allowed_users", len(r.cfg.AllowedUsers),
		"open_messages", len(r.reopened), "offset", off)
	var wg sync.WaitGroup
	wg.Go(func() { r.watchTexts(ctx) })
	wg.Go(func() { r.syncLoop(ctx) })
	wg.Go(func() { r.pollLoop(ctx, off) })
	wg.Wait()
	return nil
}

func (r *Relay) remember(m *store.TelegramMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown[m.PromptID] = m
	r.byMsg[m.MessageID] = m.PromptID
}

// watchTexts keeps r.texts up to date after every committed change, whatever the chat's
// state (the sync loop may be backing off).
func (r *Relay) watchTexts(ctx context.Context) {
	changed, remote := r.h.Queue.Subscribe(), r.hostsChanged()
	for {
		r.texts.update(r.items(), r.h.Now())
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-remote:
		}
	}
}

// backoff is 1 s doubling to 60 s (DELIVERY.md), longer when Telegram asks for it.
type backoff struct{ min, max, cur time.Duration }

func (b *backoff) next(err error) time.Duration {
	if b.cur == 0 {
		b.cur = b.min
	} else {
		b.cur = min(2*b.cur, b.max)
	}
	var ae *APIError
	if errors.As(err, &ae) && ae.RetryAfter > 0 {
		if d := time.Duration(ae.RetryAfter) * time.Second; d > b.cur {
			return d
		}
	}
	return b.cur
}

func (b *backoff) reset() { b.cur = 0 }

func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-wake:
	}
}

// ---- out: prompts to the chat ----------------------------------------------------------

// syncLoop brings the chat in line with the prompt records after every committed change:
// a message for each new pending prompt, an edit for each that left pending. On failure
// it backs off and tries again; nothing about the prompts changes meanwhile.
func (r *Relay) syncLoop(ctx context.Context) {
	changed, remote := r.h.Queue.Subscribe(), r.hostsChanged()
	bo := backoff{min: r.cfg.MinBackoff, max: r.cfg.MaxBackoff}
	for ctx.Err() == nil {
		err := r.sync(ctx)
		if err == nil {
			bo.reset()
			select {
			case <-ctx.Done():
			case <-changed:
			case <-remote:
			case <-r.kick:
			}
			continue
		}
		if ctx.Err() != nil {
			return
		}
		d := bo.next(err)
		r.mu.Lock()
		r.sendErr = "cannot update the chat: " + err.Error()
		r.mu.Unlock()
		r.log.Warn("telegram: could not update the chat; the prompts stay pending, trying again",
			"err", err, "backoff_seconds", d.Seconds())
		sleep(ctx, d, r.kick)
	}
}

// sync does one pass of syncLoop: every pending prompt has its message open in the chat,
// and every other message is closed, saying how its prompt ended.
func (r *Relay) sync(ctx context.Context) error {
	now := r.h.Now()
	pl := &placer{tmux: r.h.Tmux}
	pending := map[string]bool{}
	for _, it := range r.items() {
		if it.Prompt == nil {
			continue
		}
		pending[it.Prompt.ID] = true
		if err := r.showPrompt(ctx, it, pl, now); err != nil {
			return err
		}
	}
	r.mu.Lock()
	for id := range r.unsendable {
		if !pending[id] {
			delete(r.unsendable, id)
		}
	}
	var closing []*store.TelegramMessage
	for id, m := range r.shown {
		if !m.Closed && !pending[id] && !r.awaitsHost(id) {
			closing = append(closing, m)
		}
	}
	r.mu.Unlock()
	for _, m := range closing {
		if err := r.closeMessage(ctx, m, now); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.sendErr = ""
	r.mu.Unlock()
	return nil
}

// showPrompt makes sure the pending prompt of it has an open message: sent when it has none (or
// its message was deleted in the chat), edited back open when it was closed or reopened.
// Only an error worth retrying the whole pass for is returned.
func (r *Relay) showPrompt(ctx context.Context, it queue.Item, pl *placer, now time.Time) error {
	p := *it.Prompt
	r.mu.Lock()
	m, sent := r.shown[p.ID]
	reopened := r.reopened[p.ID]
	closed := sent && m.Closed
	refused := r.unsendable[p.ID] != ""
	r.mu.Unlock()
	if refused || (sent && !reopened && !closed) {
		return nil
	}
	v := view{Prompt: p, Reason: it.Reason, Detail: it.Detail, Where: pl.placeItem(ctx, it), Restart: reopened}
	c := compose(v, r.cfg.Location)
	if sent {
		done, err := r.reopenMessage(ctx, m, v, c, closed)
		if done || err != nil {
			return err
		}
		// The message was deleted in the chat: send it again.
	}
	msg, c, err := r.send(ctx, p, v, c)
	if badRequest(err) {
		r.notSendable(p, err)
		return nil
	}
	if err != nil {
		return err
	}
	rec := &store.TelegramMessage{PromptID: p.ID, ChatID: r.cfg.ChatID, MessageID: msg.MessageID, HTML: c.HTML, SentAt: now}
	r.remember(rec)
	r.mu.Lock()
	delete(r.reopened, p.ID)
	r.setPaneOnlyLocked(p.ID, c.PaneOnly)
	if msg.Date != 0 {
		r.sentDate[p.ID] = msg.Date
	}
	r.mu.Unlock()
	if err := r.h.Store.SaveTelegramMessage(context.WithoutCancel(ctx), *rec); err != nil {
		r.log.Error("telegram: keep a message id", "prompt", p.ID, "err", err)
	}
	r.log.Info("telegram: prompt sent", "prompt", p.ID, "session", p.SessionID, "kind", p.Ask.Kind, "message", msg.MessageID,
		"answerable", c.PaneOnly == "")
	return nil
}

// reopenMessage edits m, the message of a prompt that takes answers again (the daemon
// restarted, or an answer claimed it but could not be delivered and nothing was typed), to
// say so, buttons and all. done is false when the message is gone from the chat and must
// be sent anew.
func (r *Relay) reopenMessage(ctx context.Context, m *store.TelegramMessage, v view, c composed, closed bool) (done bool, err error) {
	p := v.Prompt
	edit := func(c composed) error {
		return r.call(ctx, func(ctx context.Context) error {
			return r.bot.EditMessageText(ctx, m.ChatID, m.MessageID, c.HTML, c.Keyboard)
		})
	}
	err = edit(c)
	if badRequest(err) && !gone(err) {
		c = notShown(v, err)
		if err = edit(c); badRequest(err) && !gone(err) {
			r.notSendable(p, err)
			return true, nil
		}
	}
	if err != nil {
		if !gone(err) {
			return false, err
		}
		return false, nil
	}
	r.mu.Lock()
	delete(r.reopened, p.ID)
	m.Closed, m.HTML = false, c.HTML
	r.setPaneOnlyLocked(p.ID, c.PaneOnly)
	cp := *m
	r.mu.Unlock()
	if closed {
		if err := r.h.Store.SaveTelegramMessage(context.WithoutCancel(ctx), cp); err != nil {
			r.log.Error("telegram: keep a message open again", "prompt", p.ID, "err", err)
		}
	}
	r.log.Info("telegram: prompt pending again; its message says so", "prompt", p.ID, "message", m.MessageID, "restart", v.Restart)
	return true, nil
}

// closeMessage edits m, the message of a prompt no longer pending, to say how it ended, and
// takes its buttons off.
func (r *Relay) closeMessage(ctx context.Context, m *store.TelegramMessage, now time.Time) error {
	rec, err := r.prompt(ctx, m.PromptID)
	found := err == nil
	if err != nil && !errors.Is(err, wire.ErrUnknownPrompt) {
		return err
	}
	html := closedHTML(m.HTML, outcome(rec, found, now))
	err = r.call(ctx, func(ctx context.Context) error {
		return r.bot.EditMessageText(ctx, m.ChatID, m.MessageID, html, nil)
	})
	if badRequest(err) && !gone(err) {
		// Telegram will not take this edit; another would not do better. The buttons go
		// at least, and the message is closed as far as the relay goes.
		r.log.Error("telegram: Telegram refused the edit that closes a prompt's message; removing its buttons only",
			"prompt", m.PromptID, "message", m.MessageID, "err", err)
		err = r.call(ctx, func(ctx context.Context) error {
			return r.bot.EditMessageReplyMarkup(ctx, m.ChatID, m.MessageID, nil)
		})
		if badRequest(err) {
			err = nil
		}
	}
	if err != nil && !gone(err) {
		return err
	}
	r.mu.Lock()
	m.Closed = true
	delete(r.reopened, m.PromptID)
	cp := *m
	r.mu.Unlock()
	if err := r.h.Store.SaveTelegramMessage(context.WithoutCancel(ctx), cp); err != nil {
		r.log.Error("telegram: keep a message closed", "prompt", m.PromptID, "err", err)
	}
	r.log.Info("telegram: prompt over; its message edited and its buttons removed", "prompt", m.PromptID,
		"status", rec.Status, "message", m.MessageID)
	return nil
}

// send sends prompt p's message c (v is what it shows) and returns the message and what it
// says. A message Telegram cannot parse goes as plain words; one it refuses otherwise (a
// 400: too long, bad buttons) goes as a short notice that the prompt is answered in its
// pane. A 400 for that too is returned.
func (r *Relay) send(ctx context.Context, p queue.Prompt, v view, c composed) (Message, composed, error) {
	var msg Message
	err := r.call(ctx, func(ctx context.Context) error {
		var err error
		msg, err = r.bot.SendMessage(ctx, r.cfg.ChatID, c.HTML, c.Keyboard, 0)
		if badEntities(err) {
			// A message Telegram cannot parse must not hold up every prompt after
			// it: send its words without markup.
			r.log.Error("telegram: a prompt's message did not parse as HTML; sent as plain text", "prompt", p.ID, "err", err)
			c.HTML = esc(plainText(c.HTML))
			msg, err = r.bot.SendMessage(ctx, r.cfg.ChatID, c.HTML, c.Keyboard, 0)
		}
		return err
	})
	if !badRequest(err) {
		return msg, c, err
	}
	r.log.Error("telegram: Telegram refused a prompt's message; sending a notice that it is answered in its pane",
		"prompt", p.ID, "err", err)
	c = notShown(v, err)
	err = r.call(ctx, func(ctx context.Context) error {
		var err error
		msg, err = r.bot.SendMessage(ctx, r.cfg.ChatID, c.HTML, nil, 0)
		return err
	})
	return msg, c, err
}

// notShown is the message of prompt v when Telegram refused its own (err).
func notShown(v view, err error) composed {
	why := "Telegram refused its message"
	var ae *APIError
	if errors.As(err, &ae) && ae.Description != "" {
		why += ": " + ae.Description
	}
	return composed{HTML: notShownHTML(v, why), PaneOnly: why}
}

// notSendable gives up on showing prompt p: Telegram refused every message for it (err).
// The prompt stays pending for the keyboard; the other prompts go on.
func (r *Relay) notSendable(p queue.Prompt, err error) {
	r.mu.Lock()
	r.unsendable[p.ID] = err.Error()
	r.mu.Unlock()
	r.log.Error("telegram: Telegram refused every message for a prompt; it is answered in its pane only, the others go on",
		"event", "telegram_prompt_not_sendable", "prompt", p.ID, "session", p.SessionID, "err", err)
}

// setPaneOnlyLocked notes why prompt id's message takes no answer ("" when it takes one);
// r.mu must be held.
func (r *Relay) setPaneOnlyLocked(id, why string) {
	if why == "" {
		delete(r.paneOnly, id)
		return
	}
	r.paneOnly[id] = why
}

// call runs one Bot API call with its own timeout.
func (r *Relay) call(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return fn(ctx)
}

// ---- in: taps and replies ----------------------------------------------------------------

// pollLoop long-polls getUpdates from off on, handles each batch of updates, and keeps the
// next offset in the store only once the batch is handled: a crash in between has the
// batch handled again, which changes nothing (an answer's claim is single use).
func (r *Relay) pollLoop(ctx context.Context, off int64) {
	bo := backoff{min: r.cfg.MinBackoff, max: r.cfg.MaxBackoff}
	failing, first := false, true
	for ctx.Err() == nil {
		// The first poll, and the first after a failure, return at once: the relay knows
		// at once that Telegram answers (its status, and the chat to catch up).
		wait := r.cfg.PollTimeout
		if first || failing {
			wait = 0
		}
		first = false
		ups, err := r.bot.GetUpdates(ctx, off, wait, 100)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			d := bo.next(err)
			state, words := pollProblem(err)
			r.setPoll(state, words)
			r.log.Warn("telegram: "+words, "event", "telegram_polling_failed", "err", err, "backoff_seconds", d.Seconds())
			failing = true
			sleep(ctx, d, nil)
			continue
		}
		bo.reset()
		if failing {
			failing = false
			r.log.Info("telegram: the Bot API answers again; taps and replies are read again", "event", "telegram_outage_recovered")
			select { // the chat may be behind too
			case r.kick <- struct{}{}:
			default:
			}
		}
		r.setPoll(wire.ChannelOK, "")
		if len(ups) == 0 {
			continue
		}
		next := off
		var wg sync.WaitGroup
		for _, u := range ups {
			next = max(next, u.UpdateID+1)
			wg.Go(func() { r.handle(ctx, u) })
		}
		wg.Wait()
		if next != off {
			off = next
			if err := r.h.Store.SetTelegramOffset(context.WithoutCancel(ctx), off); err != nil {
				r.log.Error("telegram: keep the update offset", "err", err)
			}
		}
	}
}

// pollProblem says what a failed getUpdates means, in plain words.
func pollProblem(err error) (state, words string) {
	switch {
	case Conflict(err):
		return wire.ChannelConflict, "another program is taking this bot's updates (Telegram answered 409 Conflict): " +
			"a second Trail Boss daemon or another bot program uses the same token, or a webhook is set. " +
			"Stop the other one; until then no tap or reply reaches Trail Boss. Retrying"
	case Unauthorized(err):
		return wire.ChannelUnauthorized, "Telegram refuses the bot token: check the token file in config.toml " +
			"([telegram] token_file) or TRAILBOSS_TELEGRAM_TOKEN; trailboss doctor checks it. Retrying"
	}
	return wire.ChannelOutage, "cannot reach the Telegram Bot API; the prompts stay pending and the relay keeps trying"
}

func (r *Relay) setPoll(state, detail string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.poll.State != state {
		if state == wire.ChannelConflict {
			r.log.Error("telegram: " + detail)
		}
		r.poll.State, r.poll.Since = state, r.h.Now()
	}
	r.poll.Detail = detail
}

// allowed reports whether an update from user in chat may answer: the configured chat
// and one of the allowed users, both.
func (r *Relay) allowed(chat, user int64) bool {
	return chat != 0 && chat == r.cfg.ChatID && slices.Contains(r.cfg.AllowedUsers, user)
}

func (r *Relay) handle(ctx context.Context, u Update) {
	ctx, cancel := context.WithTimeout(ctx, handleTimeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("telegram: an update could not be handled (a bug); nothing was delivered for it", "update", u.UpdateID, "panic", fmt.Sprint(v))
		}
	}()
	switch {
	case u.CallbackQuery != nil:
		r.handleTap(ctx, u.CallbackQuery)
	case u.Message != nil:
		r.handleMessage(ctx, u.Message)
	}
}

func (r *Relay) handleTap(ctx context.Context, cq *CallbackQuery) {
	var chat int64
	if cq.Message != nil {
		chat = cq.Message.Chat.ID
	}
	if !r.allowed(chat, cq.From.ID) {
		r.log.Warn("telegram: ignored a button press from someone not allowed; nothing was delivered",
			"user", cq.From.ID, "username", cq.From.Username, "chat", chat)
		r.ack(ctx, cq.ID, "You are not allowed to answer these prompts. Nothing was typed.")
		return
	}
	t, ok := parseCallback(cq.Data)
	if !ok {
		r.log.Warn("telegram: ignored a button that Trail Boss did not make", "user", cq.From.ID, "data_bytes", len(cq.Data))
		r.ack(ctx, cq.ID, "This button is not one of Trail Boss's. Nothing was typed.")
		return
	}
	key, label := t.Key, t.Key
	if rec, err := r.prompt(ctx, t.PromptID); err == nil {
		if t.Index >= 0 && t.Index < len(rec.Ask.Choices) {
			key = rec.Ask.Choices[t.Index].Key
		}
		if l := rec.Ask.Label(key); l != "" {
			label = l
		}
	}
	if key == "" {
		key = "#" // an index the record does not have: refused as not one of its choices
	}
	if rec, err := r.prompt(ctx, t.PromptID); err == nil {
		// Only what the message offered: never Allow for a command not shown whole, nothing
		// for a prompt answered in its pane only (a button made by hand, a stale one).
		no := r.refusesText(rec)
		if no == "" && rec.Ask.Kind == adapter.AskPermission && key == "allow" && !showCommand(rec.Ask.Question).whole {
			no = longCommand(rec)
		}
		if no != "" {
			r.log.Info("telegram: button not offered for this prompt; delivered nothing", "user", cq.From.ID, "prompt", t.PromptID, "choice", key)
			r.ack(ctx, cq.ID, no)
			return
		}
	}
	res, err := r.answer(ctx, t.PromptID, wire.Answer{Choice: key, Channel: "telegram", Nonce: t.Nonce, Actor: actor(&cq.From)})
	r.log.Info("telegram: button", "user", cq.From.ID, "prompt", t.PromptID, "choice", key, "delivered", err == nil)
	r.ack(ctx, cq.ID, resultText(label, res, err))
}

// ack answers a callback query; Telegram shows text (at most 200 characters) to the person
// who pressed. Telegram wants every press answered, refused ones too.
func (r *Relay) ack(ctx context.Context, id, text string) {
	if err := r.call(ctx, func(ctx context.Context) error {
		return r.bot.AnswerCallbackQuery(ctx, id, clip(text, 199)) // clip may add "…": 200 in all
	}); err != nil {
		r.log.Warn("telegram: answer a button press", "err", err)
	}
}

// resultText says in a sentence what became of an answer.
func resultText(what string, res wire.Delivered, err error) string {
	o := wire.OutcomeOf(res, err)
	switch o.Kind {
	case wire.OutcomeConfirmed:
		return "Sent: " + what + "."
	case wire.OutcomeDelivered:
		return "Sent: " + what + ". The agent has not taken it yet; if it still waits, look at its pane."
	case wire.OutcomeUnknownPrompt:
		return "Unknown prompt: it may be old, or from another Trail Boss. Nothing was typed."
	case wire.OutcomeRefused:
		return sentence(o.Message)
	case wire.OutcomeBadAnswer:
		return sentence(o.Message) + " Nothing was typed."
	}
	return "The answer could not be delivered (" + o.Message + "). Look at its pane before trying again."
}

// sentence capitalizes s and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	rs := []rune(s)
	rs[0] = unicode.ToUpper(rs[0])
	s = string(rs)
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func (r *Relay) handleMessage(ctx context.Context, m *Message) {
	if m.From == nil || !r.allowed(m.Chat.ID, m.From.ID) {
		var user int64
		if m.From != nil {
			user = m.From.ID
		}
		r.log.Warn("telegram: ignored a message from someone not allowed; nothing was delivered", "user", user, "chat", m.Chat.ID)
		return
	}
	text := m.Text
	switch {
	case strings.TrimSpace(text) == "":
		return // a sticker, a photo: nothing to answer with
	case strings.HasPrefix(text, "/"):
		r.command(ctx, m)
		return
	case m.ReplyToMessage != nil:
		r.mu.Lock()
		id, ok := r.byMsg[m.ReplyToMessage.MessageID]
		r.mu.Unlock()
		if !ok {
			r.reply(ctx, m, "That message is not one of Trail Boss's prompts, so nothing was typed. "+
				"Reply to a prompt's message, or send /pending to see what waits.")
			return
		}
		r.deliverText(ctx, m, id)
		return
	}
	now := r.h.Now()
	items := r.items()
	r.texts.update(items, now)
	var waiting []queue.Item
	for _, it := range items {
		if takesText(it.Prompt) {
			waiting = append(waiting, it)
		}
	}
	switch {
	case len(waiting) == 0:
		r.reply(ctx, m, "No prompt is waiting for text right now, so nothing was typed. Prompts with buttons take a tap; /pending lists what waits.")
		return
	case len(waiting) == 1:
		p := waiting[0].Prompt
		if no := r.refusesText(*p); no != "" {
			r.log.Info("telegram: a text for a prompt that takes no text from here; delivered nothing", "prompt", p.ID)
			r.reply(ctx, m, esc(no))
			return
		}
		why := r.unbound(p.ID, m.Date, now)
		if why == "" {
			r.deliverText(ctx, m, p.ID)
			return
		}
		r.log.Info("telegram: a text with no reply may have been written for another prompt; asked which, delivered nothing",
			"event", "ambiguous_reply_held", "prompt", p.ID, "why", why, "text_date", m.Date)
		r.askWhich(ctx, m, "<b>"+esc(sentence(why))+"</b> So nothing was typed: it may have been meant for another prompt. "+
			"If it is for this one, reply to its message (swipe left on it):\n", waiting)
	default:
		r.log.Info("telegram: a text matches several prompts waiting for text; asked which, delivered nothing",
			"event", "ambiguous_reply_held", "prompts", len(waiting))
		r.askWhich(ctx, m, fmt.Sprintf("<b>%d prompts wait for text</b>, so nothing was typed. Reply to the message of the one you mean (swipe left on it):\n", len(waiting)), waiting)
	}
}

// askWhich answers text m with lead and a line for each prompt of waiting.
func (r *Relay) askWhich(ctx context.Context, m *Message, lead string, waiting []queue.Item) {
	var b strings.Builder
	b.WriteString(lead)
	pl := &placer{tmux: r.h.Tmux}
	for _, it := range waiting {
		b.WriteString("• " + strings.TrimPrefix(header(pl.placeItem(ctx, it)), "⏸ ") + ": " +
			esc(clip(oneLine(it.Prompt.Ask.Question), 80)))
		if it.Prompt.Ask.Secret {
			b.WriteString(" (a secret: at the keyboard only)")
		}
		b.WriteString("\n")
	}
	r.reply(ctx, m, strings.TrimRight(b.String(), "\n"))
}

// unbound says why a text dated date (Telegram's Unix seconds) that replies to no message
// cannot be taken as meant for prompt id, the one prompt waiting for text: "" when it can.
// Its message must have been in the chat before the text was written, and no other prompt
// that takes text may have come or gone within the text window before that, or since.
func (r *Relay) unbound(id string, date int64, now time.Time) string {
	if date <= 0 {
		return "Telegram did not say when you wrote this"
	}
	r.mu.Lock()
	sent, ok := r.sentDate[id]
	if m, shown := r.shown[id]; !ok && shown {
		sent, ok = m.SentAt.Unix(), true
	}
	r.mu.Unlock()
	switch {
	case !ok:
		return "the prompt waiting for text has not reached this chat yet"
	case sent >= date:
		// Dates are whole seconds: a text of the same second as the message was not
		// written after reading it.
		return "the prompt waiting for text reached this chat after you wrote this"
	case r.texts.changedSince(time.Unix(date, 0).Add(-r.cfg.TextWindow), id, now):
		return "the prompts waiting for text changed shortly before you wrote this, or since"
	}
	return ""
}

// refusesText says why prompt p takes no text from Telegram ("" when it does): it asks
// for a secret, or its message could not show it.
func (r *Relay) refusesText(p queue.Prompt) string {
	if p.Ask.Secret {
		return "That prompt asks for a password or secret, so nothing was typed: type it at the keyboard in its pane. " +
			"Trail Boss never sends secrets through Telegram; delete your message from this chat if it holds one."
	}
	r.mu.Lock()
	why := r.paneOnly[p.ID]
	r.mu.Unlock()
	if why != "" {
		return "That prompt is answered in its pane only (" + why + "), so nothing was typed."
	}
	return ""
}

// deliverText answers prompt id with m's text: the text itself for a prompt that waits for
// text, else the choice it names (its key or its label).
func (r *Relay) deliverText(ctx context.Context, m *Message, id string) {
	a := wire.Answer{Text: m.Text, Channel: "telegram", Actor: actor(m.From)}
	what := "your reply"
	if rec, err := r.prompt(ctx, id); err == nil {
		if no := r.refusesText(rec); no != "" {
			r.log.Info("telegram: a reply to a prompt that takes no text from here; delivered nothing", "prompt", id)
			r.reply(ctx, m, esc(no))
			return
		}
		if rec.Ask.Kind == adapter.AskPermission && namedKey(rec, m.Text) == "allow" && !showCommand(rec.Ask.Question).whole {
			r.reply(ctx, m, esc(longCommand(rec)))
			return
		}
		a.Nonce = rec.Nonce
		if rec.Ask.Kind != adapter.AskFreeText {
			if key, ok := choiceNamed(rec, m.Text); ok {
				a.Text, a.Choice, what = "", key, rec.Ask.Label(key)
			}
		}
	}
	res, err := r.answer(ctx, id, a)
	r.log.Info("telegram: reply", "user", m.From.ID, "prompt", id, "delivered", err == nil)
	r.reply(ctx, m, esc(resultText(what, res, err)))
}

// namedKey returns the key of rec's choice that text names, or "".
func namedKey(rec queue.Prompt, text string) string {
	k, _ := choiceNamed(rec, text)
	return k
}

// longCommand is the refusal of an Allow for rec, a permission whose command the phone
// cannot show whole.
func longCommand(rec queue.Prompt) string {
	return "This command is " + showCommand(rec.Ask.Question).length +
		" long, too long to show here whole, so nothing was typed: approve it in the pane. Deny works from here."
}

// actor names the Telegram user u for the audit log: "telegram user 42 (@ann)".
func actor(u *User) string {
	if u == nil {
		return "telegram user unknown"
	}
	name := u.FirstName
	if u.Username != "" {
		name = "@" + u.Username
	}
	return fmt.Sprintf("telegram user %d (%s)", u.ID, adapter.CleanText(name, 40))
}

// choiceNamed returns the key of rec's choice that text names by key or label (any case).
func choiceNamed(rec queue.Prompt, text string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(text))
	for _, c := range rec.Ask.Choices {
		if t == strings.ToLower(c.Key) || t == strings.ToLower(c.Label) {
			return c.Key, true
		}
	}
	return "", false
}

func (r *Relay) command(ctx context.Context, m *Message) {
	cmd, _, _ := strings.Cut(strings.Fields(m.Text)[0], "@")
	switch cmd {
	case "/pending":
		var b strings.Builder
		pl := &placer{tmux: r.h.Tmux}
		n := 0
		for _, it := range r.items() {
			if it.Prompt == nil {
				continue
			}
			n++
			b.WriteString("• " + strings.TrimPrefix(header(pl.placeItem(ctx, it)), "⏸ ") + ": " +
				esc(clip(oneLine(it.Prompt.Ask.Question), 80)))
			if it.Prompt.Ask.Secret {
				b.WriteString(" (a secret: at the keyboard only)")
			}
			b.WriteString("\n")
		}
		if n == 0 {
			r.reply(ctx, m, "Nothing waits for an answer right now.")
			return
		}
		r.reply(ctx, m, fmt.Sprintf("<b>%d waiting</b> (each has its own message above):\n", n)+strings.TrimRight(b.String(), "\n"))
	default:
		r.reply(ctx, m, "Trail Boss sends a message here when one of your agents waits for you. "+
			"Tap a button to answer it, or reply to its message with text. /pending lists what waits.")
	}
}

func (r *Relay) reply(ctx context.Context, m *Message, html string) {
	if err := r.call(ctx, func(ctx context.Context) error {
		_, err := r.bot.SendMessage(ctx, m.Chat.ID, html, nil, m.MessageID)
		return err
	}); err != nil {
		r.log.Warn("telegram: reply in the chat", "err", err)
	}
}
