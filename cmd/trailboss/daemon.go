package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/trailboss/trailboss/daemon"
)

func runDaemon(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	cooldown := fs.Duration("cooldown", 60*time.Second, "how long a skipped item waits before it can be the head again")
	sweep := fs.Duration("sweep", 10*time.Second, "interval of the stat-only transcript sweep and the pane liveness check")
	settle := fs.Duration("settle", 1500*time.Millisecond, "how long a transcript that says \"waiting\" must stay quiet before it is queued")
	noWatch := fs.Bool("no-watch", false, "do not watch transcript folders (the sweep alone reconciles)")
	verbose := fs.Bool("v", false, "log debug detail")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	if err := p.resolve(e.getenv); err != nil {
		return err
	}
	if *cooldown < 0 || *sweep <= 0 || *settle < 0 {
		return fmt.Errorf("%w: --cooldown and --settle must not be negative, --sweep must be positive", errUsage)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	return daemon.Run(ctx, daemon.Config{
		Addr: p.addr, StateDir: p.stateDir, Cooldown: *cooldown, Sweep: *sweep, Settle: *settle,
		NoWatch: *noWatch, Version: version, Log: log,
	})
}
