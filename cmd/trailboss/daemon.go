package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/trailboss/trailboss/cmd/internal/config"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/deliver"
	"github.com/trailboss/trailboss/daemon/hosts"
	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/logfile"
	"github.com/trailboss/trailboss/daemon/onstuck"
	"github.com/trailboss/trailboss/daemon/ptyhub"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/tmuxstatus"
	"github.com/trailboss/trailboss/daemon/wallclock"
	"github.com/trailboss/trailboss/daemon/watch"
	"github.com/trailboss/trailboss/tmuxctl"
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
	err = serveDaemon(ctx, daemonConfig{
		Addr: *addr, StateDir: *stateDir, Cooldown: *cooldown, Sweep: *sweep, Settle: *settle,
		NoWatch: *noWatch, ScreenTick: *screenTick, Reset: *reset, OnStuck: cfg.OnStuck, Version: version, Log: log,
		PromptTTL: cfg.PromptTTL.Duration, HoldPermissions: cfg.Holds(), MaxReply: cfg.Delivery.MaxReplyLength,
		DeliveryOff: deliveryOff(cfg, configPath(e.getenv)),
		Channels:    channels,
		Hosts:       hostConfigs(cfg.Hosts),
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

// hostConfigs returns config.toml's [[hosts]], checked (checkHosts), as the hub runs them.
func hostConfigs(in []config.Host) []hosts.Config {
	out := make([]hosts.Config, len(in))
	for i, h := range in {
		out[i] = hosts.Config{Name: h.Name, SSH: h.SSH, Options: h.SSHOptions, Command: h.Command}
	}
	return out
}

// daemonHelp is what `trailboss daemon --help` says around the flags.
var daemonHelp = commandHelp{
	Args: "[flags]",
	About: "Runs the daemon in the foreground: the HTTP API on a unix socket in the state directory\n" +
		"(and on loopback TCP with --addr), the queue, transcript reconciling and the status\n" +
		"line. Most people run `trailboss start` instead.",
	Example: "trailboss daemon --addr 127.0.0.1:4001",
}

// daemonConfig is what the daemon needs to run: its flags and config.toml, read.
type daemonConfig struct {
	// Addr is a loopback host:port to listen on beside the unix socket in StateDir, or ""
	// for the socket alone.
	Addr     string
	StateDir string        // state.db, token, lock
	Cooldown time.Duration // how long a skipped item cools before it can be the head again
	Sweep    time.Duration // stat-only transcript sweep and liveness check
	Settle   time.Duration // how long a waiting transcript tail must stay quiet to be queued
	NoWatch  bool          // do not use fsnotify (the sweep alone reconciles)
	// ScreenTick is how often the screen adapter looks at the panes it watches; 0 turns it
	// off.
	ScreenTick time.Duration
	Reset      bool   // move a corrupt or unwanted state.db aside and start empty
	OnStuck    string // a shell command run for each newly stuck session, or ""
	// Delivery (docs/delivery.md).
	PromptTTL       time.Duration // how long a prompt record takes answers; 0: daemon.DefaultPromptTTL
	HoldPermissions bool          // PermissionRequest hooks hold for an answer
	// DeliveryOff, when not empty, keeps delivery off (nothing typed, no hook held) and is
	// what an answer is refused with: how to turn it on. A remote channel in Channels
	// means the operator switched delivery on.
	DeliveryOff string
	MaxReply    int // characters of a typed reply; 0: deliver.DefaultMaxReply
	// Channels run beside the daemon and deliver answers from elsewhere (Telegram). A
	// remote channel turns holding on: HoldPermissions is then taken as true.
	Channels []daemon.Channel
	// Hosts are the other machines whose queues this daemon shows beside its own.
	Hosts   []hosts.Config
	Version string
	Log     *slog.Logger
}

// serveDaemon wires the daemon together and serves until ctx ends, then shuts down
// gracefully. A start that fails (the address is taken, the state cannot be opened) leaves
// the state directory as it found it: what this start created there is removed, and the
// lock's record of the last daemon is kept.
func serveDaemon(ctx context.Context, cfg daemonConfig) (err error) {
	log := cfg.Log
	if cfg.Addr != "" {
		if err := httpapi.CheckLoopback(cfg.Addr); err != nil {
			return err
		}
	}
	sock, err := statedir.SocketPath(cfg.StateDir)
	if err != nil {
		return err
	}
	tightened, createdDir, err := statedir.Ensure(cfg.StateDir)
	if err != nil {
		return err
	}
	if tightened {
		log.Warn(statedir.TightenedNote(cfg.StateDir))
	}
	var made []string // what this start created, removed again if it fails
	defer func() {
		if err == nil {
			return
		}
		for i := len(made) - 1; i >= 0; i-- {
			rerr := os.Remove(made[i])
			if rerr != nil && !errors.Is(rerr, os.ErrNotExist) && !errors.Is(rerr, syscall.ENOTEMPTY) {
				log.Warn("remove what a failed start made", "path", made[i], "err", rerr)
			}
		}
	}()
	if createdDir {
		made = append(made, cfg.StateDir) // removed only while empty
	}
	if n, err := statedir.PrivateFiles(cfg.StateDir); err != nil {
		return err
	} else if n > 0 {
		log.Warn("files in the state directory were readable by other users; they are now private", "count", n)
	}
	ranBefore := statedir.RanBefore(cfg.StateDir) // a record is written only after a start that worked
	where := sock
	if cfg.Addr != "" {
		where += " and " + cfg.Addr
	}
	lock, err := statedir.Acquire(cfg.StateDir)
	if err != nil {
		return err
	}
	defer func() {
		release := lock.Release
		if err != nil {
			release = lock.Abandon
		}
		if rerr := release(); rerr != nil {
			log.Warn("release the state directory's lock", "err", rerr)
		}
	}()
	// Listen before anything slow, so that a taken address is said at once.
	listeners := []net.Listener{}
	defer func() {
		for _, ln := range listeners {
			ln.Close()
		}
	}()
	ln, err := httpapi.ListenSocket(sock)
	if err != nil {
		return err
	}
	listeners = append(listeners, ln)
	if cfg.Addr != "" {
		tcp, err := httpapi.Listen(cfg.Addr)
		if err != nil {
			return err
		}
		// Another local user can connect to a loopback port too: their connections are
		// closed as they are accepted, so that they cannot hold the operator's slots.
		listeners = append(listeners, httpapi.OwnerOnly(tcp, os.Getuid(), log.With("component", "api")))
	}
	token, createdToken, err := statedir.MakeToken(cfg.StateDir)
	if err != nil {
		return err
	}
	if createdToken {
		made = append(made, filepath.Join(cfg.StateDir, statedir.TokenFile))
	}
	dbMade := store.FilesAbsent(cfg.StateDir)
	st, err := store.OpenIn(ctx, cfg.StateDir, cfg.Reset, ranBefore)
	made = append(made, dbMade...)
	if err != nil {
		return err
	}
	defer st.Close()
	engine, err := daemon.NewEngine(ctx, st, cfg.Cooldown, log.With("component", "engine"))
	if err != nil {
		return err
	}
	if cfg.PromptTTL > 0 {
		engine.PromptTTL = cfg.PromptTTL
	}
	dialogs := &watch.Dialogs{Engine: engine}
	engine.Calls = dialogs
	var hook *onstuck.Runner
	if cfg.OnStuck != "" {
		hook = &onstuck.Runner{Command: cfg.OnStuck, Log: log.With("component", "on_stuck")}
		engine.OnStuck = hook.Enqueue
	}

	ingest := &daemon.Ingestor{Engine: engine, Now: wallclock.Now, Log: log.With("component", "ingest")}
	holds, ptys := &daemon.Holds{}, &ptyhub.PTYHub{}
	off := cfg.DeliveryOff
	if len(cfg.Channels) > 0 {
		off = "" // configuring a remote channel switched delivery on
	}
	core := &daemon.Core{Engine: engine, Log: log.With("component", "api"), Ingest: ingest,
		Holds: holds, PTY: ptys, HoldPermissions: cfg.HoldPermissions || len(cfg.Channels) > 0, DeliveryChannels: cfg.Channels,
		Off: off,
		Deliver: &deliver.Deliverer{Engine: engine, Tmux: tmuxctl.New, PTY: ptys, Holds: holds, MaxReply: cfg.MaxReply,
			Off: off, Log: log.With("component", "deliver")}}
	api := &httpapi.Server{Core: core, Token: token, Version: cfg.Version, Log: log.With("component", "api")}
	var remotes *hosts.Set
	if len(cfg.Hosts) > 0 {
		remotes = hosts.New(cfg.Hosts, cfg.StateDir, cfg.Version, log.With("component", "hosts"))
		api.Hosts = remotes
	}
	if off == "" {
		log.Info("delivery is on: answers from the popup, trailboss reply and the channels are typed into panes")
	}
	var screens *watch.ScreenWatcher
	if cfg.ScreenTick > 0 {
		screens = &watch.ScreenWatcher{Engine: engine, Tmux: tmuxctl.New, Tick: cfg.ScreenTick, Quiet: 2,
			Discover: cfg.Sweep, Servers: watch.KnownServers(engine, os.Getenv), Covered: daemon.FullyHooked(),
			Log: log.With("component", "screen")}
		core.Screens = screens
	}
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		ConnContext: httpapi.ConnContext}
	rec := &watch.Reconciler{
		Engine: engine, Dialogs: dialogs, Readers: daemon.TranscriptReaders(), Sweep: cfg.Sweep, Settle: cfg.Settle, Watch: !cfg.NoWatch,
		Log:      log.With("component", "reconcile"),
		Liveness: &watch.Liveness{Engine: engine, Log: log.With("component", "liveness"), Tmux: tmuxctl.New},
	}

	// Recorded once nothing more can fail, before serving (start reads the record as soon
	// as the daemon answers): a start that failed before here leaves the last daemon's
	// record, which is also how the next start knows that a daemon ran here (RanBefore).
	if err := lock.Record(where); err != nil {
		log.Warn("clients may not find the daemon", "err", err)
	}
	made = nil
	g, gctx := errgroup.WithContext(ctx)
	core.Done = gctx.Done()
	g.Go(func() error { return engine.RunPromptExpiry(gctx, time.Second) })
	for _, ln := range listeners {
		g.Go(func() error {
			if err := srv.Serve(httpapi.LimitListen(ln, httpapi.MaxConns)); !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("serve %s: %w", ln.Addr(), err)
			}
			return nil
		})
	}
	g.Go(func() error { return rec.Run(gctx) })
	for _, live := range daemon.LiveStateWatchers(engine, dialogs, cfg.Sweep, !cfg.NoWatch, log) {
		g.Go(func() error { return live.Run(gctx) })
	}
	drainer := &daemon.SpoolDrainer{Ingest: ingest, StateDir: cfg.StateDir, Interval: time.Second, Log: log.With("component", "spool")}
	g.Go(func() error { return drainer.Run(gctx) })
	if screens != nil {
		g.Go(func() error { return screens.Run(gctx) })
	}
	status := &tmuxstatus.Publisher{Engine: engine, Tmux: tmuxctl.New, Log: log.With("component", "status")}
	if remotes != nil {
		status.Hosts = remotes
	}
	g.Go(func() error { return status.Run(gctx) })
	if hook != nil {
		g.Go(func() error { return hook.Run(gctx) })
	}
	if remotes != nil {
		g.Go(func() error { return remotes.Run(gctx) })
	}
	for _, ch := range cfg.Channels {
		host := daemon.ChannelHost{Engine: engine, Deliver: core.Deliver, Store: st, Tmux: tmuxctl.New,
			Log: log.With("component", ch.Name()), Now: time.Now}
		g.Go(func() error { return ch.Run(gctx, host) })
	}
	g.Go(func() error {
		<-gctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdownCtx)
	})
	log.Info("daemon listening", "socket", sock, "addr", cfg.Addr, "state", cfg.StateDir, "pid", os.Getpid())
	err = g.Wait()
	log.Info("daemon stopped")
	return err
}
