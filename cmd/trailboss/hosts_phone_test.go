package main

// The phone (the hub's Telegram relay, against the fake Bot API) answers another machine's
// prompts (issue 30), end to end with real parts (testscripts/sshtest): the message says
// which host asks; an answer goes to that host's daemon as `trailboss reply` does, which
// applies its own delivery rules and checks, and whatever it refuses is told to the phone
// in its words, with nothing typed.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
)

// phoneWorld is a remote world whose hub runs the Telegram relay against a fake Bot API.
type phoneWorld struct {
	*remoteWorld
	bot *faketelegram.Server
}

// newPhoneWorld is newRemoteWorldConf with [telegram] in the hub's config.toml.
func newPhoneWorld(t *testing.T, remoteConfig string) *phoneWorld {
	t.Helper()
	bot, err := faketelegram.Start(scriptToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bot.Close)
	w := newRemoteWorldHub(t, remoteConfig, func(dir string) string {
		if err := os.WriteFile(filepath.Join(dir, "telegram-token"), []byte(scriptToken+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("[telegram]\nchat_id = %d\nallowed_users = [%d]\napi_url = %q\n\n", scriptChat, scriptOperator, bot.URL)
	})
	waitUntil(t, "the hub to connect to remote1", 30*time.Second, func() bool { return w.host(t).Connected })
	return &phoneWorld{remoteWorld: w, bot: bot}
}

// message waits for the bot's message whose text matches re and returns it.
func (w *phoneWorld) message(t *testing.T, re string) faketelegram.Message {
	t.Helper()
	rx := regexp.MustCompile(re)
	var found faketelegram.Message
	if err := w.bot.Wait(15*time.Second, func() bool {
		for _, m := range w.bot.Messages() {
			if m.ReplyTo == 0 && rx.MatchString(m.Text) {
				found = m
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no message in the chat matches %q: %v; the chat: %+v", re, err, w.bot.Messages())
	}
	return found
}

// key returns the callback data of msg's button for choice.
func key(t *testing.T, msg faketelegram.Message, choice string) string {
	t.Helper()
	for _, k := range msg.Keys() {
		if strings.HasSuffix(k, ":"+choice) {
			return k
		}
	}
	t.Fatalf("message %d has no button for %s: %q", msg.ID, choice, msg.Keys())
	return ""
}

// tap presses data under msg as the operator and returns what the bot answered the press.
func (w *phoneWorld) tap(t *testing.T, msg faketelegram.Message, data string) string {
	t.Helper()
	_, cb := w.bot.Tap(scriptOperator, scriptChat, msg.ID, data)
	var ack faketelegram.CallbackAnswer
	if err := w.bot.Wait(40*time.Second, func() bool {
		var ok bool
		ack, ok = w.bot.CallbackAnswer(cb)
		return ok
	}); err != nil {
		t.Fatalf("the bot did not answer the press of %s: %v", data, err)
	}
	return ack.Text
}

// say sends text as the operator, replying to message replyTo (0: to none), and returns
// the bot's reply to it.
func (w *phoneWorld) say(t *testing.T, text string, replyTo int64) string {
	t.Helper()
	_, mine := w.bot.Say(scriptOperator, scriptChat, text, replyTo)
	var reply faketelegram.Message
	if err := w.bot.Wait(40*time.Second, func() bool {
		for _, m := range w.bot.Messages() {
			if m.ReplyTo == mine {
				reply = m
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the bot did not reply to %q: %v", text, err)
	}
	return reply.Text
}

// transcript returns the remote agent's transcript.
func (w *phoneWorld) transcript(t *testing.T, session string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.h.Home, session+".jsonl"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// The tool's run, as the demo agent writes it once its permission dialog took Yes.
const ranTool = `"content":"ok","is_error":false`

// TestPhoneAllowsARemotePermission: a Bash permission asked in the remote user's tmux pane
// reaches the hub's chat as a message that names the host, with Allow and Deny; the
// operator's Allow goes to the remote daemon (delivery on there), which types it into the
// dialog: the agent runs the command. The message then says it was answered from Telegram;
// the hub's audit log names the Telegram user and the host it forwarded to, the remote's
// says it came through the bridge from the hub, claimed by telegram.
func TestPhoneAllowsARemotePermission(t *testing.T) {
	w := newPhoneWorld(t, "[delivery]\nenabled = true\n")
	w.startAgentScript(t, "remote-p1", "ask:touch from-the-phone|idle")
	msg := w.message(t, `touch from-the-phone`)
	if !strings.Contains(msg.Text, "on remote1") || !strings.Contains(msg.Text, "asks permission") {
		t.Fatalf("the remote prompt's message: %q, want it to say it asks permission, on remote1", msg.Text)
	}
	allow := key(t, msg, "allow")
	if !strings.HasPrefix(allow, "a:remote1/p") {
		t.Fatalf("the Allow button's data %q, want the prompt named remote1/p…", allow)
	}
	if strings.Contains(w.transcript(t, "remote-p1"), ranTool) {
		t.Fatal("the remote agent ran the command before anyone answered")
	}

	if ack := w.tap(t, msg, allow); !strings.HasPrefix(ack, "Sent: Allow") {
		t.Fatalf("the phone's Allow of the remote prompt: %q, want Sent: Allow", ack)
	}
	waitUntil(t, "the remote agent to run the command", 10*time.Second, func() bool {
		return strings.Contains(w.transcript(t, "remote-p1"), ranTool)
	})
	if err := w.bot.Wait(10*time.Second, func() bool {
		m, _ := w.bot.Message(msg.ID)
		return strings.Contains(m.Text, "Answered from Telegram") && len(m.Keys()) == 0
	}); err != nil {
		m, _ := w.bot.Message(msg.ID)
		t.Fatalf("the answered remote prompt's message: %q %q, want it answered from Telegram, no buttons", m.Text, m.Keys())
	}

	hubLog, err := w.client.Deliveries(context.Background(), 10)
	if err != nil || len(hubLog) != 1 {
		t.Fatalf("the hub's audit log: %+v %v, want one entry", hubLog, err)
	}
	d := hubLog[0]
	if d.Channel != "telegram" || !strings.HasPrefix(d.Actor, fmt.Sprintf("telegram user %d", scriptOperator)) ||
		!strings.HasPrefix(d.Via, "forwarded to remote1") || !strings.HasPrefix(d.PromptID, "remote1/p") ||
		(d.Result != wire.OutcomeDelivered && d.Result != wire.OutcomeConfirmed) {
		t.Fatalf("the hub's audit log: %+v, want telegram user %d, forwarded to remote1, delivered", d, scriptOperator)
	}
	remoteID := strings.TrimPrefix(d.PromptID, "remote1/")
	var there *wire.Delivery
	for _, e := range w.remoteLog(t) {
		if e.PromptID == remoteID {
			there = &e
		}
	}
	if there == nil || there.Result != d.Result || there.Claimed != "telegram" || !strings.Contains(there.Actor, "via bridge from hub ") {
		t.Fatalf("the remote audit log of %s: %+v, want %s, claimed telegram, via bridge from the hub", remoteID, there, d.Result)
	}
}

// TestPhoneIsToldWhyARemoteHostRefuses: delivery off on the remote host, the phone's Allow
// is refused there, and the press is answered with the host's reason (delivery off), not
// "Sent"; nothing is typed: the dialog stays, the command does not run, the prompt still
// waits on the hub and its message keeps its buttons. Then the host unreachable (its sshd
// gone): an answer is refused on the hub saying since when, and nothing is sent there.
func TestPhoneIsToldWhyARemoteHostRefuses(t *testing.T) {
	w := newPhoneWorld(t, "")
	pane := w.startAgentScript(t, "remote-p2", "ask:touch never-run|idle")
	msg := w.message(t, `touch never-run`)

	ack := w.tap(t, msg, key(t, msg, "allow"))
	if !strings.HasPrefix(ack, "On remote1: delivery is off, so nothing was typed") || strings.Contains(ack, "Sent") {
		t.Fatalf("the phone's Allow with delivery off on remote1 was answered %q, want remote1's reason, delivery is off", ack)
	}
	it, ok := findItem(w.queue(t), "remote-p2")
	if !ok || it.Prompt == nil || !strings.Contains(key(t, msg, "allow"), ":"+it.Prompt.ID+":") {
		t.Fatalf("after the refusal the hub shows %+v (%v), want the same prompt still waiting", it, ok)
	}
	if m, _ := w.bot.Message(msg.ID); len(m.Keys()) == 0 {
		t.Fatalf("the refused prompt's message lost its buttons: %q", m.Text)
	}
	refusedThere := false
	for _, d := range w.remoteLog(t) {
		refusedThere = refusedThere || "remote1/"+d.PromptID == it.Prompt.ID && d.Result == "refused" && d.Reason == wire.RefusedOff
	}
	if !refusedThere {
		t.Fatalf("the remote audit log: %+v, want %s refused there, delivery off", w.remoteLog(t), it.Prompt.ID)
	}

	// The host unreachable: its prompt stays (stale); an answer is refused here, saying so.
	remoteEntries := len(w.remoteLog(t))
	w.h.StopSSHD(t)
	waitUntil(t, "remote1 to be unreachable", 5*time.Second, func() bool { return !w.host(t).Connected })
	ack = w.tap(t, msg, key(t, msg, "deny"))
	if !strings.HasPrefix(ack, "The host remote1 is unreachable since ") || !strings.Contains(ack, "nothing was sent there") {
		t.Fatalf("the phone's Deny with remote1 unreachable was answered %q, want remote1 is unreachable since …", ack)
	}
	if m, _ := w.bot.Message(msg.ID); len(m.Keys()) == 0 || strings.Contains(m.Text, "No longer waiting") {
		t.Fatalf("the unreachable host's prompt's message was closed: %q %q", m.Text, m.Keys())
	}
	hubLog, _ := w.client.Deliveries(context.Background(), 10)
	if len(hubLog) != 2 || hubLog[0].Reason != wire.RefusedUnreachable || hubLog[1].Reason != wire.RefusedOff {
		t.Fatalf("the hub's audit log: %+v, want the refusal there (delivery off), then here (unreachable)", hubLog)
	}

	// Nothing was typed: the dialog is there, the command never ran, no answer reached the
	// remote daemon while it was unreachable.
	w.h.RestartSSHD(t)
	waitUntil(t, "remote1 back", 10*time.Second, func() bool { return w.host(t).Connected })
	if got := len(w.remoteLog(t)); got != remoteEntries {
		t.Fatalf("the remote audit log has %d entries, had %d before the host was unreachable", got, remoteEntries)
	}
	if tr := w.transcript(t, "remote-p2"); strings.Contains(tr, `"tool_use"`) || strings.Contains(tr, ranTool) {
		t.Fatalf("the remote agent took an answer:\n%s", tr)
	}
	if screen := w.asUser(t, "tmux", "-S", w.tmuxSock, "capture-pane", "-p", "-t", pane); !strings.Contains(screen, "Do you want to proceed?") {
		t.Fatalf("the remote dialog is gone:\n%s", screen)
	}
}

// TestPhoneTextForAChangedRemotePromptIsRefused: the remote agent asks "Which port?", which
// the person at that machine answers there; it then asks "Which host?". A reply on the phone
// to the first prompt's message is refused by the remote daemon (that prompt was answered)
// and the phone is told so; a text replying to no message, written just after the second
// prompt came, is held (it may have been meant for the first); nothing of either is typed.
// A reply to the second prompt's message reaches the agent.
func TestPhoneTextForAChangedRemotePromptIsRefused(t *testing.T) {
	w := newPhoneWorld(t, "[delivery]\nenabled = true\n")
	pane := w.startAgentScript(t, "remote-p3", "stop:Which port?|stop:Which host?|idle")
	first := w.message(t, `Which port\?`)
	if !strings.Contains(first.Text, "on remote1") || !strings.Contains(first.Text, "Reply to this message") {
		t.Fatalf("the remote prompt's message: %q, want it on remote1, taking a reply", first.Text)
	}
	w.answerInPane(t, pane, "8080")
	second := w.message(t, `Which host\?`)
	if err := w.bot.Wait(10*time.Second, func() bool {
		m, _ := w.bot.Message(first.ID)
		return strings.Contains(m.Text, "No longer waiting")
	}); err != nil {
		m, _ := w.bot.Message(first.ID)
		t.Fatalf("the first prompt's message once answered in the pane: %q, want it closed", m.Text)
	}

	reply := w.say(t, "8081", first.ID)
	if !strings.HasPrefix(reply, "On remote1: ") || strings.Contains(reply, "Sent") {
		t.Fatalf("a reply to the answered remote prompt was answered %q, want remote1's refusal", reply)
	}
	held := w.say(t, "db1", 0)
	if !strings.Contains(held, "nothing was typed") || strings.Contains(held, "Sent") {
		t.Fatalf("a text replying to nothing, just after the remote prompt changed, was answered %q, want it held", held)
	}
	if got := w.userLines(t, "remote-p3"); !slices.Equal(got, []string{"8080"}) {
		t.Fatalf("the remote agent read %q, want only 8080 (typed in its pane)", got)
	}

	if sent := w.say(t, "db2", second.ID); !strings.HasPrefix(sent, "Sent: your reply") {
		t.Fatalf("a reply to the remote prompt's message was answered %q, want Sent", sent)
	}
	waitUntil(t, "the remote agent to read the reply", 10*time.Second, func() bool {
		return slices.Equal(w.userLines(t, "remote-p3"), []string{"8080", "db2"})
	})
}
