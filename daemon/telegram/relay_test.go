package telegram_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/deliver"
	"github.com/trailboss/trailboss/daemon/ptyhub"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/telegram"
	"github.com/trailboss/trailboss/daemon/wire"
	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// The relay against the fake Bot API, with the real engine, store and Deliverer, and
// programs in real tmux panes that read what is typed.

const (
	token    = "123456:TEST-token"
	chat     = int64(5550001)
	operator = int64(4242)
	stranger = int64(6666)
)

type world struct {
	t       testing.TB
	env     *tmuxtest.Env
	bot     *faketelegram.Server
	dbPath  string
	st      *store.Store
	engine  *daemon.Engine
	deliver *deliver.Deliverer
	relay   *telegram.Relay
	cfg     telegram.Config
	logs    *syncBuffer
	hosts   telegram.Hosts // nil: not a hub
	cancel  context.CancelFunc
	done    chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newWorld starts a tmux server, a fake Bot API, a store and an engine, and the relay, its
// config changed by each of with.
func newWorld(t testing.TB, with ...func(*telegram.Config)) *world {
	t.Helper()
	return newWorldWith(t, nil, with...)
}

// newWorldWith is newWorld with prep called on the world before the relay starts.
func newWorldWith(t testing.TB, prep func(*world), with ...func(*telegram.Config)) *world {
	t.Helper()
	w := &world{t: t, env: tmuxtest.New(t), logs: &syncBuffer{}}
	if prep != nil {
		prep(w)
	}
	bot, err := faketelegram.Start(token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bot.Close)
	w.bot = bot
	w.dbPath = filepath.Join(t.TempDir(), "state.db")
	w.cfg = telegram.Config{Token: token, ChatID: chat, AllowedUsers: []int64{operator}, APIURL: bot.URL, PollTimeout: 5 * time.Second}
	for _, f := range with {
		f(&w.cfg)
	}
	w.open()
	w.start()
	return w
}

func (w *world) open() {
	ctx := context.Background()
	st, err := store.Open(ctx, w.dbPath)
	if err != nil {
		w.t.Fatal(err)
	}
	w.st = st
	log := slog.New(slog.NewTextHandler(w.logs, nil))
	e, err := daemon.NewEngine(ctx, st, time.Minute, log)
	if err != nil {
		w.t.Fatal(err)
	}
	w.engine = e
	w.deliver = &deliver.Deliverer{Engine: e, Log: log, Holds: &daemon.Holds{}, PTY: &ptyhub.PTYHub{},
		EnterPause: 50 * time.Millisecond, Confirm: 500 * time.Millisecond, Tmux: w.tmux}
}

func (w *world) tmux(socket string) *tmuxctl.Server {
	return &tmuxctl.Server{Bin: w.env.Server.Bin, Socket: socket, Env: w.env.Environ}
}

func (w *world) start() {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	w.relay = telegram.New(w.cfg)
	host := telegram.Host{Queue: w.engine, Deliver: w.deliver, Store: w.st, Tmux: w.tmux,
		Log: slog.New(slog.NewTextHandler(w.logs, nil)).With("component", "telegram"), Now: time.Now, Hosts: w.hosts}
	go func() {
		defer close(w.done)
		if err := w.relay.Run(ctx, host); err != nil {
			w.t.Errorf("relay: %v", err)
		}
	}()
	w.t.Cleanup(w.stop)
}

// stop stops the relay and closes the store (a daemon stopping).
func (w *world) stop() {
	if w.cancel == nil {
		return
	}
	w.cancel()
	<-w.done
	w.cancel = nil
	w.st.Close()
}

// stuck makes session stuck in pane with ask, and returns its prompt record.
func (w *world) stuck(session, pane, cwd string, ask *adapter.Ask) queue.Prompt {
	w.t.Helper()
	reason := adapter.ReasonPermission
	if ask.Kind == adapter.AskFreeText {
		reason = adapter.ReasonStopped
	}
	if q := termprompt.Classify(w.env.Tmux(w.t, "capture-pane", "-p", "-J", "-t", pane)).Question; ask.From == adapter.AskFromScreen &&
		q != ask.Question && strings.Contains(q, ask.Question) {
		// As the screen watcher makes it: in the screen's own words ("(#1) Continue?").
		shown := *ask
		shown.Question = q
		ask = &shown
	}
	ev := adapter.Event{Harness: "screen", SessionID: session, Kind: adapter.KindStuck, Pane: pane, Cwd: cwd,
		TmuxSocket: w.env.Socket, Reason: reason, Summary: ask.Question, At: time.Now(), Ask: ask,
		Program: w.env.PaneProgram(w.t, pane)}
	if _, err := w.engine.Ingest(context.Background(), ev); err != nil {
		w.t.Fatal(err)
	}
	p, ok := w.engine.PendingPrompt(session)
	if !ok {
		w.t.Fatalf("session %s has no pending prompt", session)
	}
	return p
}

func (w *world) unstuck(session string) {
	w.t.Helper()
	if _, err := w.engine.Ingest(context.Background(), adapter.Event{Harness: "screen", SessionID: session,
		Kind: adapter.KindUnstuck, At: time.Now()}); err != nil {
		w.t.Fatal(err)
	}
}

// message waits for the bot's message whose buttons carry prompt id (or, for a prompt
// without buttons, whose text holds id's question) and returns it.
func (w *world) message(what string, timeout time.Duration, ok func(faketelegram.Message) bool) faketelegram.Message {
	w.t.Helper()
	var got faketelegram.Message
	if err := w.bot.Wait(timeout, func() bool {
		for _, m := range w.bot.Messages() {
			if ok(m) {
				got = m
				return true
			}
		}
		return false
	}); err != nil {
		w.t.Fatalf("%s: %v; the bot's messages: %+v\nlogs:\n%s", what, err, w.bot.Messages(), w.logs.String())
	}
	return got
}

func forPrompt(p queue.Prompt) func(faketelegram.Message) bool {
	return func(m faketelegram.Message) bool {
		for _, k := range m.Keys() {
			if strings.Contains(k, p.ID) {
				return true
			}
		}
		return m.ChatID == chat && m.ReplyTo == 0 && strings.Contains(m.Text, p.Ask.Question)
	}
}

func keyFor(t *testing.T, m faketelegram.Message, suffix string) string {
	t.Helper()
	for _, k := range m.Keys() {
		if strings.HasSuffix(k, ":"+suffix) {
			return k
		}
	}
	t.Fatalf("message %d has no button ending in %q: %q", m.ID, suffix, m.Keys())
	return ""
}

func (w *world) callbackAnswer(id string) faketelegram.CallbackAnswer {
	w.t.Helper()
	var a faketelegram.CallbackAnswer
	if err := w.bot.Wait(10*time.Second, func() bool {
		var ok bool
		a, ok = w.bot.CallbackAnswer(id)
		return ok
	}); err != nil {
		w.t.Fatalf("the tap %s was never answered (answerCallbackQuery); logs:\n%s", id, w.logs.String())
	}
	return a
}

func (w *world) deliveries(promptID string) (delivered, refused int) {
	w.t.Helper()
	ds, err := w.st.Deliveries(context.Background(), 100)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, d := range ds {
		if d.PromptID != promptID {
			continue
		}
		if d.Channel != "telegram" {
			w.t.Errorf("audit entry of channel %q, want telegram", d.Channel)
		}
		switch d.Result {
		case "delivered", "confirmed":
			delivered++
		case "refused":
			refused++
		}
	}
	return delivered, refused
}

var yesNo = &adapter.Ask{Kind: adapter.AskYesNo, Question: "Continue? (y/n)", From: adapter.AskFromScreen,
	Choices: []adapter.AskChoice{{Key: "y", Label: "yes"}, {Key: "n", Label: "no"}}}

// projectDir returns a folder named name holding a git repository on branch.
func projectDir(t testing.TB, name, branch string) string {
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A stuck session's prompt becomes one message within a second: where it runs (project,
// branch, tmux session:window), what it asks, and a button per choice whose data fits in
// 64 bytes. A tap types the answer into its pane once; the same update delivered again
// types nothing and is refused in the audit log; the message then says it was answered
// from Telegram and has no buttons.
func TestTapAnswersOnceAndTheMessageSaysSo(t *testing.T) {
	w := newWorld(t)
	dir := projectDir(t, "webshop", "dark-mode")
	pane, out := w.env.NewReaderPane(t, "work", dir, "Continue? (y/n) ")
	stuckAt := time.Now()
	p := w.stuck("s1", pane, dir, yesNo)
	m := w.message("the prompt's message", 5*time.Second, forPrompt(p))
	if d := m.SentAt.Sub(stuckAt); d > time.Second {
		t.Errorf("the message was sent %v after the session became stuck, want within 1 s", d)
	}
	for _, want := range []string{"webshop", "(dark-mode)", "tmux work:", "asks yes or no", "Continue? (y/n)", "Tap a button"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the message lacks %q:\n%s", want, m.Text)
		}
	}
	if m.ChatID != chat || len(m.Keys()) != 2 {
		t.Fatalf("message in chat %d with buttons %q, want chat %d with two buttons", m.ChatID, m.Keys(), chat)
	}
	for _, k := range m.Keys() {
		if len(k) > 64 || !strings.Contains(k, p.Nonce) {
			t.Errorf("callback data %q: over 64 bytes, or without the prompt's nonce", k)
		}
	}
	upd, cb := w.bot.Tap(operator, chat, m.ID, keyFor(t, m, "y"))
	if a := w.callbackAnswer(cb); !strings.HasPrefix(a.Text, "Sent: yes") {
		t.Errorf("the tap was answered %q, want it sent", a.Text)
	}
	w.env.WaitFor(t, "the pane to read y", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) == 1 })
	if !w.bot.Redeliver(upd) {
		t.Fatal("redeliver")
	}
	if err := w.bot.Wait(5*time.Second, func() bool {
		d, r := w.deliveries(p.ID)
		return d == 1 && r == 1
	}); err != nil {
		d, r := w.deliveries(p.ID)
		t.Fatalf("after the same update twice the audit log shows %d delivered, %d refused; want 1 and 1", d, r)
	}
	edited := w.message("the message edited", 5*time.Second, func(x faketelegram.Message) bool {
		return x.ID == m.ID && x.Edits > 0
	})
	if !strings.Contains(edited.Text, "Answered from Telegram: yes") || len(edited.Buttons) != 0 {
		t.Errorf("after the tap the message says %q with buttons %q; want it answered from Telegram and no buttons", edited.Text, edited.Keys())
	}
	if got := tmuxtest.ReadLines(t, out); len(got) != 1 || got[0] != "y" {
		t.Errorf("the pane read %q, want exactly one y", got)
	}
	if n := len(w.bot.Calls("sendMessage")); n != 1 {
		t.Errorf("%d sendMessage calls, want 1", n)
	}
}

// Only the operator gets in: a tap from a user not in allowed_users, and one from the
// operator in another chat, type nothing; the prompt stays pending and its message keeps
// its buttons; a crafted button for an unknown prompt is refused in words.
func TestOnlyTheOperatorGetsIn(t *testing.T) {
	w := newWorld(t)
	pane, out := w.env.NewReaderPane(t, "work", t.TempDir(), "Continue? (y/n) ")
	p := w.stuck("s1", pane, "", yesNo)
	m := w.message("the prompt's message", 5*time.Second, forPrompt(p))
	_, cb1 := w.bot.Tap(stranger, chat, m.ID, keyFor(t, m, "y"))
	_, cb2 := w.bot.Tap(operator, chat+1, m.ID, keyFor(t, m, "y"))
	w.bot.Say(stranger, chat, "y", m.ID)
	_, cb3 := w.bot.Tap(operator, chat, m.ID, "a:pdeadbeef00000000:0011223344556677:y")
	for _, cb := range []string{cb1, cb2} {
		if a := w.callbackAnswer(cb); !strings.Contains(a.Text, "not allowed") {
			t.Errorf("a tap from outside was answered %q, want a refusal", a.Text)
		}
	}
	if a := w.callbackAnswer(cb3); !strings.Contains(a.Text, "Unknown prompt") || !strings.Contains(a.Text, "Nothing was typed") {
		t.Errorf("a tap for an unknown prompt was answered %q", a.Text)
	}
	if err := w.bot.Wait(2*time.Second, func() bool { return strings.Count(w.logs.String(), "not allowed") >= 3 }); err != nil {
		t.Errorf("the refused updates were not all logged:\n%s", w.logs.String())
	}
	if _, ok := w.engine.PendingPrompt("s1"); !ok {
		t.Error("the prompt is no longer pending")
	}
	if got := tmuxtest.ReadLines(t, out); len(got) != 0 {
		t.Errorf("the pane read %q, want nothing", got)
	}
	if cur, _ := w.bot.Message(m.ID); len(cur.Buttons) == 0 || cur.Edits != 0 {
		t.Errorf("the message was edited (%d) or lost its buttons", cur.Edits)
	}
	if d, _ := w.deliveries(p.ID); d != 0 {
		t.Errorf("%d deliveries", d)
	}
}

// A prompt answered at the keyboard (the session moves on) has its message edited: it
// says so, and its buttons are gone; a late tap on it types nothing and says why.
func TestKeyboardAnswerEditsTheMessage(t *testing.T) {
	w := newWorld(t)
	pane, out := w.env.NewReaderPane(t, "work", t.TempDir(), "Continue? (y/n) ")
	p := w.stuck("s1", pane, "", yesNo)
	m := w.message("the prompt's message", 5*time.Second, forPrompt(p))
	w.unstuck("s1")
	edited := w.message("the message edited", 5*time.Second, func(x faketelegram.Message) bool { return x.ID == m.ID && x.Edits > 0 })
	if len(edited.Buttons) != 0 || !strings.Contains(edited.Text, "answered at the keyboard") {
		t.Errorf("after the keyboard answered, the message says %q with buttons %q", edited.Text, edited.Keys())
	}
	_, cb := w.bot.Tap(operator, chat, m.ID, keyFor(t, m, "y"))
	if a := w.callbackAnswer(cb); !strings.Contains(a.Text, "moved on") {
		t.Errorf("a late tap was answered %q, want it refused as moved on", a.Text)
	}
	if got := tmuxtest.ReadLines(t, out); len(got) != 0 {
		t.Errorf("the pane read %q, want nothing", got)
	}
}

// Text binds to a prompt: with one prompt waiting for text, a plain message answers it;
// with two, the relay asks which and types nothing (QA-014); a reply to one prompt's
// message answers that one only.
func TestTextRepliesBindToOnePrompt(t *testing.T) {
	const window = time.Second
	w := newWorld(t, func(c *telegram.Config) { c.TextWindow = window })
	ask := func(q string) *adapter.Ask {
		return &adapter.Ask{Kind: adapter.AskFreeText, Question: q, From: adapter.AskFromScreen}
	}
	paneA, outA := w.env.NewReaderPane(t, "work", t.TempDir(), "Commit message? ")
	pa := w.stuck("a", paneA, "", ask("Commit message?"))
	ma := w.message("A's message", 5*time.Second, forPrompt(pa))
	if len(ma.Buttons) != 0 || !strings.Contains(ma.Text, "Reply to this message") {
		t.Errorf("a free-text prompt's message has buttons %q or no hint to reply:\n%s", ma.Keys(), ma.Text)
	}
	paneB, outB := w.env.NewReaderPane(t, "work", t.TempDir(), "Branch name? ")
	pb := w.stuck("b", paneB, "", ask("Branch name?"))
	mb := w.message("B's message", 5*time.Second, forPrompt(pb))

	_, said := w.bot.Say(operator, chat, "my-commit-message", 0)
	asked := w.message("the question which", 5*time.Second, func(x faketelegram.Message) bool { return x.ReplyTo == said })
	if !strings.Contains(asked.Text, "2 prompts wait for text") || !strings.Contains(asked.Text, "nothing was typed") {
		t.Errorf("an ambiguous text was answered %q", asked.Text)
	}
	if !strings.Contains(w.logs.String(), "ambiguous_reply_held") {
		t.Error("the ambiguous reply was not logged")
	}
	_, said = w.bot.Say(operator, chat, "feature/login", mb.ID)
	w.message("the reply's result", 5*time.Second, func(x faketelegram.Message) bool { return x.ReplyTo == said })
	w.env.WaitFor(t, "B to read its answer", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, outB)) == 1 })
	if got := tmuxtest.ReadLines(t, outB); got[0] != "feature/login" {
		t.Errorf("B read %q", got)
	}
	if got := tmuxtest.ReadLines(t, outA); len(got) != 0 {
		t.Errorf("A read %q, want nothing", got)
	}
	// B's message is edited as answered; now only A waits for text: a plain text written
	// after the text window (here 1 s) is A's.
	w.message("B's message edited", 5*time.Second, func(x faketelegram.Message) bool { return x.ID == mb.ID && len(x.Buttons) == 0 && x.Edits > 0 })
	w.unstuck("b")
	w.bot.SayAt(operator, chat, "fix the login", 0, time.Now().Add(window+1500*time.Millisecond))
	w.env.WaitFor(t, "A to read its answer", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, outA)) == 1 })
	if got := tmuxtest.ReadLines(t, outA); got[0] != "fix the login" {
		t.Errorf("A read %q", got)
	}
}

// A Bot API outage keeps the prompt pending and the relay backs off (1 s, 2 s, …); once
// it is over the message goes out by itself and a tap answers the prompt (QA-015).
func TestOutageThenAnswer(t *testing.T) {
	w := newWorld(t)
	w.bot.SetOutage(true)
	pane, out := w.env.NewReaderPane(t, "work", t.TempDir(), "Continue? (y/n) ")
	p := w.stuck("s1", pane, "", yesNo)
	if err := w.bot.Wait(10*time.Second, func() bool {
		return strings.Count(w.logs.String(), "telegram_polling_failed") >= 3
	}); err != nil {
		t.Fatalf("no failed polls logged during the outage:\n%s", w.logs.String())
	}
	if _, ok := w.engine.PendingPrompt("s1"); !ok {
		t.Error("the prompt left pending during the outage")
	}
	if st := w.relay.Status(); st.State != wire.ChannelOutage {
		t.Errorf("status during the outage: %+v", st)
	}
	w.bot.SetOutage(false)
	m := w.message("the prompt's message after the outage", 70*time.Second, forPrompt(p))
	_, cb := w.bot.Tap(operator, chat, m.ID, keyFor(t, m, "y"))
	w.callbackAnswer(cb)
	w.env.WaitFor(t, "the pane to read y", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) == 1 })
	if !strings.Contains(w.logs.String(), "telegram_outage_recovered") {
		t.Error("the recovery was not logged")
	}
	var backoffs []string
	for _, l := range strings.Split(w.logs.String(), "\n") {
		if strings.Contains(l, "telegram_polling_failed") {
			_, b, _ := strings.Cut(l, "backoff_seconds=")
			backoffs = append(backoffs, strings.Fields(b)[0])
		}
	}
	if len(backoffs) < 3 || backoffs[0] != "1" || backoffs[1] != "2" || backoffs[2] != "4" {
		t.Errorf("backoffs %q, want 1, 2, 4, …", backoffs)
	}
}

// Another poller on the token (409 Conflict) is said plainly, in the log and the status,
// and the relay resumes once it is gone.
func TestConflictIsSaidPlainly(t *testing.T) {
	w := newWorld(t)
	w.bot.SetConflict(true)
	if err := w.bot.Wait(10*time.Second, func() bool { return w.relay.Status().State == wire.ChannelConflict }); err != nil {
		t.Fatalf("status %+v, want conflict", w.relay.Status())
	}
	if !strings.Contains(w.logs.String(), "another program is taking this bot's updates") {
		t.Errorf("the conflict is not said in the log:\n%s", w.logs.String())
	}
	w.bot.SetConflict(false)
	if err := w.bot.Wait(10*time.Second, func() bool { return w.relay.Status().State == wire.ChannelOK }); err != nil {
		t.Fatalf("status %+v after the conflict ended, want ok", w.relay.Status())
	}
}

// After a restart the open message of a prompt still pending is edited to say so, buttons
// kept, within 5 s, and no second message is sent; a tap then answers it (QA-016). The
// getUpdates offset is kept: the updates handled before are not asked for again.
func TestRestartEditsThePendingPrompt(t *testing.T) {
	w := newWorld(t)
	pane, out := w.env.NewReaderPane(t, "work", t.TempDir(), "Continue? (y/n) ")
	p := w.stuck("s1", pane, "", yesNo)
	m := w.message("the prompt's message", 5*time.Second, forPrompt(p))
	// The fake has the message as soon as it was asked for; the relay keeps its id once the
	// answer is back. A stop in between makes a message sent anew after the restart.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(w.logs.String(), "telegram: prompt sent"); {
		if time.Now().After(deadline) {
			t.Fatalf("the relay never kept the message's id:\n%s", w.logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.bot.Say(operator, chat, "/help", 0)
	w.message("the help", 5*time.Second, func(x faketelegram.Message) bool { return strings.Contains(x.Text, "/pending") })
	w.stop()
	restarted := time.Now()
	w.open()
	w.start()
	edited := w.message("the message edited after the restart", 5*time.Second, func(x faketelegram.Message) bool {
		return x.ID == m.ID && strings.Contains(x.Text, "restarted")
	})
	if d := edited.EditedAt.Sub(restarted); d > 5*time.Second {
		t.Errorf("edited %v after the restart, want within 5 s", d)
	}
	if len(edited.Keys()) != 2 {
		t.Errorf("after the restart the message has buttons %q, want its two", edited.Keys())
	}
	if n := len(w.bot.Calls("sendMessage")); n != 2 { // the prompt and the help
		t.Errorf("%d sendMessage calls, want 2 (no second message for the prompt, no second help)", n)
	}
	_, cb := w.bot.Tap(operator, chat, m.ID, keyFor(t, m, "n"))
	w.callbackAnswer(cb)
	w.env.WaitFor(t, "the pane to read n", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) == 1 })
}

// An expired prompt's message says so and loses its buttons; a late tap types nothing and
// is told it expired (QA-011). Nothing is typed by default.
func TestExpiredPromptIsWithdrawn(t *testing.T) {
	w := newWorld(t)
	w.engine.PromptTTL = 1500 * time.Millisecond
	pane, out := w.env.NewReaderPane(t, "work", t.TempDir(), "Continue? (y/n) ")
	p := w.stuck("s1", pane, "", yesNo)
	m := w.message("the prompt's message", 5*time.Second, forPrompt(p))
	if err := w.bot.Wait(5*time.Second, func() bool {
		if _, err := w.engine.ExpirePrompts(context.Background()); err != nil {
			t.Error(err)
		}
		cur, _ := w.bot.Message(m.ID)
		return cur.Edits > 0
	}); err != nil {
		t.Fatal("the message was not edited after the prompt expired")
	}
	cur, _ := w.bot.Message(m.ID)
	if !strings.Contains(cur.Text, "Expired: nothing was typed") || len(cur.Buttons) != 0 {
		t.Errorf("the expired prompt's message says %q, buttons %q", cur.Text, cur.Keys())
	}
	_, cb := w.bot.Tap(operator, chat, m.ID, keyFor(t, m, "y"))
	if a := w.callbackAnswer(cb); !strings.Contains(a.Text, "expired") {
		t.Errorf("a late tap was answered %q, want it expired", a.Text)
	}
	if got := tmuxtest.ReadLines(t, out); len(got) != 0 {
		t.Errorf("the pane read %q, want nothing", got)
	}
}

// An answer that claims its prompt but cannot be delivered (the holding hook went away and
// the pane does not show the dialog) puts the prompt back: its message, closed for a
// moment as answered, gets its buttons back, and the tap is told nothing was typed.
func TestUndeliveredAnswerReopensTheMessage(t *testing.T) {
	w := newWorld(t)
	pane, out := w.env.NewReaderPane(t, "work", t.TempDir(), "just a shell prompt ")
	ask := adapter.PermissionAsk("Bash: make deploy", adapter.AskFromHook)
	p := w.stuck("s1", pane, "", ask)
	w.deliver.Holds.(*daemon.Holds).Touch(p.ID) // a hook said it holds, and will not take the answer
	m := w.message("the prompt's message", 5*time.Second, forPrompt(p))
	_, cb := w.bot.Tap(operator, chat, m.ID, keyFor(t, m, "allow"))
	if a := w.callbackAnswer(cb); !strings.Contains(a.Text, "nothing was typed") {
		t.Errorf("the tap was answered %q, want told nothing was typed", a.Text)
	}
	if err := w.bot.Wait(5*time.Second, func() bool {
		cur, _ := w.bot.Message(m.ID)
		return len(cur.Keys()) == 2 && strings.Contains(cur.Text, "Tap Allow or Deny") &&
			strings.Contains(strings.Join(cur.History, "\n"), "Answered from Telegram")
	}); err != nil {
		cur, _ := w.bot.Message(m.ID)
		t.Fatalf("the message says %q with buttons %q; want it open again", cur.Text, cur.Keys())
	}
	if _, ok := w.engine.PendingPrompt("s1"); !ok {
		t.Error("the prompt is not pending again")
	}
	if got := tmuxtest.ReadLines(t, out); len(got) != 0 {
		t.Errorf("the pane read %q", got)
	}
}
