package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/client"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	if err := parsePlace(fs, &p, args, e); err != nil {
		return err
	}
	c, err := client.New(p.addr, p.stateDir, time.Second)
	if err != nil {
		return err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	if text := daemon.StatusText(st.Stuck, st.Cooling); text != "" {
		fmt.Fprintln(e.stdout, text)
	}
	return nil
}
