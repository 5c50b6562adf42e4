package main

// The Telegram relay's side of the command line: [telegram] in config.toml, the token,
// `trailboss telegram setup` (pairing a phone), and the relay the daemon runs.

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/telegram"
	"github.com/trailboss/trailboss/hooks"
)

// envTelegramToken overrides the token file.
const envTelegramToken = "TRAILBOSS_TELEGRAM_TOKEN"

func checkTelegram(t *telegramConfig, path string) error {
	switch {
	case t.ChatID == 0 || len(t.AllowedUsers) == 0:
		return fmt.Errorf("%s: [telegram] needs chat_id and allowed_users (the relay lets in nobody else); "+
			"pair your phone with: trailboss telegram setup", path)
	case t.APIURL != "":
		if err := checkAPIURL(t.APIURL); err != nil {
			return fmt.Errorf("%s: [telegram] %w", path, err)
		}
	}
	for _, u := range t.AllowedUsers {
		if u <= 0 {
			return fmt.Errorf("%s: [telegram] allowed_users holds %d, which is no Telegram user id", path, u)
		}
	}
	return nil
}

// checkAPIURL returns an error unless raw is an https address, or an http one on this
// machine (a test's fake Bot API): the bot token travels in every request's path.
func checkAPIURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("api_url %q is not an https address such as %q", raw, telegram.DefaultAPIURL)
	}
	if u.Scheme == "http" && !httpapi.IsLoopbackHost(u.Hostname()) {
		return fmt.Errorf("api_url %q is plain http to another machine, which would send the bot token unencrypted; "+
			"use https (such as %q), or http only to 127.0.0.1", raw, telegram.DefaultAPIURL)
	}
	return nil
}

// telegramTokenPath returns where the bot token is kept: token_file ("~" is the home
// folder), else telegram-token beside config.toml.
func telegramTokenPath(t *telegramConfig, getenv func(string) string) string {
	if t != nil && t.TokenFile != "" {
		p := t.TokenFile
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			p = filepath.Join(homeDir(getenv), rest)
		}
		return p
	}
	return filepath.Join(filepath.Dir(configPath(getenv)), "telegram-token")
}

// errTokenExposed: the token file can be read by other users.
var errTokenExposed = errors.New("the Telegram bot token file is readable by other users")

// telegramToken returns the bot token and where it came from: TRAILBOSS_TELEGRAM_TOKEN,
// else the token file, which must be readable by its owner only (mode 0600).
func telegramToken(t *telegramConfig, getenv func(string) string) (token, source string, err error) {
	if v := strings.TrimSpace(getenv(envTelegramToken)); v != "" {
		return v, "$" + envTelegramToken, nil
	}
	path := telegramTokenPath(t, getenv)
	fi, err := os.Stat(path)
	if err != nil {
		return "", path, fmt.Errorf("telegram: no bot token: %w; put the token from @BotFather there "+
			"(trailboss telegram setup asks for it) or set %s", err, envTelegramToken)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", path, fmt.Errorf("%w: %s has mode %v; make it yours alone: chmod 600 %s",
			errTokenExposed, path, fi.Mode().Perm(), hooks.ShellWord(path))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", path, fmt.Errorf("telegram: read the bot token: %w", err)
	}
	token = strings.TrimSpace(string(b))
	if token == "" {
		return "", path, fmt.Errorf("telegram: %s is empty; put the token from @BotFather in it", path)
	}
	return token, path, nil
}

// telegramRelay returns the relay that cfg configures, as a channel of the daemon, or nil
// when [telegram] is absent.
func telegramRelay(cfg fileConfig, getenv func(string) string) (Channel, error) {
	if cfg.Telegram == nil {
		return nil, nil
	}
	token, _, err := telegramToken(cfg.Telegram, getenv)
	if err != nil {
		return nil, err
	}
	return relayChannel{telegram.New(telegram.Config{Token: token, ChatID: cfg.Telegram.ChatID,
		AllowedUsers: cfg.Telegram.AllowedUsers, APIURL: cfg.Telegram.APIURL})}, nil
}

// relayChannel is the Telegram relay as a channel of the daemon: it hands the relay the
// daemon's engine, deliverer and store, which the relay sees only through the interfaces
// of telegram.Host.
type relayChannel struct{ *telegram.Relay }

func (c relayChannel) Run(ctx context.Context, h ChannelHost) error {
	th := telegram.Host{Queue: h.Engine, Deliver: h.Deliver, Store: h.Store, Tmux: h.Tmux, Log: h.Log, Now: h.Now}
	if h.Hosts != nil { // a nil *hosts.Set must stay a nil interface
		th.Hosts = h.Hosts
	}
	return c.Relay.Run(ctx, th)
}

func runTelegram(ctx context.Context, e *env, args []string) error {
	return runSubcommand(ctx, e, "telegram", args, []subcommand{{"setup", runTelegramSetup, false}})
}

// runTelegramSetup pairs a phone: it checks the bot token (asking for it when there is
// none), shows a code, waits for the operator to send it to the bot, and writes that chat
// and that user into config.toml.
func runTelegramSetup(ctx context.Context, e *env, args []string) error {
	// The command line, then the config's [telegram] with --api-url over it.
	fs := flag.NewFlagSet("telegram setup", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait for the code from your phone")
	apiURL := fs.String("api-url", "", "the Bot API's address (default: api_url in config.toml, else "+telegram.DefaultAPIURL+")")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	tc := telegramConfig{}
	if cfg.Telegram != nil {
		tc = *cfg.Telegram
	}
	if *apiURL != "" {
		if err := checkAPIURL(*apiURL); err != nil {
			return fmt.Errorf("%w: --api-url: %w", errUsage, err)
		}
		tc.APIURL = *apiURL
	}

	// The bot: its token (asked for when there is none), checked with getMe.
	token, source, err := telegramToken(&tc, e.getenv)
	if err != nil && !errors.Is(err, errTokenExposed) && e.getenv(envTelegramToken) == "" {
		if token, source, err = askToken(e, telegramTokenPath(&tc, e.getenv)); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	bot := telegram.NewBot(tc.APIURL, token)
	callCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	me, err := bot.GetMe(callCtx)
	cancel()
	switch {
	case telegram.Unauthorized(err):
		return fmt.Errorf("the Telegram Bot API refuses the bot token from %s: copy it again from @BotFather (/token) and run setup again", source)
	case err != nil:
		return fmt.Errorf("cannot reach the Telegram Bot API (%v); check the network and run setup again", err)
	}

	// The pairing: a code the person sends from their phone names the chat and the user.
	code, err := pairingCode()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Bot @%s answers (token from %s).\n\n", me.Username, source)
	fmt.Fprintf(e.stdout, "On your phone, open Telegram, find @%s, and send it this code:\n\n    %s\n\n", me.Username, code)
	fmt.Fprintf(e.stdout, "Waiting up to %v…\n", timeout.Round(time.Second))
	m, err := waitForCode(ctx, e, bot, code, *timeout)
	if err != nil {
		return err
	}
	tc.ChatID, tc.AllowedUsers = m.Chat.ID, []int64{m.From.ID}
	if tc.TokenFile == "" && source != "$"+envTelegramToken {
		tc.TokenFile = source
	}
	path := configPath(e.getenv)
	if err := writeTelegramConfig(path, tc); err != nil {
		return err
	}
	callCtx, cancel = context.WithTimeout(ctx, 5*time.Second)
	_, _ = bot.SendMessage(callCtx, m.Chat.ID, "Paired with Trail Boss. When one of your agents waits for you, "+
		"its question comes here: tap a button to answer, or reply to its message with text.", nil, m.MessageID)
	cancel()
	who := m.From.FirstName
	if m.From.Username != "" {
		who += " (@" + m.From.Username + ")"
	}
	fmt.Fprintf(e.stdout, "\nPaired with %s: chat %d, user %d, written to %s.\n", who, tc.ChatID, m.From.ID, path)
	fmt.Fprintln(e.stdout, "Only this user, in this chat, can answer prompts. Restart the daemon to switch the relay on:")
	fmt.Fprintln(e.stdout, "    trailboss stop && trailboss start")
	return nil
}

// waitForCode reads the bot's messages until one carries code, for up to timeout, and
// confirms what it read so that the daemon does not read it again.
func waitForCode(ctx context.Context, e *env, bot *telegram.Bot, code string, timeout time.Duration) (*telegram.Message, error) {
	deadline := time.Now().Add(timeout)
	var off int64
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("no code arrived within %v: nothing was changed; run trailboss telegram setup again", timeout.Round(time.Second))
		}
		ups, err := bot.GetUpdates(ctx, off, min(left, 20*time.Second).Truncate(time.Second), 100)
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("setup stopped: nothing was changed")
		case telegram.Conflict(err):
			return nil, fmt.Errorf("another program is reading this bot's messages (Telegram answered 409 Conflict), " +
				"likely the Trail Boss daemon with [telegram] configured: stop it (trailboss stop), run setup again, then start it")
		case err != nil:
			fmt.Fprintf(e.stderr, "trailboss: Telegram did not answer (%v); trying again\n", err)
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
			continue
		}
		for _, u := range ups {
			off = max(off, u.UpdateID+1)
			if m := u.Message; m != nil && m.From != nil && strings.Contains(m.Text, code) {
				callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
				_, _ = bot.GetUpdates(callCtx, off, 0, 1)
				cancel()
				return m, nil
			}
		}
	}
}

// askToken reads a bot token from standard input and keeps it at path, mode 0600.
func askToken(e *env, path string) (token, source string, err error) {
	fmt.Fprintf(e.stdout, "No bot token yet. Make a bot: in Telegram, talk to @BotFather, send /newbot, and\n"+
		"paste the token it gives you here (it is kept in %s, readable by you alone):\n> ", path)
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	token = strings.TrimSpace(line)
	if token == "" {
		if err == nil {
			err = errors.New("empty line")
		}
		return "", path, fmt.Errorf("no token was given (%v): make a bot with @BotFather, then run trailboss telegram setup again", err)
	}
	if !strings.Contains(token, ":") {
		return "", path, fmt.Errorf("%q does not look like a bot token (digits, a colon, then letters): copy it again from @BotFather", clipRunes(token, 12))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", path, err
	}
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", path, fmt.Errorf("keep the token: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil { // an existing file keeps its mode through WriteFile
		return "", path, err
	}
	return token, path, nil
}

// pairingCode is six random digits.
func pairingCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// writeTelegramConfig writes t as the [telegram] table of the config file at path,
// replacing the one there and keeping everything else.
func writeTelegramConfig(path string, t telegramConfig) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var kept []string
	in := false
	for _, l := range strings.Split(string(old), "\n") {
		if s := strings.TrimSpace(l); strings.HasPrefix(s, "[") {
			in = s == "[telegram]" || strings.HasPrefix(s, "[telegram]")
		}
		if !in {
			kept = append(kept, l)
		}
	}
	var b strings.Builder
	if text := strings.TrimRight(strings.Join(kept, "\n"), "\n"); text != "" {
		b.WriteString(text + "\n\n")
	}
	b.WriteString("# The Telegram relay (trailboss telegram setup). Only these users, in this chat, can answer.\n[telegram]\n")
	if t.TokenFile != "" {
		fmt.Fprintf(&b, "token_file = %s\n", strconv.Quote(t.TokenFile))
	}
	fmt.Fprintf(&b, "chat_id = %d\n", t.ChatID)
	users := make([]string, len(t.AllowedUsers))
	for i, u := range t.AllowedUsers {
		users[i] = strconv.FormatInt(u, 10)
	}
	fmt.Fprintf(&b, "allowed_users = [%s]\n", strings.Join(users, ", "))
	if t.APIURL != "" {
		fmt.Fprintf(&b, "api_url = %s\n", strconv.Quote(t.APIURL))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.WriteFile(tmp, []byte(b.String()), mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// telegramHelp is what `trailboss telegram --help` says around the flags.
var telegramHelp = commandHelp{
	Args: "setup",
	About: "The Telegram relay (off until configured): a message in one chat for each prompt that\n" +
		"waits, with buttons for its answers; a tap or a reply answers it. Only the users of\n" +
		"allowed_users, in the chat of chat_id, are let in. `telegram setup` pairs your phone.",
	Example: "trailboss telegram setup",
}

// telegramSetupHelp is what `trailboss telegram setup --help` says around the flags.
var telegramSetupHelp = commandHelp{
	Args: "[--timeout 5m] [--api-url URL]",
	About: "Pairs your phone: reads the bot token (asks for it and keeps it, mode 0600, when there is\n" +
		"none; TRAILBOSS_TELEGRAM_TOKEN overrides), checks it with Telegram, shows a code to\n" +
		"send to the bot from your phone, and writes that chat and that user into config.toml.\n" +
		"Run it while the daemon's relay is off; restart the daemon afterwards.",
	Example: "trailboss telegram setup",
}
