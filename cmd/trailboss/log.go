package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
)

// runLog lists the audit log of deliveries, newest first.
func runLog(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("log", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	asJSON := fs.Bool("json", false, "print the entries as JSON")
	limit := fs.Int("n", 50, "how many entries, newest first")
	if err := parsePlace(fs, &p, args, e); err != nil {
		return err
	}
	if *limit <= 0 || *limit > 10000 {
		return fmt.Errorf("%w: -n must be from 1 to 10000", errUsage)
	}
	c, err := client.New(p.Addr, p.StateDir, 5*time.Second)
	if err != nil {
		return err
	}
	ds, err := c.Deliveries(ctx, *limit)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"deliveries": ds})
	}
	if len(ds) == 0 {
		fmt.Fprintln(e.stdout, "no answers delivered yet")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tCHANNEL\tVIA\tPANE\tSESSION\tPROMPT\tANSWER\tRESULT\tWHO")
	for _, d := range ds {
		result := d.Result
		if d.Reason != "" {
			result += ": " + d.Reason
		}
		channel := d.Channel
		if d.Claimed != "" {
			channel += " (said " + d.Claimed + ")" // the daemon's word first, then the caller's
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.At.Local().Format("15:04:05"), channel, dash(d.Via),
			dash(d.Pane), clipRunes(dash(d.SessionID), 12), d.PromptID, answerOf(d), clipRunes(result, 70), dash(d.Actor))
	}
	return tw.Flush()
}

// answerOf says what an answer was: the choice it made, and how many bytes were typed or
// decided (a reply's text is never kept, only its length).
func answerOf(d wire.Delivery) string {
	size := fmt.Sprintf("%d bytes", d.Length)
	if d.Length == 1 {
		size = "1 byte"
	}
	switch {
	case d.Choice != "":
		return clipRunes(d.Choice, 20) + ", " + size
	case d.Length > 0:
		return size
	}
	return "-"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// logHelp is what `trailboss log --help` says around the flags.
var logHelp = commandHelp{
	Args: "[--json] [-n N]",
	About: "Lists the delivery attempts of answers, newest first: the channel, the path (hook,\n" +
		"keys, pty), the pane, how many bytes were typed and what happened. Never the text.",
	Example: "trailboss log -n 20",
}
