package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
)

// The fake Telegram Bot API in the scripts: `fakebot start` runs one for the script and
// configures the relay to use it; the other subcommands are the phone's side and the
// checks of what the bot did.

func init() { scriptCommands["fakebot"] = cmdFakeBot }

// The chat and the users of the scripts' relay.
const (
	scriptChat     = 5550001
	scriptOperator = 4242
	scriptToken    = "7000001:script-token"
)

type fakeBotState struct {
	bot      *faketelegram.Server
	msg      int64  // the message the last `fakebot message` found
	update   int64  // the last tap's update
	callback string // the last tap's callback query
}

var (
	fakeBotsMu sync.Mutex
	fakeBots   = map[*testscript.TestScript]*fakeBotState{}
)

func fakeBotOf(ts *testscript.TestScript) *fakeBotState {
	fakeBotsMu.Lock()
	defer fakeBotsMu.Unlock()
	s := fakeBots[ts]
	if s == nil {
		ts.Fatalf("fakebot start first")
	}
	return s
}

// fakebot start [--no-config] | message REGEXP | buttons KEY… | tap USER KEY | acked REGEXP |
// redeliver | edited REGEXP | say USER TEXT [reply] | replied REGEXP | never REGEXP | sends N |
// relay STATE | shown N | outage on|off | conflict on|off
func cmdFakeBot(ts *testscript.TestScript, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: fakebot start|message|buttons|tap|acked|redeliver|edited|say|replied|never|sends|relay|shown|outage|conflict …")
	}
	if args[0] == "start" {
		bot, err := faketelegram.Start(scriptToken)
		ts.Check(err)
		fakeBotsMu.Lock()
		fakeBots[ts] = &fakeBotState{bot: bot}
		fakeBotsMu.Unlock()
		ts.Defer(func() {
			bot.Close()
			fakeBotsMu.Lock()
			delete(fakeBots, ts)
			fakeBotsMu.Unlock()
		})
		ts.Setenv("TELEGRAM_API", bot.URL)
		if len(args) > 1 && args[1] == "--no-config" {
			return
		}
		dir := filepath.Join(ts.Getenv("XDG_CONFIG_HOME"), "trailboss")
		ts.Check(os.MkdirAll(dir, 0o700))
		tokenFile := filepath.Join(dir, "telegram-token")
		ts.Check(os.WriteFile(tokenFile, []byte(scriptToken+"\n"), 0o600))
		conf := filepath.Join(dir, "config.toml")
		old, _ := os.ReadFile(conf)
		ts.Check(os.WriteFile(conf, fmt.Appendf(old, "\n[telegram]\nchat_id = %d\nallowed_users = [%d]\napi_url = %q\n",
			scriptChat, scriptOperator, bot.URL), 0o600))
		return
	}
	s := fakeBotOf(ts)
	bot := s.bot
	wait := func(what string, timeout time.Duration, cond func() bool) {
		if err := bot.Wait(timeout, cond); err != nil {
			var msgs []string
			for _, m := range bot.Messages() {
				msgs = append(msgs, fmt.Sprintf("#%d %q buttons %q", m.ID, m.Text, m.Keys()))
			}
			ts.Fatalf("gave up after %v waiting for %s; the bot's messages:\n%s", timeout, what, strings.Join(msgs, "\n"))
		}
	}
	current := func() faketelegram.Message {
		m, ok := bot.Message(s.msg)
		if !ok {
			ts.Fatalf("no message found yet: fakebot message REGEXP first")
		}
		return m
	}
	switch args[0] {
	case "message": // waits for a message of the bot matching REGEXP sent after the current one
		re := regexp.MustCompile(args[1])
		after := s.msg
		wait("a message matching "+args[1], 10*time.Second, func() bool {
			for _, m := range bot.Messages() {
				if m.ID > after && m.ReplyTo == 0 && re.MatchString(m.Text) {
					s.msg = m.ID
					return true
				}
			}
			return false
		})
	case "buttons": // the current message's buttons end in these keys, in order
		var got []string
		for _, k := range current().Keys() {
			got = append(got, k[strings.LastIndex(k, ":")+1:])
		}
		if strings.Join(got, " ") != strings.Join(args[1:], " ") {
			ts.Fatalf("the message has buttons %q, want %q", got, args[1:])
		}
	case "tap": // USER KEY: USER taps the current message's button for KEY
		user, err := strconv.ParseInt(args[1], 10, 64)
		ts.Check(err)
		data := ""
		for _, k := range current().Keys() {
			if strings.HasSuffix(k, ":"+args[2]) {
				data = k
			}
		}
		if data == "" {
			ts.Fatalf("the message has no button %q: %q", args[2], current().Keys())
		}
		s.update, s.callback = bot.Tap(user, scriptChat, s.msg, data)
	case "acked": // the last tap was answered with a text matching REGEXP
		re := regexp.MustCompile(args[1])
		var got string
		wait("the tap to be answered", 10*time.Second, func() bool {
			a, ok := bot.CallbackAnswer(s.callback)
			got = a.Text
			return ok
		})
		if !re.MatchString(got) {
			ts.Fatalf("the tap was answered %q, want a match for %s", got, args[1])
		}
		fmt.Fprintf(ts.Stdout(), "%s\n", got)
	case "redeliver": // the last tap's update again, as getUpdates may; returns once the relay
		// has fetched it (the relay answers it, or drops it by its offset, at once)
		polls := len(bot.Calls("getUpdates"))
		if !bot.Redeliver(s.update) {
			ts.Fatalf("no tap to redeliver")
		}
		wait("the relay to fetch the redelivered tap", 10*time.Second, func() bool {
			return len(bot.Calls("getUpdates")) > polls
		})
	case "edited": // the current message was edited to match REGEXP and has no buttons
		re := regexp.MustCompile(args[1])
		wait("the message to be edited to match "+args[1], 10*time.Second, func() bool {
			m := current()
			return m.Edits > 0 && len(m.Buttons) == 0 && re.MatchString(m.Text)
		})
		fmt.Fprintf(ts.Stdout(), "%s\n", current().Text)
	case "say": // USER TEXT [reply]: USER sends TEXT, as a reply to the current message with "reply"
		user, err := strconv.ParseInt(args[1], 10, 64)
		ts.Check(err)
		var to int64
		if len(args) > 3 && args[3] == "reply" {
			to = s.msg
		}
		bot.Say(user, scriptChat, args[2], to)
	case "replied": // the bot replied to a message with a text matching REGEXP
		re := regexp.MustCompile(args[1])
		wait("a reply matching "+args[1], 10*time.Second, func() bool {
			for _, m := range bot.Messages() {
				if m.ReplyTo != 0 && re.MatchString(m.Text) {
					return true
				}
			}
			return false
		})
	case "never": // REGEXP: no message of the bot matched REGEXP, as sent or as any edit made it
		re := regexp.MustCompile(args[1])
		for _, m := range bot.Messages() {
			for _, text := range append(m.History, m.Text) {
				if re.MatchString(text) {
					ts.Fatalf("the bot's message #%d said %q, which matches %s", m.ID, text, args[1])
				}
			}
		}
	case "sends": // N: the bot has called sendMessage N times
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		if got := len(bot.Calls("sendMessage")); got != n {
			ts.Fatalf("%d sendMessage calls, want %d", got, n)
		}
	case "relay": // STATE: the daemon's relay reports STATE (GET /v1/channels)
		c := daemonClient(ts)
		var got string
		poll(ts, "the relay to be "+args[1], 10*time.Second, func() bool {
			chans, err := c.Channels(context.Background())
			if err != nil || len(chans) == 0 {
				return false
			}
			got = chans[0].State
			return got == args[1]
		})
	case "shown": // N: the daemon's relay has N prompts' messages open (it took them as its own)
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		c := daemonClient(ts)
		got := -1
		poll(ts, "the relay to have "+args[1]+" messages open", 10*time.Second, func() bool {
			chans, err := c.Channels(context.Background())
			if err != nil || len(chans) == 0 {
				return false
			}
			got = chans[0].Shown
			return got == n
		}, func() string { return fmt.Sprintf("it has %d", got) })
	case "outage":
		bot.SetOutage(args[1] == "on")
	case "conflict":
		bot.SetConflict(args[1] == "on")
	default:
		ts.Fatalf("fakebot: unknown subcommand %q", args[0])
	}
}
