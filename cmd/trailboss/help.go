package main

import (
	"flag"
	"io"

	"github.com/trailboss/trailboss/cmd/internal/hotcmd"
)

// commandHelp is what `trailboss NAME --help` says around the flags.
type commandHelp struct {
	args    string // what follows the command name, e.g. "[%N] [--harness NAME]"
	about   string // what it does, in a few lines
	example string
}

// helps is keyed by the flag set's name: a command's name, or "emit --generic".
var helps = map[string]commandHelp{
	"daemon": {"[flags]",
		"Runs the daemon in the foreground: the HTTP API on a unix socket in the state directory\n" +
			"(and on loopback TCP with --addr), the queue, transcript reconciling and the status\n" +
			"line. Most people run `trailboss start` instead.",
		"trailboss daemon --addr 127.0.0.1:4001"},
	"ls": {"[--json]",
		"Lists the queue, oldest first.",
		"trailboss ls --json"},
	"reply": {"SESSION|%N (--choice KEY | TEXT…)",
		"Answers the prompt of one stuck session from where you are: a choice it offers\n" +
			"(allow/deny, 1-9, y/n, enter — trailboss ls --json shows them) or a line of text.\n" +
			"It is delivered only if the session still waits on that same prompt in its own pane:\n" +
			"through Claude Code's permission hook when it holds, else typed into the pane.",
		"trailboss reply %3 --choice allow"},
	"log": {"[--json] [-n N]",
		"Lists the delivery attempts of answers, newest first: the channel, the path (hook,\n" +
			"keys, pty), the pane, how many bytes were typed and what happened. Never the text.",
		"trailboss log -n 20"},
	"watch": {"[%N] [--harness NAME]",
		"Watches a pane's screen for an agent that reports no hooks, and queues it when its\n" +
			"screen waits for you. Panes running claude, codex, opencode, gemini or aider are found\n" +
			"without asking. Without %N, the pane you run it in.",
		"trailboss watch %3 --harness aider"},
	"unwatch": {"[%N]",
		"Stops watching a pane's screen.",
		"trailboss unwatch %3"},
	"popup": {"[--client NAME]",
		"The queue picker, for tmux display-popup (prefix g): pick an item to jump to it, skip\n" +
			"or dismiss items.",
		"tmux display-popup -E trailboss popup"},
	"setup": {"[--undo] [--dry-run] [--codex] [--opencode] [--no-tmux] [--no-claude]",
		"Installs Trail Boss's hooks into Claude Code's settings (and Codex's config with\n" +
			"--codex, its plugin into OpenCode's plugins folder with --opencode), and its keys and\n" +
			"status segment into tmux. --undo takes them all out again.",
		"trailboss setup --dry-run"},
	"tmux-conf": {"[--apply]",
		"Prints the tmux lines: the key bindings and the status segment.",
		"trailboss tmux-conf >> ~/.tmux.conf"},
	"doctor": {"[--project DIR]",
		"Checks every part of the setup and says how to fix what is broken.",
		"trailboss doctor"},
	"start": {"[flags]",
		"Starts the daemon in the background if none runs.",
		"trailboss start"},
	"stop": {"",
		"Stops the running daemon.",
		"trailboss stop"},
	"systemd-unit": {"",
		"Prints a systemd --user unit that runs the daemon.",
		"trailboss systemd-unit > ~/.config/systemd/user/trailboss.service"},
	"demo": {"[--no-attach]",
		"Try it: an isolated tmux server with the daemon and three simulated agents, each in a\n" +
			"project of its own. Detaching, Ctrl-C or closing the terminal stops it all and leaves\n" +
			"nothing behind.",
		"trailboss demo"},
	"demo-agent": {"[flags]",
		"A simulated Claude Code session, for the demo and the tests.",
		"trailboss demo-agent --session demo-api"},
	"run": {"[--name NAME] [--settle 2s] [--stall 2.5s] -- CMD [ARGS…]",
		"Runs CMD on a terminal of its own and passes yours through to it untouched: keys,\n" +
			"window size, signals and its exit status. When its output goes quiet on a question\n" +
			"(y/n, a menu, press Enter, a line to type), the session joins the queue with that\n" +
			"question, and an answer from the popup, trailboss reply or a phone is typed into it.\n" +
			"Quiet for the stall time with no question on screen, it joins as \"waiting for\n" +
			"input\", answered with a line of text. It works without the daemon too, and\n" +
			"reports once the daemon is up. Its own log is run.log in the state directory.",
		"trailboss run --name deploy -- ./deploy.sh staging"},
	"telegram": {"setup",
		"The Telegram relay (off until configured): a message in one chat for each prompt that\n" +
			"waits, with buttons for its answers; a tap or a reply answers it. Only the users of\n" +
			"allowed_users, in the chat of chat_id, are let in. `telegram setup` pairs your phone.",
		"trailboss telegram setup"},
	"telegram setup": {"[--timeout 5m] [--api-url URL]",
		"Pairs your phone: reads the bot token (asks for it and keeps it, mode 0600, when there is\n" +
			"none; TRAILBOSS_TELEGRAM_TOKEN overrides), checks it with Telegram, shows a code to\n" +
			"send to the bot from your phone, and writes that chat and that user into config.toml.\n" +
			"Run it while the daemon's relay is off; restart the daemon afterwards.",
		"trailboss telegram setup"},
	"lab": {"list | run NAME…|--all [--json]",
		"The Prompt Lab: replays AtlasBridge's failure scenarios (QA-001 … QA-019) against the\n" +
			"real daemon and the real supervisor (trailboss run), each with its own temp state, a\n" +
			"built-in synthetic child and, for the Telegram ones, a fake Bot API on a loopback port;\n" +
			"and says what it measured. Nothing of yours is touched: no home, state, daemon, tmux\n" +
			"server or Telegram bot of yours is used.",
		"trailboss lab run --all"},
	"lab run": {"NAME…|--all [--json]",
		"Runs the named scenarios (by name or id; trailboss lab list shows them), or all of\n" +
			"them, and prints pass or FAIL with the measured figures for each. Exits 1 when any\n" +
			"fails. --json prints an array of {\"id\", \"name\", \"pass\", \"detail\"}.",
		"trailboss lab run partial-line-prompt QA-019"},
	"lab list": {"",
		"Lists the Prompt Lab's scenarios and what each checks.",
		"trailboss lab list"},
}

// usageFor writes NAME's help: its synopsis, what it does, its flags and an example. The
// hot verbs' help is hotcmd's.
func usageFor(w io.Writer, fs *flag.FlagSet) {
	if h, ok := hotcmd.HelpOf(fs.Name()); ok {
		hotcmd.WriteUsage(w, fs, h)
		return
	}
	h := helps[fs.Name()]
	hotcmd.WriteUsage(w, fs, hotcmd.Help{Args: h.args, About: h.about, Example: h.example})
}
