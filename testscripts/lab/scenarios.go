package lab

// The Prompt Lab's scenarios: AtlasBridge's QA-001 … QA-019
// (seeds/atlasbridge-qa-scenarios.md). The Telegram ones (QA-010 … QA-015, and QA-016 and
// QA-017 with the phone too) are in lab_telegram.go; the others take the daemon's API as
// the channel: a prompt
// record is what a phone would be shown, and an answer goes through POST
// /v1/prompts/{id}/answer. Each returns an error when it cannot go on; the checks it could
// make and failed are the rig's problems.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// scenarios is the catalogue, in order.
var scenarios = []*Scenario{
	{id: "QA-001", name: "partial-line-prompt", child: "partial-line", run: qaPartialLine,
		about: "a prompt with no line end, then a blocking read: one yes/no record within settle + 1 s; y reaches the child as \"y\\r\""},
	{id: "QA-002", name: "ansi-redraw-prompt", child: "ansi-redraw", run: qaRedraw,
		about: "a coloured spinner redrawn with CR resolves to a prompt: exactly one record, its question free of escapes"},
	{id: "QA-003", name: "overwrite-before-block", child: "overwrite-before-block", stall: 1500 * time.Millisecond, run: qaOverwrite,
		about: "a prompt erased with spaces before the read is still recorded, with the question last shown, and can be answered"},
	{id: "QA-004", name: "silent-block", child: "silent-block", stall: 1500 * time.Millisecond, run: qaSilent,
		about: "a child that reads without writing anything becomes stuck after the stall time and can be answered"},
	{id: "QA-005", name: "sequential-prompts", child: "sequential-prompts", run: qaSequential,
		about: "two prompts in a row: two records, each answer reaches its own prompt in order, the first's again is refused"},
	{id: "QA-006", name: "multiple-choice", child: "menus", run: qaMenus,
		about: "a numbered and a lettered menu: their choices read off, a key not offered refused, the chosen key typed"},
	{id: "QA-007", name: "yes-no-variants", child: "yes-no-variants", run: qaYesNoVariants,
		about: "seven ways of asking yes or no are each a yes/no record; y and n reach the child as typed"},
	{id: "QA-008", name: "press-enter", child: "press-enter-variants", run: qaPressEnter,
		about: "six press-enter gates are each a press-enter record with one choice; the answer types exactly \"\\r\""},
	{id: "QA-009", name: "free-text-length", child: "free-text", run: qaFreeText,
		about: "an over-long reply is refused with 400 \"Reply too long\", nothing is typed, the prompt stays pending"},
	{id: "QA-010", name: "duplicate-callback", child: "partial-line", run: qaDuplicateCallback, telegram: true,
		about: "the same Telegram tap delivered twice: the child reads the answer once, the second is refused as answered, the message says answered"},
	{id: "QA-011", name: "late-reply-after-ttl", child: "partial-line", run: qaLateReply, telegram: true, promptTTL: labTTL,
		about: "the prompt expires: its message says so and loses its buttons, a late tap types nothing and is told it expired, nothing is typed by default"},
	{id: "QA-012", name: "wrong-session-reply", child: "partial-line", run: qaWrongSession, telegram: true,
		about: "buttons with an unknown prompt id, another nonce, a choice not offered: each refused in words, nothing typed, the real prompt still answerable"},
	{id: "QA-013", name: "concurrent-sessions", child: "partial-line", run: qaConcurrentSessions, telegram: true,
		about: "two supervisors asking at once: two messages, each tap reaches its own child only"},
	{id: "QA-014", name: "ambiguous-text-reply", child: "free-text", run: qaAmbiguousText, telegram: true,
		about: "two prompts waiting for text and a text with no reply: the relay asks which and types nothing; a reply to one message reaches that one"},
	{id: "QA-014b", name: "text-dated-before-change", child: "two-texts", run: qaTextBeforeChange, telegram: true,
		about: "a text with no reply written while one prompt waited, read after the session asked another: the relay asks which and types nothing; a reply to the new message answers it"},
	{id: "QA-014c", name: "long-menu-then-prompt", child: "long-menu", run: qaLongMenu, telegram: true,
		about: "a menu of 5,000 characters fits one message (the options that fit, then how many more); the prompt after it reaches the phone within 10 s"},
	{id: "QA-015", name: "telegram-outage", child: "partial-line", run: qaTelegramOutage, telegram: true,
		about: "the Bot API answers 503 for 10 s: the prompt stays pending, polls back off from 1 s, the message goes out by itself after, a tap answers it"},
	{id: "QA-016", name: "daemon-restart-mid-prompt", child: "migration", run: qaDaemonRestartPhone, telegram: true,
		about: "the daemon stopped and restarted mid-prompt: the child lives on, the prompt is pending again within 5 s (the phone told), an answer reaches it"},
	{id: "QA-017", name: "child-crash-mid-prompt", child: "patch", run: qaChildCrashPhone, telegram: true,
		about: "the child killed mid-prompt: the session ends, its prompt fails, its message says so, a late answer or tap is refused, nothing crashes"},
	{id: "QA-018", name: "output-flood", child: "flood", run: qaFlood, alone: true,
		about: "100,000 lines then a prompt: supervisor CPU ≤ 0.5 s, memory growth ≤ 2 MB, prompt recorded within settle + 1 s"},
	{id: "QA-019", name: "injection-echo-loop", child: "echo-loop", run: qaEchoLoop,
		about: "the terminal's echo of an answer makes no second record; a genuine later prompt still does"},
}

// Limits the scenarios hold the supervisor to.
const (
	restartLimit = 5 * time.Second // QA-016: pending again after the daemon's restart
	floodCPU     = 500 * time.Millisecond
	floodRSS     = 3 << 20          // the flood is 8 MB: a supervisor that kept it would grow far more; under load the GC runs late
	waitLong     = 15 * time.Second // how long the lab waits for what should take far less, so that a slow result is measured, not lost
)

// detectLimit is how soon after its prompt is written a record must exist.
func (r *rig) detectLimit() time.Duration { return r.settle + time.Second }

func ms(d time.Duration) int64 { return d.Milliseconds() }

// yesNoKeys returns p's yes and no keys ("y"/"n", or "yes"/"no" as the prompt spells them).
func yesNoKeys(p *wire.Prompt) (yes, no string) {
	for _, c := range p.Choices {
		switch k := strings.ToLower(c.Key); {
		case yes == "" && strings.HasPrefix(k, "y"):
			yes = c.Key
		case no == "" && strings.HasPrefix(k, "n"):
			no = c.Key
		}
	}
	return yes, no
}

// checkYesNo checks that p is a yes/no record asking question with a yes and a no.
func (r *rig) checkYesNo(p *wire.Prompt, question string) (yes, no string) {
	r.checkPrompt(p, wire.KindYesNo, question)
	yes, no = yesNoKeys(p)
	r.check(yes != "" && no != "" && len(p.Choices) == 2, "prompt %s offers %q, want a yes and a no", p.ID, choiceKeys(p))
	return yes, no
}

// answerFor returns an answer that p's kind accepts and what it must type: the yes key,
// Enter, the first choice, or the text "y".
func answerFor(p *wire.Prompt) (wire.Answer, string) {
	switch p.Kind {
	case wire.KindYesNo:
		if yes, _ := yesNoKeys(p); yes != "" {
			return wire.Answer{Choice: yes}, yes + "\r"
		}
	case wire.KindPressEnter:
		return wire.Answer{Choice: "enter"}, "\r"
	case wire.KindFreeText:
		return wire.Answer{Text: "y"}, "y\r"
	}
	if len(p.Choices) > 0 {
		return wire.Answer{Choice: p.Choices[0].Key}, p.Choices[0].Key + "\r"
	}
	return wire.Answer{Text: "y"}, "y\r"
}

// recorded notes prompt record p under key as what ("the prompt"), and checks that it was
// made within detectLimit of the child's writing text: the delay is noted under
// "record_after_s" for the key "prompt", else under key + "_record_after_s".
func (r *rig) recorded(key string, p *wire.Prompt, what, text string) {
	r.notePrompt(key, p, what)
	after := "record_after_s"
	if key != "prompt" {
		after = key + "_" + after
	}
	r.timely(after, p, text, "wrote the prompt", r.detectLimit())
}

// deliverTimed answers prompt p with a as deliver does and notes under key how soon after
// the answer the child read typed.
func (r *rig) deliverTimed(key string, p *wire.Prompt, a wire.Answer, typed string) error {
	d, err := r.deliver(p, a, typed)
	if err != nil {
		return err
	}
	r.note(key, ms(d), "the child read %s %d ms after the answer was posted", strconv.Quote(typed), ms(d))
	return nil
}

// answerLast answers p, the session's one prompt, with a as deliverTimed does (under
// "answer_to_read_ms"), then lets the session end and checks that the audit log shows p
// delivered once.
func (r *rig) answerLast(p *wire.Prompt, a wire.Answer, typed string) error {
	if err := r.deliverTimed("answer_to_read_ms", p, a, typed); err != nil {
		return err
	}
	return r.finishDelivered(1, p)
}

// finishDelivered ends the session as finish does, with records prompt records, and checks
// that the audit log shows p, its last, delivered once.
func (r *rig) finishDelivered(records int, p *wire.Prompt) error {
	if err := r.finish(records); err != nil {
		return err
	}
	r.checkDeliveredOnce("audit", p.ID)
	return nil
}

// refusedChoice answers p with a choice it does not offer, expects the daemon's 400 and
// notes its message under key; what names the choice in an error.
func (r *rig) refusedChoice(key string, p *wire.Prompt, choice, what string) error {
	msg, _, err := r.refused(p.ID, wire.Answer{Choice: choice}, http.StatusBadRequest)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	r.note(key, msg, "choice %q refused with 400: %s", choice, msg)
	return nil
}

// stillPending reports whether p is still the session's pending prompt.
func (r *rig) stillPending(p *wire.Prompt) (bool, error) {
	it, err := r.item()
	return it != nil && it.Prompt != nil && it.Prompt.ID == p.ID, err
}

// auditCounts returns how many entries for prompt id were delivered and refused, noting
// them all under key.
func (r *rig) auditCounts(key, id string) (delivered, refused int) {
	ds, err := r.deliveries(id)
	if !r.check(err == nil, "%v", err) {
		return 0, 0
	}
	var got []string
	for _, d := range ds {
		s := d.Result
		if d.Via != "" {
			s += " via " + d.Via
		}
		if s += fmt.Sprintf(", %d bytes", d.Length); d.Length == 1 {
			s = strings.TrimSuffix(s, "s")
		}
		if d.Reason != "" {
			s += " (" + clip(d.Reason, 60) + ")"
		}
		got = append(got, s)
		switch {
		case auditResultIs(d.Result, "delivered"):
			delivered++
		case d.Result == "refused":
			refused++
		}
	}
	r.note(key, got, "audit log of %s: %s", id, strings.Join(got, "; "))
	return delivered, refused
}

// checkDeliveredOnce checks that the audit log shows prompt id delivered exactly once. The
// child may read its answer a moment before the daemon writes the audit entry (a channel
// inside the daemon answers on its own goroutine): a missing entry is waited for, briefly.
func (r *rig) checkDeliveredOnce(key, id string) {
	_ = r.poll("the audit entry of prompt "+id, 3*time.Second, func() (bool, error) {
		ds, err := r.deliveries(id)
		for _, d := range ds {
			if auditResultIs(d.Result, "delivered") {
				return true, nil
			}
		}
		return false, err
	})
	if d, _ := r.auditCounts(key, id); d != 1 {
		r.check(false, "the audit log shows prompt %s delivered %d times, want once", id, d)
	}
}

// ---- QA-001 … QA-009 -----------------------------------------------------------------------

func qaPartialLine(r *rig) error {
	p, err := r.waitPrompt("the yes/no prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	yes, _ := r.checkYesNo(p, "Do you want to continue?")
	r.recorded("prompt", p, "the prompt", promptPartial)
	return r.answerLast(p, wire.Answer{Choice: yes}, yes+"\r")
}

func qaRedraw(r *rig) error {
	p, err := r.waitPrompt("the prompt after the spinner", waitLong, newPrompt())
	if err != nil {
		return err
	}
	yes, _ := r.checkYesNo(p, "Proceed? (y/n)")
	r.check(!strings.Contains(p.Question, "Loading"), "the question %q still carries the spinner", p.Question)
	r.recorded("prompt", p, "the prompt after the spinner", promptRedraw)
	ids := r.promptIDs()
	r.note("records_before_answer", len(ids), "%d prompt record(s) for the one question (%d prompt reports)", len(ids), r.tap.count(wire.PTYPrompt))
	r.check(len(ids) == 1, "the spinner and its prompt made %d records (%s), want exactly 1", len(ids), strings.Join(ids, ", "))
	return r.answerLast(p, wire.Answer{Choice: yes}, yes+"\r")
}

func qaOverwrite(r *rig) error {
	p, err := r.waitPrompt("a record of the erased prompt", r.stall+waitLong, newPrompt())
	if err != nil {
		return err
	}
	r.notePrompt("prompt", p, "the erased prompt")
	r.check(strings.Contains(p.Question, "Delete file?"), "the record asks %q, want the question last shown (\"Delete file? (y/n)\")", p.Question)
	erase := "\r" + strings.Repeat(" ", len(promptOverwrite)) + "\r"
	r.timely("record_after_s", p, erase, "erased the prompt", r.stall+time.Second)
	a, typed := answerFor(p)
	return r.answerLast(p, a, typed)
}

func qaSilent(r *rig) error {
	p, err := r.waitPrompt("a record of the silent read", r.stall+waitLong, newPrompt())
	if err != nil {
		return err
	}
	r.notePrompt("prompt", p, "the silent read")
	r.check(strings.TrimSpace(p.Question) != "", "the record of the silent read asks nothing: a person would be shown an empty message")
	started, _ := r.eventAt("start")
	after := r.recordedAt(p.ID).Sub(started)
	limit := r.stall + time.Second
	r.note("record_after_s", round2(after.Seconds()), "recorded %.2f s after the child started reading in silence (limit: stall %.2f s + 1 s)", after.Seconds(), r.stall.Seconds())
	r.check(after <= limit, "the silent read was recorded after %.2f s, more than the limit of %.2f s", after.Seconds(), limit.Seconds())
	a, typed := answerFor(p)
	return r.answerLast(p, a, typed)
}

func qaSequential(r *rig) error {
	p1, err := r.waitPrompt("the first prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	yes, _ := r.checkYesNo(p1, "Overwrite existing file?")
	r.recorded("first", p1, "the first prompt", promptOverwriteSeq)
	if _, err := r.deliver(p1, wire.Answer{Choice: yes}, yes+"\r"); err != nil {
		return err
	}
	p2, err := r.waitPrompt("the second prompt's record", waitLong, newPrompt(p1))
	if err != nil {
		return err
	}
	r.checkPrompt(p2, wire.KindFreeText, "Enter new filename")
	r.recorded("second", p2, "the second prompt", promptFilename)
	_, reason, err := r.refused(p1.ID, wire.Answer{Choice: yes}, http.StatusConflict)
	if err != nil {
		return fmt.Errorf("the first prompt's answer again, while the second waits: %w", err)
	}
	r.note("first_again", reason, "answering the first prompt again while the second waits: 409 (%s), nothing typed", reason)
	r.check(reason == wire.RefusedAnswered, "answering the first prompt again was refused as %q, want %q", reason, wire.RefusedAnswered)
	if _, err := r.deliver(p2, wire.Answer{Text: "notes-v2.txt"}, "notes-v2.txt\r"); err != nil {
		return err
	}
	if err := r.finish(2); err != nil {
		return err
	}
	got, _ := r.readSoFar()
	r.note("read", got, "the child read %q: the answers in order", got)
	r.checkDeliveredOnce("audit_first", p1.ID)
	r.checkDeliveredOnce("audit_second", p2.ID)
	return nil
}

func qaMenus(r *rig) error {
	menus := []struct {
		prompt, question string
		keys, labels     []string
		pick, bad        string
	}{
		{promptMenuNumeric, "Select an option", []string{"1", "2", "3"}, []string{"Deploy to staging", "Deploy to production", "Cancel"}, "2", "4"},
		{promptMenuAlpha, "Choose action", []string{"a", "b", "c"}, []string{"Approve", "Reject", "Skip"}, "b", "d"},
	}
	var prev []*wire.Prompt
	for i, m := range menus {
		p, err := r.waitPrompt(fmt.Sprintf("menu %d's record", i+1), waitLong, newPrompt(prev...))
		if err != nil {
			return err
		}
		prev = append(prev, p)
		var labels []string
		for _, c := range p.Choices {
			labels = append(labels, c.Label)
		}
		key := fmt.Sprintf("menu%d", i+1)
		r.checkPrompt(p, wire.KindChoice, m.question)
		r.check(slices.Equal(choiceKeys(p), m.keys) && slices.Equal(labels, m.labels),
			"menu %d offers %s, want %q labelled %q", i+1, describeChoices(p), m.keys, m.labels)
		r.recorded(key, p, fmt.Sprintf("menu %d", i+1), m.prompt)
		if err := r.refusedChoice(key+"_bad_key", p, m.bad, "a key the menu does not offer"); err != nil {
			return err
		}
		if err := r.deliverTimed(key+"_answer_to_read_ms", p, wire.Answer{Choice: m.pick}, m.pick+"\r"); err != nil {
			return err
		}
	}
	if err := r.finish(2); err != nil {
		return err
	}
	for i, p := range prev {
		r.checkDeliveredOnce(fmt.Sprintf("audit_menu%d", i+1), p.ID)
	}
	return nil
}

func describeChoices(p *wire.Prompt) string {
	var s []string
	for _, c := range p.Choices {
		s = append(s, c.Key+"="+strconv.Quote(c.Label))
	}
	return "[" + strings.Join(s, " ") + "]"
}

func qaYesNoVariants(r *rig) error {
	var prev []*wire.Prompt
	var slowest time.Duration
	var seen []string
	for i, v := range yesNoVariants {
		p, err := r.waitPrompt(fmt.Sprintf("a record of %q", v), waitLong, newPrompt(prev...))
		if err != nil {
			return err
		}
		prev = append(prev, p)
		yes, no := r.checkYesNo(p, strings.TrimSpace(v))
		slowest = max(slowest, r.sinceSaid(p, v+" "))
		key := yes
		if i%2 == 1 {
			key = no
		}
		seen = append(seen, fmt.Sprintf("%q → %s %s/%s, answered %s", v, p.Kind, yes, no, key))
		if i == 0 {
			if err := r.refusedChoice("bad_choice", p, "maybe", "a choice a yes/no prompt does not offer"); err != nil {
				return err
			}
		}
		if _, err := r.deliver(p, wire.Answer{Choice: key}, key+"\r"); err != nil {
			return err
		}
	}
	r.noteVariants(seen, "variant", slowest)
	return r.finish(len(yesNoVariants))
}

func qaPressEnter(r *rig) error {
	var prev []*wire.Prompt
	var slowest time.Duration
	var seen []string
	for i, v := range pressEnterVariants {
		p, err := r.waitPrompt(fmt.Sprintf("a record of %q", v), waitLong, newPrompt(prev...))
		if err != nil {
			return err
		}
		prev = append(prev, p)
		r.checkPrompt(p, wire.KindPressEnter, v)
		r.check(slices.Equal(choiceKeys(p), []string{"enter"}), "%q offers %s, want the one choice \"enter\"", v, describeChoices(p))
		slowest = max(slowest, r.sinceSaid(p, v+" "))
		seen = append(seen, fmt.Sprintf("%q → %s %s", v, p.Kind, describeChoices(p)))
		if i == 0 {
			if err := r.refusedChoice("yes_refused", p, "y", "a yes to a press-enter gate"); err != nil {
				return err
			}
		}
		if _, err := r.deliver(p, wire.Answer{Choice: "enter"}, "\r"); err != nil {
			return err
		}
	}
	r.noteVariants(seen, "gate", slowest)
	if err := r.finish(len(pressEnterVariants)); err != nil {
		return err
	}
	got, _ := r.readSoFar()
	r.note("read", got, "the child read %q: one CR a gate, no y or n", got)
	return nil
}

// sinceSaid returns how long after the child last finished writing text prompt p was
// recorded.
func (r *rig) sinceSaid(p *wire.Prompt, text string) time.Duration {
	wrote, _ := r.saidAt(text)
	return r.recordedAt(p.ID).Sub(wrote)
}

// noteVariants notes how each variant of a prompt (what: "variant", "gate") was recorded,
// and notes and checks the slowest record.
func (r *rig) noteVariants(seen []string, what string, slowest time.Duration) {
	r.note("variants", seen, "%s", strings.Join(seen, "\n        "))
	r.note("slowest_record_s", round2(slowest.Seconds()), "the slowest %s was recorded %.2f s after it was written (limit %.2f s)", what, slowest.Seconds(), r.detectLimit().Seconds())
	r.check(slowest <= r.detectLimit(), "a %s was recorded %.2f s after it was written, more than the limit of %.2f s", what, slowest.Seconds(), r.detectLimit().Seconds())
}

func qaFreeText(r *rig) error {
	p, err := r.waitPrompt("the free-text prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	r.checkPrompt(p, wire.KindFreeText, "Enter a commit message")
	r.recorded("prompt", p, "the prompt", promptCommit)
	long := strings.Repeat("x", 600)
	msg, _, err := r.refused(p.ID, wire.Answer{Text: long}, http.StatusBadRequest)
	if err != nil {
		return fmt.Errorf("a 600-character reply: %w", err)
	}
	r.note("too_long", msg, "a 600-character reply: 400 %q", msg)
	r.check(strings.Contains(msg, "Reply too long (600 chars, max 500)"), "the refusal says %q, want \"Reply too long (600 chars, max 500)…\"", msg)
	delivered, refused, err := r.refusedThenTyped(p)
	if err != nil {
		return err
	}
	r.check(refused >= 1, "the audit log has no refused entry for the over-long reply")
	r.check(delivered == 1, "the audit log shows the reply delivered %d times, want once", delivered)
	return nil
}

// refusedThenTyped checks, after a reply to p was refused, that p is still pending and the
// child read nothing; then a one-line reply reaches the child and it finishes. It returns
// what the audit log counts for p.
func (r *rig) refusedThenTyped(p *wire.Prompt) (delivered, refused int, err error) {
	it, err := r.item()
	if err != nil {
		return 0, 0, err
	}
	still := it != nil && it.Prompt != nil && it.Prompt.ID == p.ID
	r.note("still_pending", still, "the prompt is still pending after the refusal: %v", still)
	r.check(still, "after the refusal the queue shows %+v, want prompt %s still pending", it, p.ID)
	got, _ := r.readSoFar()
	r.check(got == "", "the child read %q after a refused reply, want nothing", got)
	if err := r.deliverTimed("answer_to_read_ms", p, wire.Answer{Text: "fix the flaky test"}, "fix the flaky test\r"); err != nil {
		return 0, 0, err
	}
	if err := r.finish(1); err != nil {
		return 0, 0, err
	}
	delivered, refused = r.auditCounts("audit", p.ID)
	return delivered, refused, nil
}

// ---- QA-016 … QA-019 ----------------------------------------------------------------------

func qaDaemonRestart(r *rig) error {
	p1, err := r.waitPrompt("the prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	yes, _ := r.checkYesNo(p1, "Continue with the migration?")
	r.recorded("prompt", p1, "the prompt", promptMigration)
	if r.bot != nil {
		// The restart is of a prompt the phone was shown: wait for its message first.
		for deadline := time.Now().Add(waitLong); len(r.bot.Messages()) == 0; {
			if time.Now().After(deadline) {
				return fmt.Errorf("the phone was never sent the prompt before the restart")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	stopping := time.Now()
	if err := r.stopDaemon(syscall.SIGTERM, 10*time.Second); err != nil {
		return err
	}
	stopped := time.Now()
	r.note("daemon_stop_s", round2(stopped.Sub(stopping).Seconds()), "the daemon stopped %.2f s after SIGTERM", stopped.Sub(stopping).Seconds())
	r.check(processAlive(r.childPID) && !r.supExited(), "with the daemon down, the child (alive: %v) or the supervisor (exited: %v) went away", processAlive(r.childPID), r.supExited())
	if err := r.startDaemon(); err != nil {
		return fmt.Errorf("restart the daemon: %w", err)
	}
	restarted := time.Now()
	// Pending again means answerable again: the record is pending in the queue, and the
	// supervisor has reported to the new daemon and holds its answer stream open.
	p2, err := r.waitPrompt("the prompt to be pending again after the restart, its supervisor connected", waitLong,
		func(*wire.Prompt) bool { return r.tap.backSince(stopped) })
	if err != nil {
		return err
	}
	again := time.Since(restarted)
	same := "the same record"
	if p2.ID != p1.ID {
		same = "a new record " + p2.ID
	}
	r.note("pending_again_s", round2(again.Seconds()), "pending again, its supervisor reconnected, %.2f s after the daemon's restart (limit %.0f s), as %s", again.Seconds(), restartLimit.Seconds(), same)
	r.check(again <= restartLimit, "the prompt was pending again %.2f s after the restart, more than %.0f s", again.Seconds(), restartLimit.Seconds())
	r.checkYesNo(p2, "Continue with the migration?")
	alive := processAlive(r.childPID)
	r.note("child_alive", alive, "the child was still alive after the restart: %v", alive)
	r.check(alive, "the child died while the daemon restarted")
	if r.bot != nil {
		// A person answers what the phone shows: wait until it was told the prompt still
		// waits (on a busy machine the answer could otherwise come first).
		for deadline := time.Now().Add(waitLong); phoneToldAgain(r).IsZero(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				break // said by the scenario's check
			}
		}
	}
	if err := r.deliverTimed("answer_to_read_ms", p2, wire.Answer{Choice: yes}, yes+"\r"); err != nil {
		return fmt.Errorf("the answer after the restart: %w", err)
	}
	records := 1
	if p2.ID != p1.ID {
		records = 2
	}
	return r.finishDelivered(records, p2)
}

func qaChildCrash(r *rig) error {
	p, err := r.waitPrompt("the prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	yes, _ := r.checkYesNo(p, "Apply the patch?")
	r.recorded("prompt", p, "the prompt", promptPatch)
	if err := syscall.Kill(r.childPID, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill the child: %w", err)
	}
	killed := time.Now()
	st, err := r.waitSupervisorExit(5 * time.Second)
	if err != nil {
		return err
	}
	r.note("supervisor_exit", st.String(), "the supervisor ended %.2f s after its child was killed: %s", time.Since(killed).Seconds(), st)
	r.check(!st.Success(), "the supervisor exited with success after its child was killed; want the child's failure passed on")
	if err := r.waitSessionGone(); err != nil {
		return err
	}
	r.note("session_ended_s", round2(time.Since(killed).Seconds()), "the session left the queue %.2f s after the kill", time.Since(killed).Seconds())
	w, err := r.c.WaitPrompt(r.ctx, p.ID, time.Second) // at once, unless still pending
	if err != nil {
		return fmt.Errorf("ask for the prompt's status: %w", err)
	}
	r.note("prompt_status", w.Status, "the prompt's status: %s", w.Status)
	r.check(w.Status == wire.PromptFailed, "the prompt is %q after its child died, want %q", w.Status, wire.PromptFailed)
	msg, reason, err := r.refused(p.ID, wire.Answer{Choice: yes}, http.StatusConflict)
	if err != nil {
		return fmt.Errorf("a late answer after the crash: %w", err)
	}
	r.note("late_answer", reason, "a late answer: 409 (%s) %q", reason, msg)
	resp, err := http.Get("http://" + r.addr + "/healthz")
	healthy := err == nil && resp.StatusCode == http.StatusOK
	if err == nil {
		resp.Body.Close()
	}
	r.note("daemon_healthy", healthy, "the daemon still answers: %v", healthy)
	r.check(healthy, "the daemon does not answer after the crash: %v", err)
	got, _ := r.readSoFar()
	r.check(got == "", "the child read %q, want nothing", got)
	ids := r.promptIDs()
	r.check(len(ids) == 1, "the session had %d prompt records (%s), want 1", len(ids), strings.Join(ids, ", "))
	delivered, refused := r.auditCounts("audit", p.ID)
	r.check(delivered == 0 && refused == 1, "the audit log shows %d deliveries and %d refusals for the late answer, want 0 and 1", delivered, refused)
	return nil
}

func qaFlood(r *rig) error {
	if _, err := r.waitEvent("waiting", 5*time.Second); err != nil {
		return err
	}
	if err := r.poll("the supervisor to report its start", 5*time.Second, func() (bool, error) {
		return r.tap.count(wire.PTYStart) > 0, nil
	}); err != nil {
		return err
	}
	pid := r.sup.Process.Pid
	cpu0, err := processCPU(pid)
	if err != nil {
		return err
	}
	mem0, err := processMemory(pid)
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	sampled := make(chan memory, 1)
	go func() { // the largest resident sizes seen during the flood
		top := mem0
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				sampled <- top
				return
			case <-t.C:
				if m, err := processMemory(pid); err == nil {
					top.rss, top.anon, top.file = max(top.rss, m.rss), max(top.anon, m.anon), max(top.file, m.file)
				}
			}
		}
	}()
	if err := syscall.Kill(r.childPID, syscall.SIGUSR1); err != nil {
		close(stop)
		return fmt.Errorf("start the flood: %w", err)
	}
	p, err := r.waitPrompt("the prompt after the flood", 60*time.Second, newPrompt())
	close(stop)
	top := <-sampled
	if err != nil {
		return err
	}
	cpu1, err := processCPU(pid)
	if err != nil {
		return err
	}
	began, _ := r.eventAt("go")
	flooded, _ := r.eventAt("flooded")
	r.note("flood_s", round2(flooded.Sub(began).Seconds()), "%d lines went through in %.2f s", floodLines, flooded.Sub(began).Seconds())
	cpu := cpu1 - cpu0
	r.note("cpu_s", round2(cpu.Seconds()), "the supervisor used %.2f s of CPU for the flood and the prompt (limit %.1f s)", cpu.Seconds(), floodCPU.Seconds())
	r.check(cpu <= floodCPU, "the supervisor used %.2f s of CPU, more than %.1f s", cpu.Seconds(), floodCPU.Seconds())
	growth := top.rss - mem0.rss
	r.note("rss_growth_kb", growth>>10, "its resident memory grew by at most %d KB during the flood (limit %d KB): %d KB of heap and stacks, %d KB of its program paged in",
		growth>>10, floodRSS>>10, (top.anon-mem0.anon)>>10, (top.file-mem0.file)>>10)
	r.check(growth <= floodRSS, "the supervisor's memory grew by %d KB, more than %d KB", growth>>10, floodRSS>>10)
	yes, _ := r.checkYesNo(p, "Continue? (y/n)")
	r.recorded("prompt", p, "the prompt after the flood", promptFlood)
	if err := r.deliverTimed("answer_to_read_ms", p, wire.Answer{Choice: yes}, yes+"\r"); err != nil {
		return err
	}
	return r.finish(1)
}

func qaEchoLoop(r *rig) error {
	p1, err := r.waitPrompt("the first prompt's record", waitLong, newPrompt())
	if err != nil {
		return err
	}
	r.notePrompt("first", p1, "the first prompt")
	yes, no := r.checkYesNo(p1, "Proceed? (y/n)")
	r.timely("record_after_s", p1, promptEcho, "wrote the prompt", r.detectLimit())
	// The child's terminal is cooked: the supervisor writes "y\r", the child reads "y\n",
	// and the terminal echoes "y\r\n" back into the output the supervisor classifies.
	if err := r.deliverTimed("answer_to_read_ms", p1, wire.Answer{Choice: yes}, yes+"\n"); err != nil {
		return err
	}
	read, readAt := r.readSoFar()
	window := r.settle + time.Second
	var spurious []string
	err = r.poll("the echo window to pass", window+waitLong, func() (bool, error) {
		it, err := r.item()
		if err != nil {
			return false, err
		}
		if it != nil && it.Prompt != nil && it.Prompt.ID != p1.ID && !contains(spurious, it.Prompt.ID) {
			spurious = append(spurious, it.Prompt.ID+" "+strconv.Quote(it.Prompt.Question))
		}
		return time.Since(readAt) >= window, nil
	})
	if err != nil {
		return err
	}
	for _, id := range r.promptIDs() {
		if id != p1.ID && !slices.ContainsFunc(spurious, func(s string) bool { return strings.HasPrefix(s, id+" ") }) {
			spurious = append(spurious, id)
		}
	}
	r.note("spurious_records", len(spurious), "%d prompt record(s) from the echo of %q in the %.1f s after the child read it", len(spurious), read, window.Seconds())
	r.check(len(spurious) == 0, "the echo of the answer was taken for a new prompt: %s", strings.Join(spurious, "; "))
	if _, err := r.waitEvent("waiting", 5*time.Second); err != nil {
		return err
	}
	if err := syscall.Kill(r.childPID, syscall.SIGUSR1); err != nil {
		return fmt.Errorf("ask the child for its second prompt: %w", err)
	}
	p2, err := r.waitPrompt("the genuine later prompt's record", waitLong, func(p *wire.Prompt) bool {
		return p.ID != p1.ID && strings.Contains(p.Question, "Save changes?")
	})
	if err != nil {
		return err
	}
	r.checkYesNo(p2, "Save changes? (y/n)")
	r.recorded("later", p2, "the later prompt", promptEchoLater)
	if _, err := r.deliver(p2, wire.Answer{Choice: no}, no+"\n"); err != nil {
		return err
	}
	return r.finish(2)
}
