package main

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/trailboss/trailboss/cmd/internal/config"
	"github.com/trailboss/trailboss/daemon/deliver"
	"github.com/trailboss/trailboss/daemon/httpapi"
)

// exampleAddr is the TCP address help and advice give as an example: the daemon listens on
// TCP only when told to (addr), and on its unix socket always.
const exampleAddr = "127.0.0.1:4000"

// fileConfig is config.toml (package config reads it); telegramConfig its [telegram].
type (
	fileConfig     = config.File
	telegramConfig = config.Telegram
)

// deliveryOffMessage is what an answer is refused with while delivery is off.
func deliveryOffMessage(path string) string {
	return "delivery is off, so nothing was typed: Trail Boss types an answer only once you switch it on — " +
		"add enabled = true under [delivery] in " + path + ", then restart the daemon (trailboss stop && trailboss start)"
}

// configPath returns where the config file is (config.Path).
func configPath(getenv func(string) string) string { return config.Path(getenv) }

// loadConfig reads the config file (config.Load).
func loadConfig(getenv func(string) string) (fileConfig, error) { return config.Load(getenv) }

// checkConfig returns an error naming the first setting of c that the daemon refuses, so that
// doctor and the daemon judge a config file alike.
func checkConfig(c fileConfig, path string) error {
	switch {
	case c.Addr != "":
		if err := httpapi.CheckLoopback(c.Addr); err != nil {
			return fmt.Errorf("%s: addr: %w", path, err)
		}
	}
	switch {
	case c.Cooldown.Set && c.Cooldown.Duration < 0:
		return fmt.Errorf("%s: cooldown must not be negative", path)
	case c.Sweep.Set && c.Sweep.Duration <= 0:
		return fmt.Errorf("%s: sweep must be longer than 0s", path)
	case c.Settle.Set && c.Settle.Duration < 0:
		return fmt.Errorf("%s: settle must not be negative", path)
	case c.PromptTTL.Set && (c.PromptTTL.Duration < 10*time.Second || c.PromptTTL.Duration > 55*time.Minute):
		// At most a little under the hour Claude Code gives the permission hook that holds.
		return fmt.Errorf("%s: prompt_ttl must be between 10s and 55m", path)
	case c.Delivery.MaxReplyLength < 0:
		return fmt.Errorf("%s: [delivery] max_reply_length must be between 1 and %d characters", path, deliver.MaxReplyLimit)
	case c.Delivery.MaxReplyLength > deliver.MaxReplyLimit:
		// tmux refuses a command over about 16 KB, and a reply is typed in one.
		return fmt.Errorf("%s: [delivery] max_reply_length = %d is more than tmux types in one go: set it to at most %d characters "+
			"(a longer answer is better typed in the pane)", path, c.Delivery.MaxReplyLength, deliver.MaxReplyLimit)
	case c.Delivery.HoldPermissions && !c.DeliveryOn():
		return fmt.Errorf("%s: [delivery] hold_permissions = true needs delivery on: add enabled = true under [delivery]", path)
	}
	if err := checkFocus(c, path); err != nil {
		return err
	}
	if err := checkHosts(c.Hosts, path); err != nil {
		return err
	}
	if c.Telegram != nil {
		return checkTelegram(c.Telegram, path)
	}
	return nil
}

// maxHostName is the longest [[hosts]] name: it names the host's ControlMaster socket in
// the state directory, whose path a unix socket keeps short.
const maxHostName = 32

// checkHosts returns an error naming the first [[hosts]] entry the daemon refuses. A name
// is a short word (it names the ControlMaster's socket file); ssh and command are single
// words that cannot be taken for an option of ssh; nothing holds a control character.
func checkHosts(hosts []config.Host, path string) error {
	seen := map[string]bool{}
	for i, h := range hosts {
		at := fmt.Sprintf("%s: [[hosts]] #%d", path, i+1)
		if h.Name != "" {
			at = fmt.Sprintf("%s: [[hosts]] %q", path, h.Name)
		}
		switch {
		case h.Name == "":
			return fmt.Errorf("%s: name is missing: give each host a short name, such as name = \"devbox\"", at)
		case len(h.Name) > maxHostName || strings.IndexFunc(h.Name, notHostNameRune) >= 0 || h.Name[0] == '-' || h.Name[0] == '.':
			return fmt.Errorf("%s: name must be at most %d letters, digits, '.', '_' or '-', starting with a letter or digit", at, maxHostName)
		case seen[h.Name]:
			return fmt.Errorf("%s: another [[hosts]] entry has the same name: give each its own", at)
		case h.SSH == "":
			return fmt.Errorf("%s: ssh is missing: give the destination as you would to ssh, such as ssh = \"devbox\" or \"me@devbox.example\"", at)
		case strings.HasPrefix(h.SSH, "-"):
			return fmt.Errorf("%s: ssh = %q starts with '-', which ssh would take for an option: put options in ssh_options", at, h.SSH)
		case strings.IndexFunc(h.SSH, unicode.IsSpace) >= 0 || hasControl(h.SSH):
			return fmt.Errorf("%s: ssh = %q holds a space: give the destination alone, and options in ssh_options", at, h.SSH)
		case strings.HasPrefix(h.Command, "-") || hasControl(h.Command):
			return fmt.Errorf("%s: command = %q is not a program's path: give the remote trailboss, such as \"~/.local/bin/trailboss\"", at, h.Command)
		}
		for _, o := range h.SSHOptions {
			if hasControl(o) {
				return fmt.Errorf("%s: ssh_options holds %q, with a control character", at, o)
			}
		}
		seen[h.Name] = true
	}
	return nil
}

// notHostNameRune reports whether r may not be in a [[hosts]] name.
func notHostNameRune(r rune) bool {
	word := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
	return !word
}

// hasControl reports whether s holds a control character (a newline among them).
func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// checkFocus returns an error naming the [focus] setting that is wrong.
func checkFocus(c fileConfig, path string) error {
	switch c.Focus.Advance {
	case "", "off", "after_answer":
	default:
		return fmt.Errorf("%s: [focus] advance = %q: use \"after_answer\" (move on once the answer is taken and you stop typing) or \"off\"", path, c.Focus.Advance)
	}
	if c.Focus.AdvanceAfter.Set && (c.Focus.AdvanceAfter.Duration < 500*time.Millisecond || c.Focus.AdvanceAfter.Duration > time.Hour) {
		return fmt.Errorf("%s: [focus] advance_after must be between 500ms and 1h, such as \"2s\"", path)
	}
	return nil
}

// focusAdvance returns how long the focus view waits, after an answer was taken and the
// person stopped typing, before it moves on by itself: 0 when auto-advance is off.
func focusAdvance(c fileConfig) time.Duration {
	if c.Focus.Advance != "after_answer" {
		return 0
	}
	if c.Focus.AdvanceAfter.Set {
		return c.Focus.AdvanceAfter.Duration
	}
	return defaultAdvanceAfter
}

// defaultAdvanceAfter is [focus] advance_after when it is not set.
const defaultAdvanceAfter = 2 * time.Second
