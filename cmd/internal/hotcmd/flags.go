package hotcmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Help is what `trailboss NAME --help` says around the flags.
type Help struct {
	Args    string // what follows the command name, e.g. "[%N] [--harness NAME]"
	About   string // what it does, in a few lines
	Example string
}

// helps is the hot verbs' help, keyed by the flag set's name: a verb's name, or
// "emit --generic".
var helps = map[string]Help{
	"emit": {"[--codex [PAYLOAD] | --opencode | --gemini | --copilot EVENT | --generic …]",
		"The hook command: Claude Code (Codex with --codex, OpenCode's plugin with --opencode,\n" +
			"Gemini CLI with --gemini, Copilot CLI with --copilot)\n" +
			"runs it with the hook's JSON on standard input. It prints nothing (but a held answer),\n" +
			"always exits 0, and gives up within 300 ms, so it can never slow or break the agent.\n" +
			"`trailboss setup` installs it; you do not run it.\n" +
			"From a script, use `trailboss emit --generic --state stuck|unstuck|start|end` (see\n" +
			"trailboss emit --generic --help).",
		"echo '{\"session_id\":\"s1\",\"hook_event_name\":\"Stop\"}' | trailboss emit"},
	"emit --generic": {"--state STATE [flags]",
		"Reports a session of any program (a script, an agent without hooks) to the queue.\n" +
			"Unlike a hook it says when the daemon refuses the event (exit 1).",
		"trailboss emit --generic --session deploy --state stuck --summary 'deploy needs a yes'"},
	"jump-next": {"[--client NAME] [--pane %N]",
		"Switches a tmux client to the oldest stuck pane (the key binding, prefix Tab).\n" +
			"Outside tmux, --client names the client to move.",
		"trailboss jump-next --client /dev/pts/3"},
	"skip": {"[--client NAME] [--pane %N]",
		"Sends the stuck item you are on (or the head) to the back of the queue for the cooldown,\n" +
			"and jumps to the next one.",
		"trailboss skip"},
	"status": {"",
		"Prints \"⚠ N stuck\" for a status line, and nothing when no item is ready. In tmux,\n" +
			"#{@trailboss_status} shows the same and runs nothing; a shell prompt or a bar reads\n" +
			"the same line from the status file in the state directory, with no process at all.",
		"trailboss status"},
}

// HelpOf returns the help of a hot verb's flag set name, and whether it is one.
func HelpOf(name string) (Help, bool) {
	h, ok := helps[name]
	return h, ok
}

// WriteUsage writes fs's help, h: its synopsis, what it does, its flags and an example.
func WriteUsage(w io.Writer, fs *flag.FlagSet, h Help) {
	fmt.Fprintf(w, "Usage: trailboss %s %s\n", fs.Name(), h.Args)
	if h.About != "" {
		fmt.Fprintf(w, "\n%s\n", h.About)
	}
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if h.Example != "" {
		fmt.Fprintf(w, "\nExample:\n  %s\n", h.Example)
	}
}

// usage writes a hot verb's help.
func usage(w io.Writer, fs *flag.FlagSet) { WriteUsage(w, fs, helps[fs.Name()]) }

// Parse parses args with fs, refusing positional arguments. -h or --help writes the
// command's help with usage to out (flag.ErrHelp, exit 0); a bad flag is reported once,
// with the way to the help.
func Parse(fs *flag.FlagSet, args []string, out io.Writer, usage func(io.Writer, *flag.FlagSet)) error {
	_, err := ParseArgs(fs, args, out, 0, usage)
	return err
}

// ParseArgs parses flags anywhere among args and returns the other arguments, at most max
// of them; -h as Parse.
func ParseArgs(fs *flag.FlagSet, args []string, out io.Writer, max int, usage func(io.Writer, *flag.FlagSet)) ([]string, error) {
	fs.SetOutput(io.Discard) // the error is reported once, by the caller
	fs.Usage = func() {}
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage(out, fs)
				return nil, err
			}
			return nil, fmt.Errorf("%w: %s: %v (see trailboss %s --help)", ErrUsage, fs.Name(), err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
	switch {
	case len(rest) > 0 && max == 0:
		return nil, fmt.Errorf("%w: %s takes no arguments, got %q (see trailboss %s --help)",
			ErrUsage, fs.Name(), strings.Join(rest, " "), fs.Name())
	case len(rest) > max:
		return nil, fmt.Errorf("%w: %s takes at most %d argument(s), got %q (see trailboss %s --help)",
			ErrUsage, fs.Name(), max, strings.Join(rest, " "), fs.Name())
	}
	return rest, nil
}

// firstNonEmpty returns the first of values that is not empty, or "".
func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
