package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/deliver"

	"github.com/pelletier/go-toml/v2"
)

// exampleAddr is the TCP address help and advice give as an example: the daemon listens on
// TCP only when told to (addr), and on its unix socket always.
const exampleAddr = "127.0.0.1:4000"

// fileConfig is $XDG_CONFIG_HOME/trailboss/config.toml. Flags and the environment override
// it; it overrides the defaults.
type fileConfig struct {
	Addr     string   `toml:"addr"`
	Cooldown duration `toml:"cooldown"`
	Sweep    duration `toml:"sweep"`
	Settle   duration `toml:"settle"`
	OnStuck  string   `toml:"on_stuck"` // run through sh for each newly stuck session
	// PromptTTL is how long a prompt takes answers from a channel (docs/delivery.md).
	PromptTTL duration `toml:"prompt_ttl"`
	Delivery  struct {
		// Enabled switches delivery on: answers from the popup, trailboss reply and
		// trailboss run's API are typed, and permission hooks may hold. Off by default;
		// a [telegram] table switches it on too.
		Enabled bool `toml:"enabled"`
		// HoldPermissions makes Claude Code's PermissionRequest hook wait for an answer
		// from a channel, so that the answer becomes the hook's decision.
		HoldPermissions bool `toml:"hold_permissions"`
		// MaxReplyLength caps a typed reply, in characters.
		MaxReplyLength int `toml:"max_reply_length"`
	} `toml:"delivery"`
	// Telegram switches the Telegram relay on (docs/delivery.md, "The Telegram relay"); nil when absent.
	Telegram *telegramConfig `toml:"telegram"`
	Keys     struct {
		Next  string `toml:"next"`
		Popup string `toml:"popup"`
		Skip  string `toml:"skip"`
	} `toml:"keys"`
}

// deliveryOn reports whether the operator switched delivery on: [delivery] enabled, or a
// remote channel configured ([telegram]).
func (c fileConfig) deliveryOn() bool { return c.Delivery.Enabled || c.Telegram != nil }

// deliveryOffMessage is what an answer is refused with while delivery is off.
func deliveryOffMessage(path string) string {
	return "delivery is off, so nothing was typed: Trail Boss types an answer only once you switch it on — " +
		"add enabled = true under [delivery] in " + path + ", then restart the daemon (trailboss stop && trailboss start)"
}

// duration is a TOML string such as "60s" or "2m".
type duration struct {
	time.Duration
	set bool
}

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration such as \"60s\" or \"2m\"", b)
	}
	d.Duration, d.set = v, true
	return nil
}

const knownSettings = "known: addr, cooldown, sweep, settle, on_stuck, prompt_ttl, [keys] next, popup, skip, " +
	"[delivery] enabled, hold_permissions, max_reply_length, and [telegram] token_file, chat_id, allowed_users, api_url"

// configPath returns where the config file is: $XDG_CONFIG_HOME/trailboss/config.toml, else
// ~/.config/trailboss/config.toml.
func configPath(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "trailboss", "config.toml")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "trailboss", "config.toml")
}

// loadConfig reads the config file; a missing file is an empty config. An error names the
// file, the line and what is wrong with the value.
// check returns an error naming the first setting of c that the daemon refuses, so that
// doctor and the daemon judge a config file alike.
func (c fileConfig) check(path string) error {
	switch {
	case c.Addr != "":
		if err := daemon.CheckLoopback(c.Addr); err != nil {
			return fmt.Errorf("%s: addr: %w", path, err)
		}
	}
	switch {
	case c.Cooldown.set && c.Cooldown.Duration < 0:
		return fmt.Errorf("%s: cooldown must not be negative", path)
	case c.Sweep.set && c.Sweep.Duration <= 0:
		return fmt.Errorf("%s: sweep must be longer than 0s", path)
	case c.Settle.set && c.Settle.Duration < 0:
		return fmt.Errorf("%s: settle must not be negative", path)
	case c.PromptTTL.set && (c.PromptTTL.Duration < 10*time.Second || c.PromptTTL.Duration > 55*time.Minute):
		// At most a little under the hour Claude Code gives the permission hook that holds.
		return fmt.Errorf("%s: prompt_ttl must be between 10s and 55m", path)
	case c.Delivery.MaxReplyLength < 0:
		return fmt.Errorf("%s: [delivery] max_reply_length must be between 1 and %d characters", path, deliver.MaxReplyLimit)
	case c.Delivery.MaxReplyLength > deliver.MaxReplyLimit:
		// tmux refuses a command over about 16 KB, and a reply is typed in one.
		return fmt.Errorf("%s: [delivery] max_reply_length = %d is more than tmux types in one go: set it to at most %d characters "+
			"(a longer answer is better typed in the pane)", path, c.Delivery.MaxReplyLength, deliver.MaxReplyLimit)
	case c.Delivery.HoldPermissions && !c.deliveryOn():
		return fmt.Errorf("%s: [delivery] hold_permissions = true needs delivery on: add enabled = true under [delivery]", path)
	}
	if c.Telegram != nil {
		return c.Telegram.check(path)
	}
	return nil
}

// holds reports whether a PermissionRequest hook may hold for an answer: holding is on, or
// a remote channel (Telegram) is configured, which turns it on (daemon.Config).
func (c fileConfig) holds() bool {
	return c.deliveryOn() && (c.Delivery.HoldPermissions || c.Telegram != nil)
}

// tomlTypeMismatch matches the TOML decoder's "cannot decode TOML integer into struct field
// main.fileConfig.Addr of type string", whose Go names mean nothing to a user.
var tomlTypeMismatch = regexp.MustCompile(`^cannot decode TOML (\w+) into `)

func loadConfig(getenv func(string) string) (fileConfig, error) {
	var c fileConfig
	path := configPath(getenv)
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	dec := toml.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var de *toml.DecodeError
		var strict *toml.StrictMissingError
		switch {
		case errors.As(err, &de):
			line, _ := de.Position()
			key := strings.Join(de.Key(), ".")
			msg := strings.TrimPrefix(de.Error(), "toml: ")
			if msg == "unknown field" {
				return c, fmt.Errorf("%s:%d: unknown setting %q (%s)", path, line, key, knownSettings)
			}
			if m := tomlTypeMismatch.FindStringSubmatch(msg); m != nil {
				// Say what the setting takes, not which Go field it could not fill.
				want := "text in quotes"
				switch key {
				case "delivery.hold_permissions", "delivery.enabled":
					want = "true or false"
				case "delivery.max_reply_length", "telegram.chat_id":
					want = "a whole number"
				case "telegram.allowed_users":
					want = "a list of whole numbers, such as [123456789]"
				}
				msg = "must be " + want + ", not " + article(strings.ToLower(m[1]))
			}
			if key != "" {
				msg = key + ": " + msg
			}
			return c, fmt.Errorf("%s:%d: %s", path, line, msg)
		case errors.As(err, &strict):
			first := strict.Errors[0]
			line, _ := first.Position()
			return c, fmt.Errorf("%s:%d: unknown setting %q (%s)", path, line, strings.Join(first.Key(), "."), knownSettings)
		}
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// article puts "a" or "an" before a word.
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}
