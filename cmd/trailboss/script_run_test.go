package main

// Script commands for the scripts of `trailboss run` (testscripts/run_*.txtar), whose
// sessions have ids of their own making.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCommands["waitqueuepane"] = cmdWaitQueuePane }

// waitqueuepane [-within D] NAME PANE waits until the queue holds exactly one session, the
// one in tmux pane PANE, and sets NAME to its id.
func cmdWaitQueuePane(ts *testscript.TestScript, args []string) {
	timeout, args := within(ts, args, 5*time.Second)
	if len(args) != 2 {
		ts.Fatalf("usage: waitqueuepane [-within D] NAME PANE")
	}
	c := daemonClient(ts)
	var got string
	poll(ts, fmt.Sprintf("the queue to hold the session in pane %s alone", args[1]), timeout, func() bool {
		items, err := c.Queue(context.Background())
		if err != nil {
			got = err.Error()
			return false
		}
		var seen []string
		for _, it := range items {
			seen = append(seen, it.SessionID+" in pane "+it.Pane)
		}
		got = strings.Join(seen, ", ")
		if len(items) != 1 || items[0].Pane != args[1] {
			return false
		}
		ts.Setenv(args[0], items[0].SessionID)
		return true
	}, func() string { return "the queue holds [" + got + "]" })
}
