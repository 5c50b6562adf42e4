package main

import (
	"flag"
	"io"

	"github.com/trailboss/trailboss/cmd/internal/hotcmd"
)

// commandHelp is what `trailboss NAME --help` says around the flags.
type commandHelp = hotcmd.Help

// helps is keyed by the flag set's name: a command's name, or "lab run". Each is written
// beside its command.
var helps = map[string]commandHelp{
	"daemon":         daemonHelp,
	"ls":             lsHelp,
	"reply":          replyHelp,
	"log":            logHelp,
	"watch":          watchHelp,
	"unwatch":        unwatchHelp,
	"popup":          popupHelp,
	"focus":          focusHelp,
	"setup":          setupHelp,
	"tmux-conf":      tmuxConfHelp,
	"doctor":         doctorHelp,
	"start":          startHelp,
	"stop":           stopHelp,
	"attach":         attachHelp,
	"bridge":         bridgeHelp,
	"hosts":          hostsHelp,
	"systemd-unit":   systemdUnitHelp,
	"demo":           demoHelp,
	"demo-agent":     demoAgentHelp,
	"run":            runHelp,
	"telegram":       telegramHelp,
	"telegram setup": telegramSetupHelp,
	"lab":            labHelp,
	"lab run":        labRunHelp,
	"lab list":       labListHelp,
}

// usageFor writes NAME's help: its synopsis, what it does, its flags and an example. The
// hot verbs' help is hotcmd's.
func usageFor(w io.Writer, fs *flag.FlagSet) {
	if h, ok := hotcmd.HelpOf(fs.Name()); ok {
		hotcmd.WriteUsage(w, fs, h)
		return
	}
	h := helps[fs.Name()]
	hotcmd.WriteUsage(w, fs, h)
}
