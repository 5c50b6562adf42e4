package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// runHosts lists the hub's [[hosts]] with their state, as its daemon knows it now.
func runHosts(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("hosts", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	asJSON := fs.Bool("json", false, "print the hosts as JSON")
	if err := parsePlace(fs, &p, args, e); err != nil {
		return err
	}
	c, err := client.New(p.Addr, p.StateDir, 2*time.Second)
	if err != nil {
		return err
	}
	hs, err := c.Hosts(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if hs == nil {
			hs = []wire.Host{}
		}
		return enc.Encode(wire.Hosts{Hosts: hs})
	}
	if len(hs) == 0 {
		fmt.Fprintf(e.stdout, "no other hosts: add a [[hosts]] table with name and ssh to %s, then restart the daemon\n",
			configPath(e.getenv))
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSSH\tSTATE\tITEMS\tRTT\tCLOCK\tWHY")
	for _, h := range hs {
		state, rtt, clock, why := "connecting", "-", "-", h.Error
		switch {
		case h.Connected:
			state = "connected " + queue.Age(now.Sub(h.Since)) + " ago"
			rtt = fmt.Sprintf("%.0fms", h.RTTMillis)
			clock = fmt.Sprintf("%+.0fms", h.ClockOffsetMillis)
		case h.LeftOut:
			state = "left out"
		case !h.Since.IsZero():
			state = "unreachable since " + h.Since.Local().Format("15:04:05")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", h.Name, h.SSH, state, h.Items, rtt, clock, why)
	}
	return tw.Flush()
}

// hostsHelp is what `trailboss hosts --help` says around the flags.
var hostsHelp = commandHelp{
	Args: "[--json]",
	About: "Lists the other machines in config.toml's [[hosts]], whose queues this daemon shows\n" +
		"beside its own, each reached through your own ssh: connected since when, its items,\n" +
		"the round trip and its clock's offset; or unreachable since when, and why (ssh's own\n" +
		"last line, word for word).",
	Example: "trailboss hosts --json",
}
