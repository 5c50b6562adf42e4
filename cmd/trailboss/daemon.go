package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/cmd/internal/config"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/logfile"
	"github.com/trailboss/trailboss/daemon/statedir"
)

// deliveryOff is daemon.Config's DeliveryOff for cfg: empty when delivery is on.
func deliveryOff(cfg fileConfig, path string) string {
	if cfg.DeliveryOn() {
		return ""
	}
	return deliveryOffMessage(path)
}

func runDaemon(ctx context.Context, e *env, args []string) (err error) {
	// Everything the daemon writes in the state directory (state.db and its WAL, the token,
	// the log) is the user's alone, whatever umask it was started with.
	syscall.Umask(0o077)
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	addr := fs.String("addr", "", "also listen on this loopback TCP address, such as "+exampleAddr+" (default $TRAILBOSS_ADDR, config addr; else the unix socket alone)")
	stateDir := fs.String("state-dir", "", "state directory (default $TRAILBOSS_STATE_DIR, $XDG_STATE_HOME/trailboss)")
	cooldown := fs.Duration("cooldown", 60*time.Second, "how long a skipped item waits before it can be the head again")
	sweep := fs.Duration("sweep", 10*time.Second, "interval of the stat-only transcript sweep and the pane liveness check")
	settle := fs.Duration("settle", 1500*time.Millisecond, "how long a transcript that says \"waiting\" must stay quiet before it is queued")
	noWatch := fs.Bool("no-watch", false, "do not watch transcript folders (the sweep alone reconciles)")
	screenTick := fs.Duration("screen-tick", 500*time.Millisecond, "how often the screen adapter looks at panes without hooks (0: off)")
	verbose := fs.Bool("v", false, "log debug detail")
	reset := fs.Bool("reset", false, "move state.db aside (kept as state.db.reset-TIME) and start with an empty queue")
	reportExit := fs.String("report-exit", "", "a file to write why the daemon exits into (trailboss start reads it)")
	logFile := fs.String("log-file", "", "write the log to this file, rotated at --log-max-bytes with 3 old ones kept (trailboss start outside tmux: daemon.log)")
	logMax := fs.Int64("log-max-bytes", logfile.DefaultMaxBytes, "the size at which --log-file is rotated")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	if *reportExit != "" {
		defer func() {
			if err != nil {
				// Only into a file start made: never create one.
				if f, ferr := os.OpenFile(*reportExit, os.O_WRONLY|os.O_TRUNC, 0); ferr == nil {
					fmt.Fprintln(f, err)
					f.Close()
				}
			}
		}()
	}
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	if err := checkConfig(cfg, configPath(e.getenv)); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// The config file fills in what neither a flag nor the environment gave.
	if !set["addr"] {
		*addr = firstNonEmpty(e.getenv("TRAILBOSS_ADDR"), cfg.Addr)
	}
	for name, d := range map[string]struct {
		flag *time.Duration
		file config.Duration
	}{"cooldown": {cooldown, cfg.Cooldown}, "sweep": {sweep, cfg.Sweep}, "settle": {settle, cfg.Settle}} {
		if !set[name] && d.file.Set {
			*d.flag = d.file.Duration
		}
	}
	if *stateDir == "" {
		if *stateDir, err = statedir.Default(); err != nil {
			return err
		}
	}
	if *cooldown < 0 || *sweep <= 0 || *settle < 0 {
		return fmt.Errorf("%w: --cooldown and --settle must not be negative, --sweep must be positive", errUsage)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logTo := e.stderr
	if *logFile != "" {
		if *logMax <= 0 {
			return fmt.Errorf("%w: --log-max-bytes must be positive", errUsage)
		}
		lf, err := logfile.Open(*logFile, *logMax, logfile.DefaultKeep)
		if err != nil {
			return err
		}
		defer lf.Close()
		if err := lf.CaptureStderr(); err != nil {
			return err
		}
		logTo = lf
	}
	log := slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: level}))
	var channels []daemon.Channel
	relay, err := telegramRelay(cfg, e.getenv)
	if err != nil {
		return err
	}
	if relay != nil {
		channels = append(channels, relay)
	}
	err = daemon.Run(ctx, daemon.Config{
		Addr: *addr, StateDir: *stateDir, Cooldown: *cooldown, Sweep: *sweep, Settle: *settle,
		NoWatch: *noWatch, ScreenTick: *screenTick, Reset: *reset, OnStuck: cfg.OnStuck, Version: version, Log: log,
		PromptTTL: cfg.PromptTTL.Duration, HoldPermissions: cfg.Holds(), MaxReply: cfg.Delivery.MaxReplyLength,
		DeliveryOff: deliveryOff(cfg, configPath(e.getenv)),
		Channels:    channels,
	})
	var inUse *httpapi.AddrInUseError
	if errors.As(err, &inUse) {
		source := "config"
		switch {
		case set["addr"]:
			source = "flag"
		case e.getenv("TRAILBOSS_ADDR") != "":
			source = "env"
		}
		return addrTaken(inUse.Addr, source, e.getenv)
	}
	return err
}

// daemonHelp is what `trailboss daemon --help` says around the flags.
var daemonHelp = commandHelp{"[flags]",
	"Runs the daemon in the foreground: the HTTP API on a unix socket in the state directory\n" +
		"(and on loopback TCP with --addr), the queue, transcript reconciling and the status\n" +
		"line. Most people run `trailboss start` instead.",
	"trailboss daemon --addr 127.0.0.1:4001"}
