package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/telegram"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/hooks"
)

// telegram checks the Telegram relay when config.toml has [telegram]: the token file is
// the owner's alone, Telegram takes the token (getMe), and no other program takes the
// bot's updates — the running daemon's relay says so, else a getUpdates of our own that
// confirms nothing.
func (d *doctor) telegram(ctx context.Context) []finding {
	cfg, err := loadConfig(d.getenv)
	if err != nil || cfg.Telegram == nil {
		return nil
	}
	tc := cfg.Telegram
	token, source, err := telegramToken(tc, d.getenv)
	if err != nil {
		f := finding{level: bad, what: "Telegram relay: " + err.Error()}
		if errors.Is(err, errTokenExposed) {
			f.fix = "chmod 600 " + hooks.ShellWord(source)
		} else {
			f.fix = "trailboss telegram setup"
		}
		return []finding{f}
	}
	var out []finding
	if source == "$"+envTelegramToken {
		out = append(out, finding{level: note, what: "Telegram bot token from $" + envTelegramToken + " (it overrides token_file)"})
	} else {
		out = append(out, finding{level: good, what: "Telegram bot token in " + source + ", readable by you alone"})
	}
	bot := telegram.NewBot(tc.APIURL, token)
	callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	me, err := bot.GetMe(callCtx)
	cancel()
	switch {
	case telegram.Unauthorized(err):
		return append(out, finding{level: bad, what: "Telegram refuses the bot token in " + source,
			fix: "copy the token again from @BotFather (/token) into " + source + ", then trailboss telegram setup"})
	case err != nil:
		return append(out, finding{level: bad, what: "cannot reach the Telegram Bot API: " + err.Error(),
			detail: []string{"prompts are not sent to your phone until it answers; the relay keeps trying"}})
	}
	out = append(out, finding{level: good, what: fmt.Sprintf("Telegram bot @%s answers; prompts go to chat %d, answered by %s",
		me.Username, tc.ChatID, plural(len(tc.AllowedUsers), "allowed user"))})
	return append(out, d.telegramPoller(ctx, bot))
}

// telegramPoller says whether the relay gets the bot's updates: the running daemon's relay
// reports its state; with no daemon up, a getUpdates of our own (no offset: it confirms
// nothing) meets a 409 when another program polls.
func (d *doctor) telegramPoller(ctx context.Context, bot *telegram.Bot) finding {
	conflictFix := "stop the other program that uses this bot's token (another Trail Boss daemon, another bot), or delete its webhook"
	if c, err := client.New(d.place.Addr, d.place.StateDir, time.Second); err == nil {
		if chans, err := c.Channels(ctx); err == nil {
			for _, ch := range chans {
				if ch.Name != "telegram" {
					continue
				}
				switch ch.State {
				case wire.ChannelOK:
					return finding{level: good, what: fmt.Sprintf("the daemon's Telegram relay gets the bot's updates (%s shown now)", plural(ch.Shown, "prompt"))}
				case wire.ChannelConflict:
					return finding{level: bad, what: "another program takes this bot's updates (Telegram answers 409 Conflict) since " +
						ch.Since.Local().Format("15:04:05") + ": no tap or reply reaches Trail Boss", fix: conflictFix}
				case wire.ChannelStarting:
					return finding{level: note, what: "the daemon's Telegram relay is starting"}
				}
				return finding{level: bad, what: "the daemon's Telegram relay: " + ch.State + ": " + ch.Detail}
			}
			return finding{level: bad, what: "the running daemon has no Telegram relay: it started before [telegram] was configured",
				fix: "trailboss stop && trailboss start"}
		}
	}
	callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := bot.GetUpdates(callCtx, 0, 0, 1)
	switch {
	case telegram.Conflict(err):
		return finding{level: bad, what: "another program takes this bot's updates (Telegram answers 409 Conflict), and it is not this daemon",
			fix: conflictFix}
	case err != nil:
		return finding{level: bad, what: "Telegram did not give the bot's updates: " + err.Error()}
	}
	return finding{level: good, what: "no other program takes this bot's updates"}
}

// plural returns "1 prompt", "2 prompts".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
