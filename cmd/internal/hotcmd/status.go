package hotcmd

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/daemon/client/hot"
	"github.com/trailboss/trailboss/daemon/queue"
)

// Status is `trailboss status`: it prints "⚠ N stuck" for a status line, and nothing when
// no item is ready.
func Status(ctx context.Context, e *Env, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	var p Place
	PlaceFlags(fs, &p)
	if err := Parse(fs, args, e.Stderr, usage); err != nil {
		return err
	}
	if err := p.Resolve(e.Getenv); err != nil {
		return err
	}
	c, err := hot.New(p.Addr, p.StateDir, time.Second)
	if err != nil {
		return err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	if text := queue.StatusLine(st.Stuck, st.Cooling, st.Unreachable); text != "" {
		fmt.Fprintln(e.Stdout, text)
	}
	return nil
}
