// Package config reads config.toml, the operator's settings file. Both binaries read it:
// trailboss (the daemon, setup, doctor) and trailboss-hot (a hook's emit, jump-next), so it
// imports nothing of ours and does nothing at package init. Checking the values the daemon
// refuses is the daemon's side (cmd/trailboss).
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// File is $XDG_CONFIG_HOME/trailboss/config.toml. Flags and the environment override it;
// it overrides the defaults.
type File struct {
	Addr     string   `toml:"addr"`
	Cooldown Duration `toml:"cooldown"`
	Sweep    Duration `toml:"sweep"`
	Settle   Duration `toml:"settle"`
	OnStuck  string   `toml:"on_stuck"` // run through sh for each newly stuck session
	// PromptTTL is how long a prompt takes answers from a channel (docs/delivery.md).
	PromptTTL Duration `toml:"prompt_ttl"`
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
	Telegram *Telegram `toml:"telegram"`
	Keys     struct {
		Next  string `toml:"next"`
		Popup string `toml:"popup"`
		Skip  string `toml:"skip"`
		Focus string `toml:"focus"`
	} `toml:"keys"`
	// Focus is [focus]: the focus view (`trailboss focus`).
	Focus struct {
		// Advance is "after_answer" to move to the next head by itself once the item in
		// view took its answer and the person has not typed for AdvanceAfter; "" or
		// "off" (the default) moves only on prefix Tab.
		Advance      string   `toml:"advance"`
		AdvanceAfter Duration `toml:"advance_after"`
	} `toml:"focus"`
	// Hosts are the other machines whose queues this daemon (the hub) shows beside its
	// own, each reached through the operator's own ssh.
	Hosts []Host `toml:"hosts"`
}

// Host is one [[hosts]] entry.
type Host struct {
	Name string `toml:"name"` // how the queue and `trailboss hosts` name it
	// SSH is a destination as ssh takes it: an alias of ~/.ssh/config, user@host.
	SSH string `toml:"ssh"`
	// SSHOptions are more arguments for ssh, such as ["-F", "/path/to/ssh_config"].
	SSHOptions []string `toml:"ssh_options"`
	// Command is the remote trailboss; "trailboss" (found on the remote PATH) when empty.
	Command string `toml:"command"`
}

// Telegram is [telegram] in config.toml.
type Telegram struct {
	TokenFile    string  `toml:"token_file"` // "~/…" allowed; default telegram-token beside config.toml
	ChatID       int64   `toml:"chat_id"`
	AllowedUsers []int64 `toml:"allowed_users"`
	APIURL       string  `toml:"api_url"`
}

// DeliveryOn reports whether the operator switched delivery on: [delivery] enabled, or a
// remote channel configured ([telegram]).
func (c File) DeliveryOn() bool { return c.Delivery.Enabled || c.Telegram != nil }

// Holds reports whether a PermissionRequest hook may hold for an answer: holding is on, or
// a remote channel (Telegram) is configured, which turns it on.
func (c File) Holds() bool {
	return c.DeliveryOn() && (c.Delivery.HoldPermissions || c.Telegram != nil)
}

// Duration is a TOML string such as "60s" or "2m".
type Duration struct {
	time.Duration
	Set bool // the file gave it
}

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration such as \"60s\" or \"2m\"", b)
	}
	d.Duration, d.Set = v, true
	return nil
}

// KnownSettings lists the settings, for the error about an unknown one.
const KnownSettings = "known: addr, cooldown, sweep, settle, on_stuck, prompt_ttl, [keys] next, popup, skip, focus, " +
	"[focus] advance, advance_after, " +
	"[delivery] enabled, hold_permissions, max_reply_length, [telegram] token_file, chat_id, allowed_users, api_url, " +
	"and [[hosts]] name, ssh, ssh_options, command"

// Path returns where the config file is: $XDG_CONFIG_HOME/trailboss/config.toml, else
// ~/.config/trailboss/config.toml; "" when there is no home folder.
func Path(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "trailboss", "config.toml")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "trailboss", "config.toml")
}

// Load reads the config file; a missing file is an empty config. An error names the file,
// the line and what is wrong with the value.
func Load(getenv func(string) string) (File, error) {
	var c File
	path := Path(getenv)
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
				return c, fmt.Errorf("%s:%d: unknown setting %q (%s)", path, line, key, KnownSettings)
			}
			if kind, ok := typeMismatch(msg); ok {
				// Say what the setting takes, not which Go field it could not fill.
				want := "text in quotes"
				switch key {
				case "delivery.hold_permissions", "delivery.enabled":
					want = "true or false"
				case "delivery.max_reply_length", "telegram.chat_id":
					want = "a whole number"
				case "telegram.allowed_users":
					want = "a list of whole numbers, such as [123456789]"
				case "hosts":
					want = "[[hosts]] tables, one per machine, each with name and ssh"
				case "hosts.ssh_options":
					want = "a list of text in quotes, such as [\"-p\", \"2222\"]"
				}
				msg = "must be " + want + ", not " + article(strings.ToLower(kind))
			}
			if key != "" {
				msg = key + ": " + msg
			}
			return c, fmt.Errorf("%s:%d: %s", path, line, msg)
		case errors.As(err, &strict):
			first := strict.Errors[0]
			line, _ := first.Position()
			return c, fmt.Errorf("%s:%d: unknown setting %q (%s)", path, line, strings.Join(first.Key(), "."), KnownSettings)
		}
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// typeMismatch returns the TOML kind of the decoder's "cannot decode TOML integer into
// struct field config.File.Addr of type string", whose Go names mean nothing to a user.
// (Matched by hand, not with a regexp: compiling one would cost every hook's start.)
func typeMismatch(msg string) (kind string, ok bool) {
	rest, ok := strings.CutPrefix(msg, "cannot decode TOML ")
	if !ok {
		return "", false
	}
	kind, _, ok = strings.Cut(rest, " into ")
	if !ok || kind == "" || strings.IndexFunc(kind, notWordRune) >= 0 {
		return "", false
	}
	return kind, true
}

// notWordRune reports whether r is not a letter, digit or underscore of ASCII (regexp's \w).
func notWordRune(r rune) bool {
	return r != '_' && (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z')
}

// article puts "a" or "an" before a word.
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}
