package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
	"github.com/trailboss/trailboss/daemon/statusfile"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/tmuxstatus"
	"github.com/trailboss/trailboss/daemon/wallclock"
	"github.com/trailboss/trailboss/daemon/watch"
	"github.com/trailboss/trailboss/tmuxctl"
)

// The core (package daemon) is the HTTP face's Core; it imports none of the daemon's
// outer parts (httpapi, watch, deliver): they are put together here.
var _ httpapi.Core = (*daemon.Core)(nil)

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

	// The command line; why the daemon exits goes to --report-exit's file, for start.
	f, err := parseDaemonFlags(e, args)
	if err != nil {
		return err
	}
	if f.reportExit != "" {
		defer func() { reportExit(f.reportExit, err) }()
	}

	// config.toml fills in what neither a flag nor the environment gave.
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	if err := checkConfig(cfg, configPath(e.getenv)); err != nil {
		return err
	}
	if err := f.fillFrom(cfg, e.getenv); err != nil {
		return err
	}

	// The log: standard error, or a file of its own, rotated.
	log, closeLog, err := daemonLog(f, e.stderr)
	if err != nil {
		return err
	}
	defer closeLog()

	// The delivery channels the config switches on.
	var channels []Channel
	relay, err := telegramRelay(cfg, e.getenv)
	if err != nil {
		return err
	}
	if relay != nil {
		channels = append(channels, relay)
	}

	err = serveDaemon(ctx, daemonConfig{
		Addr: f.addr, StateDir: f.stateDir, Cooldown: f.cooldown, Sweep: f.sweep, Settle: f.settle,
		NoWatch: f.noWatch, ScreenTick: f.screenTick, Reset: f.reset, OnStuck: cfg.OnStuck, Version: version, Log: log,
		PromptTTL: cfg.PromptTTL.Duration, HoldPermissions: cfg.Holds(), MaxReply: cfg.Delivery.MaxReplyLength,
		DeliveryOff: deliveryOff(cfg, configPath(e.getenv)),
		Channels:    channels,
		Hosts:       hostConfigs(cfg.Hosts),
	})
	// An address another program holds is said in the user's words, naming who set it.
	var inUse *httpapi.AddrInUseError
	if errors.As(err, &inUse) {
		source := "config"
		switch {
		case f.set["addr"]:
			source = "flag"
		case e.getenv("TRAILBOSS_ADDR") != "":
			source = "env"
		}
		return addrTaken(inUse.Addr, source, e.getenv)
	}
	return err
}

// daemonFlags is the daemon's command line.
type daemonFlags struct {
	addr, stateDir, reportExit, logFile string
	cooldown, sweep, settle, screenTick time.Duration
	noWatch, verbose, reset             bool
	logMax                              int64
	set                                 map[string]bool // the flags given
}

func parseDaemonFlags(e *env, args []string) (*daemonFlags, error) {
	f := &daemonFlags{}
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	fs.StringVar(&f.addr, "addr", "", "also listen on this loopback TCP address, such as "+exampleAddr+" (default $TRAILBOSS_ADDR, config addr; else the unix socket alone)")
	fs.StringVar(&f.stateDir, "state-dir", "", "state directory (default $TRAILBOSS_STATE_DIR, $XDG_STATE_HOME/trailboss)")
	fs.DurationVar(&f.cooldown, "cooldown", 60*time.Second, "how long a skipped item waits before it can be the head again")
	fs.DurationVar(&f.sweep, "sweep", 10*time.Second, "interval of the stat-only transcript sweep and the pane liveness check")
	fs.DurationVar(&f.settle, "settle", 1500*time.Millisecond, "how long a transcript that says \"waiting\" must stay quiet before it is queued")
	fs.BoolVar(&f.noWatch, "no-watch", false, "do not watch transcript folders (the sweep alone reconciles)")
	fs.DurationVar(&f.screenTick, "screen-tick", 500*time.Millisecond, "how often the screen adapter looks at panes without hooks (0: off)")
	fs.BoolVar(&f.verbose, "v", false, "log debug detail")
	fs.BoolVar(&f.reset, "reset", false, "move state.db aside (kept as state.db.reset-TIME) and start with an empty queue")
	fs.StringVar(&f.reportExit, "report-exit", "", "a file to write why the daemon exits into (trailboss start reads it)")
	fs.StringVar(&f.logFile, "log-file", "", "write the log to this file, rotated at --log-max-bytes with 3 old ones kept (trailboss start outside tmux: daemon.log)")
	fs.Int64Var(&f.logMax, "log-max-bytes", logfile.DefaultMaxBytes, "the size at which --log-file is rotated")
	if err := parse(fs, args, e.stderr); err != nil {
		return nil, err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return f, nil
}

// fillFrom takes from the environment and cfg what no flag gave, then checks the whole.
func (f *daemonFlags) fillFrom(cfg config.File, getenv func(string) string) (err error) {
	if !f.set["addr"] {
		f.addr = firstNonEmpty(getenv("TRAILBOSS_ADDR"), cfg.Addr)
	}
	for name, d := range map[string]struct {
		flag *time.Duration
		file config.Duration
	}{"cooldown": {&f.cooldown, cfg.Cooldown}, "sweep": {&f.sweep, cfg.Sweep}, "settle": {&f.settle, cfg.Settle}} {
		if !f.set[name] && d.file.Set {
			*d.flag = d.file.Duration
		}
	}
	if f.stateDir == "" {
		if f.stateDir, err = statedir.Default(); err != nil {
			return err
		}
	}
	if f.cooldown < 0 || f.sweep <= 0 || f.settle < 0 {
		return fmt.Errorf("%w: --cooldown and --settle must not be negative, --sweep must be positive", errUsage)
	}
	if f.logFile != "" && f.logMax <= 0 {
		return fmt.Errorf("%w: --log-max-bytes must be positive", errUsage)
	}
	return nil
}

// reportExit writes why the daemon exits into path, a file trailboss start made (never
// creating one).
func reportExit(path string, err error) {
	if err == nil {
		return
	}
	if f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0); ferr == nil {
		fmt.Fprintln(f, err)
		f.Close()
	}
}

// daemonLog returns the daemon's logger, to stderr or to f's rotated log file, and what
// closes it.
func daemonLog(f *daemonFlags, stderr io.Writer) (*slog.Logger, func(), error) {
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	logTo, closeLog := stderr, func() {}
	if f.logFile != "" {
		lf, err := logfile.Open(f.logFile, f.logMax, logfile.DefaultKeep)
		if err != nil {
			return nil, nil, err
		}
		if err := lf.CaptureStderr(); err != nil {
			_ = lf.Close()
			return nil, nil, err
		}
		logTo, closeLog = lf, func() { _ = lf.Close() }
	}
	return slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: level})), closeLog, nil
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
	Channels []Channel
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
	// The state directory, its lock, the listeners, the token and the store.
	st := &daemonState{cfg: cfg, log: cfg.Log}
	defer func() { st.close(err) }()
	if err := st.open(ctx); err != nil {
		return err
	}

	// The core, its faces and its watchers.
	d, err := wireDaemon(ctx, cfg, st)
	if err != nil {
		return err
	}
	defer d.tmux.Close()

	// Recorded once nothing more can fail, before serving (start reads the record as soon
	// as the daemon answers): a start that failed before here leaves the last daemon's
	// record, which is also how the next start knows that a daemon ran here (RanBefore).
	if err := st.lock.Record(st.where); err != nil {
		cfg.Log.Warn("clients may not find the daemon", "err", err)
	}
	st.serving = true
	defer func() { _ = statusfile.Remove(cfg.StateDir, os.Getpid()) }()
	return d.serve(ctx, cfg, st)
}

// daemonState is what the daemon holds in its state directory while it runs.
type daemonState struct {
	cfg       daemonConfig
	log       *slog.Logger
	sock      string // the unix socket's path
	where     string // where clients reach the daemon, for the lock's record
	lock      *statedir.Lock
	listeners []net.Listener
	token     string
	store     *store.Store
	made      []string // what this start created, removed again if it fails before serving
	serving   bool
}

// open takes the state directory (made private), its lock, the listeners (before anything
// slow, so that a taken address is said at once), the token and the store.
func (s *daemonState) open(ctx context.Context) (err error) {
	cfg := s.cfg
	if cfg.Addr != "" {
		if err := httpapi.CheckLoopback(cfg.Addr); err != nil {
			return err
		}
	}
	if s.sock, err = statedir.SocketPath(cfg.StateDir); err != nil {
		return err
	}
	tightened, createdDir, err := statedir.Ensure(cfg.StateDir)
	if err != nil {
		return err
	}
	if tightened {
		s.log.Warn(statedir.TightenedNote(cfg.StateDir))
	}
	if createdDir {
		s.made = append(s.made, cfg.StateDir) // removed only while empty
	}
	if n, err := statedir.PrivateFiles(cfg.StateDir); err != nil {
		return err
	} else if n > 0 {
		s.log.Warn("files in the state directory were readable by other users; they are now private", "count", n)
	}
	ranBefore := statedir.RanBefore(cfg.StateDir) // a record is written only after a start that worked
	s.where = s.sock
	if cfg.Addr != "" {
		s.where += " and " + cfg.Addr
	}
	if s.lock, err = statedir.Acquire(cfg.StateDir); err != nil {
		return err
	}
	ln, err := httpapi.ListenSocket(s.sock)
	if err != nil {
		return err
	}
	s.listeners = append(s.listeners, ln)
	if cfg.Addr != "" {
		tcp, err := httpapi.Listen(cfg.Addr)
		if err != nil {
			return err
		}
		// Another local user can connect to a loopback port too: their connections are
		// closed as they are accepted, so that they cannot hold the operator's slots.
		s.listeners = append(s.listeners, httpapi.OwnerOnly(tcp, os.Getuid(), s.log.With("component", "api")))
	}
	token, createdToken, err := statedir.MakeToken(cfg.StateDir)
	if err != nil {
		return err
	}
	s.token = token
	if createdToken {
		s.made = append(s.made, filepath.Join(cfg.StateDir, statedir.TokenFile))
	}
	dbMade := store.FilesAbsent(cfg.StateDir)
	s.store, err = store.OpenIn(ctx, cfg.StateDir, cfg.Reset, ranBefore)
	s.made = append(s.made, dbMade...)
	return err
}

// close lets go of what open took. err is how the daemon ends: with one, the lock is
// abandoned (its record kept), and before serving, what this start made is removed.
func (s *daemonState) close(err error) {
	if s.store != nil {
		s.store.Close()
	}
	for _, ln := range s.listeners {
		ln.Close()
	}
	if s.lock != nil {
		release := s.lock.Release
		if err != nil {
			release = s.lock.Abandon
		}
		if rerr := release(); rerr != nil {
			s.log.Warn("release the state directory's lock", "err", rerr)
		}
	}
	if err == nil || s.serving {
		return
	}
	for i := len(s.made) - 1; i >= 0; i-- {
		rerr := os.Remove(s.made[i])
		if rerr != nil && !errors.Is(rerr, os.ErrNotExist) && !errors.Is(rerr, syscall.ENOTEMPTY) {
			s.log.Warn("remove what a failed start made", "path", s.made[i], "err", rerr)
		}
	}
}

// daemonParts is the daemon wired: the core, its faces and its watchers.
type daemonParts struct {
	engine    *daemon.Engine
	tmux      *tmuxctl.Pool
	ingest    *daemon.Ingestor
	deliverer *deliver.Deliverer
	core      *daemon.Core
	srv       *http.Server
	remotes   *hosts.Set
	screens   *watch.ScreenWatcher
	rec       *watch.Reconciler
	hook      *onstuck.Runner
	// jumps says where the jump key lands on each tmux server (httpapi.Server.JumpPanes).
	jumps func(socket string) (head, next string)
}

// wireDaemon makes the engine on st's store and wires the daemon's parts to it.
func wireDaemon(ctx context.Context, cfg daemonConfig, st *daemonState) (*daemonParts, error) {
	log := cfg.Log
	engine, err := daemon.NewEngine(ctx, st.store, cfg.Cooldown, log.With("component", "engine"))
	if err != nil {
		return nil, err
	}
	if cfg.PromptTTL > 0 {
		engine.PromptTTL = cfg.PromptTTL
	}
	d := &daemonParts{engine: engine}
	if cfg.OnStuck != "" {
		d.hook = &onstuck.Runner{Command: cfg.OnStuck, Log: log.With("component", "on_stuck")}
		engine.OnStuck = d.hook.Enqueue
	}
	// One tmux control client per tmux server serves the hot paths' tmux commands (the
	// jump, status pushes, identity checks and captures) without starting a process.
	d.tmux = &tmuxctl.Pool{}
	d.ingest = &daemon.Ingestor{Engine: engine, Now: wallclock.Now, Log: log.With("component", "ingest")}
	holds, ptys := &daemon.Holds{}, &ptyhub.PTYHub{}
	off := cfg.DeliveryOff
	if len(cfg.Channels) > 0 {
		off = "" // configuring a remote channel switched delivery on
	}
	d.deliverer = &deliver.Deliverer{Engine: engine, Tmux: d.tmux.Server, PTY: ptys, Holds: holds, MaxReply: cfg.MaxReply,
		SilentApproval: daemon.SilentApprovals(), Typing: daemon.TypingRules(), Off: off, Log: log.With("component", "deliver")}
	d.core = &daemon.Core{Engine: engine, Log: log.With("component", "api"), Ingest: d.ingest,
		Holds: holds, PTY: ptys, HoldPermissions: cfg.HoldPermissions || len(cfg.Channels) > 0, DeliveryChannels: channelStatuses(cfg.Channels),
		Off:     off,
		Deliver: d.deliverer}
	api := &httpapi.Server{Core: d.core, Token: st.token, Version: cfg.Version, Log: log.With("component", "api"), Tmux: d.tmux.Server}
	if len(cfg.Hosts) > 0 {
		d.remotes = hosts.New(cfg.Hosts, cfg.StateDir, cfg.Version, log.With("component", "hosts"))
		d.remotes.Audit = engine.RecordDelivery // a channel's answers that it forwards
		api.Hosts = d.remotes
	}
	d.jumps = api.JumpPanes
	if off == "" {
		log.Info("delivery is on: answers from the popup, trailboss reply and the channels are typed into panes")
	}
	if cfg.ScreenTick > 0 {
		d.screens = &watch.ScreenWatcher{Engine: engine, Tmux: d.tmux.Server, Tick: cfg.ScreenTick, Quiet: 2,
			Discover: cfg.Sweep, Servers: watch.KnownServers(engine, os.Getenv), Covered: daemon.FullyHooked(),
			Commands: daemon.ScreenCommands(), Log: log.With("component", "screen")}
		d.core.Screens = d.screens
	}
	d.srv = &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		ConnContext: httpapi.ConnContext}
	d.rec = &watch.Reconciler{
		Engine: engine, Readers: daemon.TranscriptReaders(), Sweep: cfg.Sweep, Settle: cfg.Settle, Watch: !cfg.NoWatch,
		Log:      log.With("component", "reconcile"),
		Liveness: &watch.Liveness{Engine: engine, Log: log.With("component", "liveness"), Tmux: d.tmux.Server},
	}
	return d, nil
}

// serve runs every part of d, each in its own goroutine, until ctx ends or one fails, then
// shuts the HTTP server down.
func (d *daemonParts) serve(ctx context.Context, cfg daemonConfig, st *daemonState) error {
	log := cfg.Log
	g, gctx := errgroup.WithContext(ctx)
	d.core.Done = gctx.Done()
	g.Go(func() error { return d.engine.RunPromptExpiry(gctx, time.Second) })
	for _, ln := range st.listeners {
		g.Go(func() error {
			if err := d.srv.Serve(httpapi.LimitListen(ln, httpapi.MaxConns)); !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("serve %s: %w", ln.Addr(), err)
			}
			return nil
		})
	}
	g.Go(func() error { return d.rec.Run(gctx) })
	for _, live := range liveStateWatchers(d.engine, d.tmux.Server, cfg.Sweep, !cfg.NoWatch, log) {
		g.Go(func() error { return live.Run(gctx) })
	}
	drainer := &daemon.SpoolDrainer{Ingest: d.ingest, StateDir: cfg.StateDir, Interval: time.Second, Log: log.With("component", "spool")}
	g.Go(func() error { return drainer.Run(gctx) })
	if d.screens != nil {
		g.Go(func() error { return d.screens.Run(gctx) })
	}
	status := &tmuxstatus.Publisher{Engine: d.engine, Tmux: d.tmux.Server, Log: log.With("component", "status"), Jumps: d.jumps,
		OnLine: func(line string) {
			if err := statusfile.Write(cfg.StateDir, line, os.Getpid()); err != nil {
				log.Warn("the status file for shell prompts is not current", "err", err)
			}
		}}
	if d.remotes != nil {
		status.Hosts = d.remotes
		g.Go(func() error { return d.remotes.Run(gctx) })
	}
	g.Go(func() error { return status.Run(gctx) })
	if d.hook != nil {
		g.Go(func() error { return d.hook.Run(gctx) })
	}
	for _, ch := range cfg.Channels {
		host := ChannelHost{Engine: d.engine, Deliver: d.deliverer, Store: st.store, Tmux: d.tmux.Server,
			Log: log.With("component", ch.Name()), Now: time.Now, Hosts: d.remotes}
		g.Go(func() error { return ch.Run(gctx, host) })
	}
	g.Go(func() error {
		<-gctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return d.srv.Shutdown(shutdownCtx)
	})
	log.Info("daemon listening", "socket", st.sock, "addr", cfg.Addr, "state", cfg.StateDir, "pid", os.Getpid())
	err := g.Wait()
	log.Info("daemon stopped")
	return err
}
