package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
)

// runSystemdUnit prints a systemd --user unit that keeps the daemon running across
// reboots and logins.
func runSystemdUnit(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("systemd-unit", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	if err := parsePlace(fs, &p, args, e); err != nil {
		return err
	}
	addrArg := "" // the unix socket alone, unless TCP was asked for
	if p.Addr != "" {
		addrArg = " --addr " + systemdQuote(p.Addr)
	}
	fmt.Fprintf(e.stdout, `# Trail Boss daemon as a systemd user service. Install it with:
#   trailboss systemd-unit > ~/.config/systemd/user/trailboss.service
#   systemctl --user daemon-reload && systemctl --user enable --now trailboss
# (loginctl enable-linger $USER keeps it running while you are logged out.)
[Unit]
Description=Trail Boss: the queue of coding agents waiting in tmux
After=default.target

[Service]
ExecStart=%s daemon%s --state-dir %s
Restart=on-failure
RestartSec=2

[Install]
WantedBy=default.target
`, systemdQuote(selfPath()), addrArg, systemdQuote(p.StateDir))
	return nil
}

// systemdQuote quotes a word for an ExecStart line when it needs it.
func systemdQuote(s string) string {
	if !strings.ContainsAny(s, " \t\"'\\$%") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `$$`, `%`, `%%`)
	return `"` + r.Replace(s) + `"`
}

// systemdUnitHelp is what `trailboss systemd-unit --help` says around the flags.
var systemdUnitHelp = commandHelp{
	Args:    "",
	About:   "Prints a systemd --user unit that runs the daemon.",
	Example: "trailboss systemd-unit > ~/.config/systemd/user/trailboss.service",
}
