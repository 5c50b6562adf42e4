package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/queue"
)

func runLs(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("ls", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	asJSON := fs.Bool("json", false, "print the queue as JSON")
	if err := parsePlace(fs, &p, args, e); err != nil {
		return err
	}
	c, err := client.New(p.Addr, p.StateDir, 2*time.Second)
	if err != nil {
		return err
	}
	items, err := c.Queue(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if items == nil {
			items = []client.Item{}
		}
		return enc.Encode(map[string]any{"items": items})
	}
	if len(items) == 0 {
		fmt.Fprintln(e.stdout, "nothing stuck")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tAGE\tREASON\tPANE\tSESSION\tPROJECT\tSUMMARY")
	// Another host's pane is named host:%N; an item of a host the hub lost is marked (stale).
	now := time.Now()
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.SessionID
	}
	for i, it := range items {
		pos := fmt.Sprint(it.Position)
		if !it.Ready {
			pos += "~" // cooling down after a skip
		}
		reason := it.Reason
		if it.Detail != "" {
			reason += "/" + it.Detail
		}
		pane := it.Pane
		if it.Host != "" {
			pane = it.Host + ":" + pane
			if it.Stale {
				pane += " (stale)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pos, queue.Age(now.Sub(it.Since)), reason, pane,
			uniquePrefix(ids[i], ids, 8), filepath.Base(it.Cwd), clipRunes(adapter.ShowFormat(it.Summary), 60))
	}
	return tw.Flush()
}

// uniquePrefix returns the shortest prefix of id, at least n long, that no other of ids
// starts with, so that what ls shows can be given to reply as it is.
func uniquePrefix(id string, ids []string, n int) string {
	for l := n; l < len(id); l++ {
		unique := true
		for _, other := range ids {
			if other != id && strings.HasPrefix(other, id[:l]) {
				unique = false
				break
			}
		}
		if unique {
			return id[:l]
		}
	}
	return id
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// lsHelp is what `trailboss ls --help` says around the flags.
var lsHelp = commandHelp{
	Args:    "[--json]",
	About:   "Lists the queue, oldest first.",
	Example: "trailboss ls --json",
}
