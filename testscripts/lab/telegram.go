package lab

// The Prompt Lab's Telegram scenarios, QA-010 … QA-015 (and QA-016 and QA-017 with the
// phone too): the rig starts a fake Bot API (testscripts/fakeapi/telegram) in the lab's
// own process and configures the daemon's relay to use it; the lab then plays the phone —
// it reads the messages the relay sent, taps their buttons and sends texts — and checks
// what reached the child.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
)

// The lab's bot, chat and users.
const (
	labBotToken = "7000001:lab-token"
	labChat     = int64(5550001)
	labOperator = int64(4242)
	labStranger = int64(6666)
	labTTL      = 10 * time.Second // QA-011's prompt_ttl (the shortest config.toml takes)
	outageFor   = 10 * time.Second // QA-015
	sendLimit   = time.Second      // stuck → its message
)

// setUpTelegram starts the fake Bot API and writes the relay's config: the token file
// (mode 0600) and [telegram] in config.toml.
func (r *rig) setUpTelegram() error {
	bot, err := faketelegram.Start(labBotToken)
	if err != nil {
		return err
	}
	r.bot = bot
	dir := filepath.Join(r.dir, "xdg", "config", "trailboss")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	token := filepath.Join(dir, "telegram-token")
	if err := os.WriteFile(token, []byte(labBotToken+"\n"), 0o600); err != nil {
		return err
	}
	conf := fmt.Sprintf("[telegram]\ntoken_file = %q\nchat_id = %d\nallowed_users = [%d]\napi_url = %q\n",
		token, labChat, labOperator, bot.URL)
	if r.sc.promptTTL > 0 {
		conf = fmt.Sprintf("prompt_ttl = %q\n\n", r.sc.promptTTL.String()) + conf
	}
	return os.WriteFile(filepath.Join(dir, "config.toml"), []byte(conf), 0o600)
}

// phoneMessage waits for the relay's message showing prompt p (its buttons carry p's id;
// a prompt without buttons is found by its question) and returns it.
func (r *rig) phoneMessage(p *wire.Prompt, timeout time.Duration) (faketelegram.Message, error) {
	var got faketelegram.Message
	err := r.bot.Wait(timeout, func() bool {
		for _, m := range r.bot.Messages() {
			if m.ReplyTo != 0 {
				continue
			}
			for _, k := range m.Keys() {
				if strings.Contains(k, ":"+p.ID+":") {
					got = m
					return true
				}
			}
			if len(p.Choices) == 0 && len(m.Buttons) == 0 && m.Edits == 0 && strings.Contains(m.Text, strings.TrimSpace(p.Question)) {
				got = m
				return true
			}
		}
		return false
	})
	if err != nil {
		return got, fmt.Errorf("no message on the phone for prompt %s (%q) within %v: %d message(s) sent", p.ID, p.Question, timeout, len(r.bot.Messages()))
	}
	return got, nil
}

// sentWithin checks that message m went out within limit of prompt p's record, and notes
// the delay under key.
func (r *rig) sentWithin(key string, m faketelegram.Message, p *wire.Prompt, limit time.Duration) {
	d := m.SentAt.Sub(r.recordedAt(p.ID))
	r.note(key, ms(d), "the message reached the phone %d ms after the prompt was recorded (limit %d ms)", ms(d), ms(limit))
	r.check(d <= limit, "the message for prompt %s reached the phone %d ms after its record, more than %d ms", p.ID, ms(d), ms(limit))
}

// button returns the callback data of m's button for choice key.
func button(m faketelegram.Message, key string) (string, error) {
	for _, k := range m.Keys() {
		if strings.HasSuffix(k, ":"+key) {
			return k, nil
		}
	}
	return "", fmt.Errorf("the message has no button for %q (it has %q)", key, m.Keys())
}

// press presses m's button for key as user and waits for the relay's answerCallbackQuery;
// it returns the update, the text shown to the user and when the tap was made.
func (r *rig) press(user int64, m faketelegram.Message, key string) (update int64, ack string, at time.Time, err error) {
	data, err := button(m, key)
	if err != nil {
		return 0, "", at, err
	}
	at = time.Now()
	update, cb := r.bot.Tap(user, labChat, m.ID, data)
	ack, err = r.acked(cb)
	return update, ack, at, err
}

// acked waits for the relay's answer to callback query cb and returns its text.
func (r *rig) acked(cb string) (string, error) {
	var a faketelegram.CallbackAnswer
	err := r.bot.Wait(10*time.Second, func() bool {
		var ok bool
		a, ok = r.bot.CallbackAnswer(cb)
		return ok
	})
	if err != nil {
		return "", fmt.Errorf("the tap %s was never answered with answerCallbackQuery", cb)
	}
	return a.Text, nil
}

// edited waits for message id to be edited to say what matches re, its buttons gone.
func (r *rig) edited(id int64, re string, timeout time.Duration) (faketelegram.Message, error) {
	rx := regexp.MustCompile(re)
	var got faketelegram.Message
	err := r.bot.Wait(timeout, func() bool {
		got, _ = r.bot.Message(id)
		return got.Edits > 0 && len(got.Buttons) == 0 && rx.MatchString(got.Text)
	})
	if err != nil {
		return got, fmt.Errorf("message %d was not edited to match %q with its buttons gone within %v; it says %q, buttons %q",
			id, re, timeout, got.Text, got.Keys())
	}
	return got, nil
}

// lastLine returns the last line of a message's text.
func lastLine(s string) string {
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// sessionPrompt waits for the pending prompt of the session that runs in dir.
func (r *rig) sessionPrompt(dir, what string) (*wire.Prompt, error) {
	var got *wire.Prompt
	err := r.poll(what, waitLong, func() (bool, error) {
		items, err := r.c.Queue(r.ctx)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if it.Cwd == dir && it.Prompt != nil {
				got = it.Prompt
				return true, nil
			}
		}
		return false, nil
	})
	return got, err
}

// peer starts a second supervisor with child, in a folder of its own beside the rig's,
// talking to the same daemon: a second session.
func (r *rig) peer(name, child string) (*rig, error) {
	p := &rig{ctx: r.ctx, sc: &Scenario{id: r.sc.id, name: r.sc.name + "-" + name, child: child}, self: r.self,
		settle: r.settle, stall: r.stall, env: r.env, stateDir: r.stateDir, addr: r.addr, tap: r.tap, c: r.c,
		seen: map[string]time.Time{}, dir: filepath.Join(r.dir, name)}
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return nil, err
	}
	p.record = filepath.Join(p.dir, "child.jsonl")
	return p, p.startSupervisor()
}

// twoSessions starts a second session with child beside the rig's (peer) and waits for
// the pending prompt of each; the caller stops the second with stopSession.
func (r *rig) twoSessions(child string) (b *rig, pa, pb *wire.Prompt, err error) {
	b, err = r.peer("second-session", child)
	if err != nil {
		return nil, nil, nil, err
	}
	if pa, err = r.sessionPrompt(r.dir, "session A's prompt"); err == nil {
		pb, err = b.sessionPrompt(b.dir, "session B's prompt")
	}
	if err != nil {
		b.stopSession()
		return nil, nil, nil, err
	}
	return b, pa, pb, nil
}

// readNothing checks that the child has read nothing more than it was answered.
func (r *rig) readNothing(who string) {
	got, _ := r.readSoFar()
	r.check(got == r.want.String(), "%s read %q, want %q", who, got, r.want.String())
}

// yesNoOnPhone waits for the session's first prompt record, checks it is a yes/no asking
// question, and waits for its message on the phone; it returns the record, its yes key and
// the message.
func (r *rig) yesNoOnPhone(question string) (p *wire.Prompt, yes string, m faketelegram.Message, err error) {
	p, err = r.waitPrompt("the prompt's record", waitLong, newPrompt())
	if err != nil {
		return nil, "", m, err
	}
	yes, _ = r.checkYesNo(p, question)
	m, err = r.phoneMessage(p, 5*time.Second)
	return p, yes, m, err
}

// tapAnswer taps m's button for key as the operator and expects the child to read key and
// Enter.
func (r *rig) tapAnswer(m faketelegram.Message, key string) error {
	if _, _, _, err := r.press(labOperator, m, key); err != nil {
		return err
	}
	_, err := r.expectRead(key + "\r")
	return err
}

// ---- QA-010 … QA-015 ---------------------------------------------------------------------

func qaDuplicateCallback(r *rig) error {
	p, yes, m, err := r.yesNoOnPhone("Do you want to continue?")
	if err != nil {
		return err
	}
	r.sentWithin("record_to_message_ms", m, p, sendLimit)
	update, ack, tapped, err := r.press(labOperator, m, yes)
	if err != nil {
		return err
	}
	r.note("first_tap", ack, "the first tap was answered %q", ack)
	at, err := r.expectRead(yes + "\r")
	if err != nil {
		return err
	}
	r.note("tap_to_read_ms", ms(at.Sub(tapped)), "the child read %q %d ms after the tap", yes+"\r", ms(at.Sub(tapped)))
	r.supMayExit = true // its one answer read, the child ends while the lab looks on
	// Telegram delivers at least once: the same update, same callback, again.
	r.bot.Redeliver(update)
	if err := r.poll("the second delivery of the update to be refused", 5*time.Second, func() (bool, error) {
		_, refused := r.auditCounts("", p.ID)
		r.figures = r.figures[:len(r.figures)-1] // auditCounts notes; only the final count is kept
		return refused >= 1, nil
	}); err != nil {
		return err
	}
	if _, err := r.edited(m.ID, "Answered from Telegram", 5*time.Second); err != nil {
		return err
	}
	if err := r.finish(1); err != nil {
		return err
	}
	delivered, refused := r.auditCounts("audit", p.ID)
	r.note("injections", delivered, "the child read the answer once; the audit log: %d delivered, %d refused as already answered", delivered, refused)
	r.check(delivered == 1 && refused == 1, "the audit log shows %d deliveries and %d refusals, want 1 and 1", delivered, refused)
	return nil
}

func qaLateReply(r *rig) error {
	p, yes, m, err := r.yesNoOnPhone("Do you want to continue?")
	if err != nil {
		return err
	}
	expired, err := r.edited(m.ID, "Expired", labTTL+waitLong)
	if err != nil {
		return err
	}
	after := expired.EditedAt.Sub(r.recordedAt(p.ID))
	r.note("expired_after_s", round2(after.Seconds()), "the message said %q %.1f s after the prompt was recorded (prompt_ttl %v), its buttons gone",
		lastLine(expired.Text), after.Seconds(), labTTL)
	r.check(after < labTTL+3*time.Second, "the message was withdrawn %.1f s after the record, want about %v", after.Seconds(), labTTL)
	_, ack, _, err := r.press(labOperator, m, yes)
	if err != nil {
		return err
	}
	r.note("late_tap", ack, "a tap on it after that was answered %q", ack)
	r.check(strings.Contains(ack, "expired"), "the late tap was answered %q, want it told the prompt expired", ack)
	w, err := r.c.WaitPrompt(r.ctx, p.ID, time.Second)
	if err != nil {
		return err
	}
	r.note("prompt_status", w.Status, "the prompt's status: %s; nothing was typed by default", w.Status)
	r.check(w.Status == wire.PromptExpired, "the prompt is %q, want expired", w.Status)
	r.readNothing("the child")
	delivered, refused := r.auditCounts("audit", p.ID)
	r.check(delivered == 0 && refused == 1, "the audit log shows %d deliveries and %d refusals, want 0 and 1", delivered, refused)
	return nil
}

func qaWrongSession(r *rig) error {
	p, yes, m, err := r.yesNoOnPhone("Do you want to continue?")
	if err != nil {
		return err
	}
	crafted := []struct{ what, data string }{
		{"a prompt id that does not exist", "a:pdeadbeef00000000:0000000000000000:" + yes},
		{"this prompt's id with another nonce", "a:" + p.ID + ":0011223344556677:" + yes},
		{"a choice the prompt does not offer", "a:" + p.ID + ":" + nonceOf(m) + ":maybe"},
	}
	for i, c := range crafted {
		_, cb := r.bot.Tap(labOperator, labChat, m.ID, c.data)
		ack, err := r.acked(cb)
		if err != nil {
			return err
		}
		r.note("crafted"+strconv.Itoa(i+1), ack, "a button with %s was answered %q", c.what, ack)
		r.check(strings.Contains(ack, "Nothing was typed") || strings.Contains(ack, "nothing was typed"),
			"a button with %s was answered %q, want a refusal that says nothing was typed", c.what, ack)
	}
	pending, err := r.stillPending(p)
	if err != nil {
		return err
	}
	r.note("still_pending", pending, "the real prompt is still pending after them: %v", pending)
	r.check(pending, "the real prompt is no longer pending after the crafted buttons")
	r.readNothing("the child")
	if err := r.tapAnswer(m, yes); err != nil {
		return err
	}
	return r.finishDelivered(1, p)
}

// nonceOf returns the nonce the message's buttons carry.
func nonceOf(m faketelegram.Message) string {
	for _, k := range m.Keys() {
		if parts := strings.Split(k, ":"); len(parts) == 4 {
			return parts[2]
		}
	}
	return ""
}

func qaConcurrentSessions(r *rig) error {
	b, pa, pb, err := r.twoSessions("migration")
	if err != nil {
		return err
	}
	defer b.stopSession()
	r.notePrompt("prompt_a", pa, "session A's prompt")
	b.figures = nil
	r.notePrompt("prompt_b", pb, "session B's prompt")
	r.check(pa.ID != pb.ID, "the two sessions share prompt id %s", pa.ID)
	ma, err := r.phoneMessage(pa, 5*time.Second)
	if err != nil {
		return err
	}
	mb, err := r.phoneMessage(pb, 5*time.Second)
	if err != nil {
		return err
	}
	r.check(ma.ID != mb.ID, "one message for both prompts")
	yesA, _ := yesNoKeys(pa)
	_, noB := yesNoKeys(pb)
	if _, _, _, err := r.press(labOperator, ma, yesA); err != nil {
		return err
	}
	if _, err := r.expectRead(yesA + "\r"); err != nil {
		return fmt.Errorf("session A: %w", err)
	}
	b.readNothing("session B after A's tap")
	if pending, err := b.sessionPrompt(b.dir, "session B still waiting"); err != nil || pending.ID != pb.ID {
		r.check(false, "session B's prompt changed or left after A's tap: %v", err)
	}
	if _, _, _, err := r.press(labOperator, mb, noB); err != nil {
		return err
	}
	if _, err := b.expectRead(noB + "\r"); err != nil {
		return fmt.Errorf("session B: %w", err)
	}
	gotA, _ := r.readSoFar()
	gotB, _ := b.readSoFar()
	r.note("reads", []string{gotA, gotB}, "session A read %q, session B read %q: each its own answer", gotA, gotB)
	r.check(gotA == yesA+"\r" && gotB == noB+"\r", "session A read %q and B %q, want %q and %q", gotA, gotB, yesA+"\r", noB+"\r")
	for _, p := range []*wire.Prompt{pa, pb} {
		ds, err := r.deliveries(p.ID)
		if err != nil {
			return err
		}
		ok := len(ds) == 1 && auditResultIs(ds[0].Result, "delivered") && strings.HasPrefix(ds[0].SessionID, "pty-")
		r.check(ok, "the audit log of prompt %s: %+v, want one delivery to its own session", p.ID, ds)
		if ok && p == pb {
			da, _ := r.deliveries(pa.ID)
			r.check(len(da) == 1 && da[0].SessionID != ds[0].SessionID, "both deliveries went to session %s", ds[0].SessionID)
		}
	}
	return nil
}

func qaAmbiguousText(r *rig) error {
	b, pa, pb, err := r.twoSessions("free-text")
	if err != nil {
		return err
	}
	defer b.stopSession()
	r.checkPrompt(pa, wire.KindFreeText, "commit message")
	r.checkPrompt(pb, wire.KindFreeText, "commit message")
	var msgs []faketelegram.Message
	if err := r.bot.Wait(5*time.Second, func() bool {
		msgs = nil
		for _, m := range r.bot.Messages() {
			if m.ReplyTo == 0 && len(m.Buttons) == 0 && strings.Contains(m.Text, "Reply to this message") {
				msgs = append(msgs, m)
			}
		}
		return len(msgs) == 2
	}); err != nil {
		return fmt.Errorf("want two messages waiting for text, got %d", len(msgs))
	}
	// Which message is whose: its first line names the folder of its session.
	ma := msgs[0]
	if strings.Contains(strings.SplitN(ma.Text, "\n", 2)[0], "second-session") {
		ma = msgs[1]
	}
	_, said := r.bot.Say(labOperator, labChat, "my-commit-message", 0)
	var asked faketelegram.Message
	if err := r.bot.Wait(5*time.Second, func() bool {
		for _, m := range r.bot.Messages() {
			if m.ReplyTo == said {
				asked = m
				return true
			}
		}
		return false
	}); err != nil {
		return fmt.Errorf("the ambiguous text was never answered")
	}
	r.note("disambiguation", asked.Text, "a text with no reply context was answered: %q", asked.Text)
	r.check(strings.Contains(asked.Text, "2 prompts wait for text") && strings.Contains(asked.Text, "nothing was typed"),
		"the ambiguous text was answered %q, want the two prompts listed and nothing typed", asked.Text)
	r.readNothing("session A after the ambiguous text")
	b.readNothing("session B after the ambiguous text")
	r.bot.Say(labOperator, labChat, "my-commit-message", ma.ID)
	if _, err := r.expectRead("my-commit-message\r"); err != nil {
		return fmt.Errorf("session A after the reply to its message: %w", err)
	}
	b.readNothing("session B after the reply to A's message")
	r.note("after_reply", "A", "a reply to session A's message reached A only")
	logged := strings.Contains(tailLines(filepath.Join(r.dir, "daemon.log"), 200), "ambiguous_reply_held")
	r.check(logged, "the daemon's log has no ambiguous_reply_held")
	return nil
}

func qaTelegramOutage(r *rig) error {
	r.bot.SetOutage(true)
	began := time.Now()
	p, err := r.waitPrompt("the prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	yes, _ := r.checkYesNo(p, "Do you want to continue?")
	// Pending all through the outage, and nothing sent.
	if err := r.poll("the outage to last "+outageFor.String(), outageFor+waitLong, func() (bool, error) {
		still, err := r.stillPending(p)
		if err != nil {
			return false, err
		}
		if !still {
			return false, fmt.Errorf("the prompt left pending during the outage")
		}
		return time.Since(began) >= outageFor, nil
	}); err != nil {
		return err
	}
	failed := len(r.bot.Calls("getUpdates")) + len(r.bot.Calls("sendMessage"))
	r.bot.SetOutage(false)
	ended := time.Now()
	r.note("outage_s", round2(ended.Sub(began).Seconds()), "the Bot API answered 503 to everything for %.1f s (%d calls); the prompt stayed pending", ended.Sub(began).Seconds(), failed)
	m, err := r.phoneMessage(p, 70*time.Second)
	if err != nil {
		return err
	}
	r.note("message_after_outage_s", round2(m.SentAt.Sub(ended).Seconds()), "its message reached the phone %.1f s after the outage ended, by itself", m.SentAt.Sub(ended).Seconds())
	if err := r.tapAnswer(m, yes); err != nil {
		return err
	}
	if err := r.finishDelivered(1, p); err != nil {
		return err
	}
	logText := tailLines(filepath.Join(r.dir, "daemon.log"), 400)
	var backoffs []float64
	for _, l := range strings.Split(logText, "\n") {
		if strings.Contains(l, "telegram_polling_failed") {
			_, v, _ := strings.Cut(l, "backoff_seconds=")
			if f, err := strconv.ParseFloat(strings.Fields(v + " ")[0], 64); err == nil {
				backoffs = append(backoffs, f)
			}
		}
	}
	r.note("poll_backoffs_s", backoffs, "failed polls backed off %v s", backoffs)
	grows := len(backoffs) >= 3 && backoffs[0] >= 1
	for i := 1; i < len(backoffs); i++ {
		grows = grows && backoffs[i] >= backoffs[i-1] && backoffs[i] <= 60
	}
	r.check(grows, "the poll backoffs %v do not start at 1 s and grow to at most 60 s", backoffs)
	r.check(strings.Contains(logText, "telegram_outage_recovered"), "the daemon's log has no telegram_outage_recovered")
	return nil
}

// ---- QA-016 and QA-017 with the phone ------------------------------------------------------

func qaDaemonRestartPhone(r *rig) error {
	if err := qaDaemonRestart(r); err != nil {
		return err
	}
	// When the second daemon started, from its log; when the phone was told, from the
	// message: its edit that says the prompt still waits, or a message sent anew.
	var started time.Time
	for _, l := range strings.Split(tailLines(filepath.Join(r.dir, "daemon.log"), 400), "\n") {
		if strings.Contains(l, "daemon listening") {
			if f := strings.Fields(strings.TrimPrefix(l, "time=")); len(f) > 0 {
				started, _ = time.Parse(time.RFC3339Nano, f[0])
			}
		}
	}
	told := phoneToldAgain(r)
	if !r.check(!started.IsZero() && !told.IsZero(), "the phone was not told the prompt still waits after the restart (%d messages)", len(r.bot.Messages())) {
		return nil
	}
	d := told.Sub(started)
	r.note("phone_told_s", round2(d.Seconds()), "the phone was told the prompt still waits %.2f s after the daemon started again (limit %.0f s)", d.Seconds(), restartLimit.Seconds())
	r.check(d <= restartLimit, "the phone was told %.2f s after the restart, more than %.0f s", d.Seconds(), restartLimit.Seconds())
	return nil
}

// phoneToldAgain returns when the phone was told, after a restart, that a prompt still
// waits: the edit of its message that says so, or a message sent anew; zero when not yet.
func phoneToldAgain(r *rig) time.Time {
	var told time.Time
	for _, m := range r.bot.Messages() {
		if len(m.History) == 0 {
			continue
		}
		// The text after edit i is History[i+1], or the text now after the last.
		texts := append(append([]string(nil), m.History[1:]...), m.Text)
		for i, at := range m.EditAts {
			if i < len(texts) && strings.Contains(texts[i], "Trail Boss restarted") && told.IsZero() {
				told = at
			}
		}
	}
	for _, m := range r.bot.Messages() {
		if m.ID > 1 && m.ReplyTo == 0 && told.IsZero() {
			told = m.SentAt // sent anew for a new record
		}
	}
	return told
}

func qaChildCrashPhone(r *rig) error {
	if err := qaChildCrash(r); err != nil {
		return err
	}
	msgs := r.bot.Messages()
	if !r.check(len(msgs) == 1, "%d messages on the phone, want 1", len(msgs)) {
		return nil
	}
	m, err := r.edited(msgs[0].ID, "session ended", 5*time.Second)
	if err != nil {
		return err
	}
	r.note("phone_message", lastLine(m.Text), "its message on the phone now says %q, its buttons gone", lastLine(m.Text))
	data := ""
	for _, k := range msgs[0].SentKeys() {
		if strings.HasSuffix(k, ":y") || strings.HasSuffix(k, ":yes") {
			data = k
		}
	}
	_, cb := r.bot.Tap(labOperator, labChat, m.ID, data)
	ack, err := r.acked(cb)
	if err != nil {
		return err
	}
	r.note("stale_tap", ack, "a tap on the stale button was answered %q", ack)
	r.check(strings.Contains(ack, "ended"), "the stale tap was answered %q, want it told the session ended", ack)
	return nil
}

// ---- issue 18: what the person saw ---------------------------------------------------------

// kept waits until the relay has kept the id of prompt p's message (its log says so): the
// fake Bot API has the message as soon as it was asked for.
func (r *rig) kept(p *wire.Prompt) error {
	return r.poll("the relay to keep the message of prompt "+p.ID, 5*time.Second, func() (bool, error) {
		for _, l := range strings.Split(tailLines(filepath.Join(r.dir, "daemon.log"), 400), "\n") {
			if strings.Contains(l, "telegram: prompt sent") && strings.Contains(l, "prompt="+p.ID) {
				return true, nil
			}
		}
		return false, nil
	})
}

// botReply waits for the bot's reply to message said and returns it.
func (r *rig) botReply(said int64) (faketelegram.Message, error) {
	var got faketelegram.Message
	err := r.bot.Wait(5*time.Second, func() bool {
		for _, m := range r.bot.Messages() {
			if m.ReplyTo == said {
				got = m
				return true
			}
		}
		return false
	})
	if err != nil {
		return got, fmt.Errorf("the bot never replied to message %d", said)
	}
	return got, nil
}

func qaTextBeforeChange(r *rig) error {
	p1, err := r.waitPrompt("the first prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	r.checkPrompt(p1, wire.KindFreeText, "commit message")
	m1, err := r.phoneMessage(p1, 5*time.Second)
	if err != nil {
		return err
	}
	// The person starts writing for the first prompt, a whole second after its message
	// came (Telegram dates texts in seconds)…
	var written time.Time
	if err := r.poll("the clock to pass the message's second", 3*time.Second, func() (bool, error) {
		written = time.Now()
		return written.Unix() > m1.SentAt.Unix(), nil
	}); err != nil {
		return err
	}
	// … while it is answered elsewhere and the session asks something else.
	if _, err := r.deliver(p1, wire.Answer{Text: "first"}, "first\r"); err != nil {
		return err
	}
	p2, err := r.waitPrompt("the second prompt's record", waitLong, newPrompt(p1))
	if err != nil {
		return err
	}
	r.checkPrompt(p2, wire.KindFreeText, "branch to delete")
	m2, err := r.phoneMessage(p2, 5*time.Second)
	if err != nil {
		return err
	}
	if err := r.kept(p2); err != nil {
		return err
	}
	_, said := r.bot.SayAt(labOperator, labChat, "main", 0, written)
	asked, err := r.botReply(said)
	if err != nil {
		return err
	}
	r.note("held", asked.Text, "a text written for the first prompt, read once the second waited, was answered %q", asked.Text)
	r.check(strings.Contains(asked.Text, "nothing was typed") && strings.Contains(asked.Text, "branch to delete"),
		"the text was answered %q, want it held, naming the prompt waiting now", asked.Text)
	r.readNothing("the child after the text written before the change")
	ds, err := r.deliveries(p2.ID)
	if err != nil {
		return err
	}
	r.check(len(ds) == 0, "the audit log has %d entries for the second prompt after the held text, want none", len(ds))
	r.bot.Say(labOperator, labChat, "feature-x", m2.ID)
	if _, err := r.expectRead("feature-x\r"); err != nil {
		return fmt.Errorf("the reply to the second prompt's message: %w", err)
	}
	r.note("after_reply", "feature-x", "a reply to the second prompt's message reached it")
	return r.finishDelivered(2, p2)
}

func qaLongMenu(r *rig) error {
	p, err := r.waitPrompt("the menu's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	r.checkPrompt(p, wire.KindChoice, "release notes")
	m, err := r.phoneMessage(p, 10*time.Second)
	if err != nil {
		return err
	}
	chars := len([]rune(longMenu()))
	n := len([]rune(m.Text))
	r.note("menu_message", n, "a menu of %d options (%d characters on screen) became one message of %d characters with %d buttons",
		len(p.Choices), chars, n, len(m.Keys()))
	r.check(chars >= 5000 && n <= 4096 && strings.Contains(m.Text, "more options — answer in the pane"),
		"the menu's message is %d characters for a menu of %d, want at most 4,096 saying how many more options there are", n, chars)
	r.check(len(m.Keys()) > 0 && len(m.Keys()) < len(p.Choices), "the menu's message has %d buttons for %d options, want one for each option shown", len(m.Keys()), len(p.Choices))
	if _, _, _, err := r.press(labOperator, m, "1"); err != nil {
		return err
	}
	if _, err := r.expectRead("1\r"); err != nil {
		return err
	}
	p2, err := r.waitPrompt("the next prompt's record", waitLong, newPrompt(p))
	if err != nil {
		return err
	}
	m2, err := r.phoneMessage(p2, 10*time.Second)
	if err != nil {
		return err
	}
	r.sentWithin("next_record_to_message_ms", m2, p2, 10*time.Second)
	yes, _ := yesNoKeys(p2)
	return r.tapAnswer(m2, yes)
}
