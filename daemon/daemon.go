// Package daemon is Trail Boss's control plane: it ingests events into the queue
// (engine.go); its HTTP face is package httpapi, and its watchers (package watch)
// reconcile against transcripts and live state files and retire sessions whose panes are gone.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/onstuck"
	"github.com/trailboss/trailboss/daemon/ptyhub"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/tmuxstatus"
	"github.com/trailboss/trailboss/daemon/watch"
	"github.com/trailboss/trailboss/tmuxctl"
)

// Config is what the daemon needs to run.
type Config struct {
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
	PromptTTL       time.Duration // how long a prompt record takes answers; 0: DefaultPromptTTL
	HoldPermissions bool          // PermissionRequest hooks hold for an answer
	// DeliveryOff, when not empty, keeps delivery off (nothing typed, no hook held) and is
	// what an answer is refused with: how to turn it on. A remote channel in Channels
	// means the operator switched delivery on.
	DeliveryOff string
	MaxReply    int // characters of a typed reply; 0: DefaultMaxReply
	// Channels run beside the daemon and deliver answers from elsewhere (Telegram). A
	// remote channel turns holding on: HoldPermissions is then taken as true.
	Channels []Channel
	Version  string
	Log      *slog.Logger
}

// ErrNotLoopback is returned for an address that is not on the loopback interface.
var ErrNotLoopback = errors.New("not a loopback address")

// CheckLoopback returns an error unless addr is host:port with a loopback host.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if !httpapi.IsLoopbackHost(host) {
		return fmt.Errorf("refusing to listen on %q: %w (use 127.0.0.1 or [::1])", addr, ErrNotLoopback)
	}
	return nil
}

// ErrStateLost is returned when state.db is gone or empty although a daemon ran here before: the
// queue it held would be silently lost, so the operator must say --reset.
var ErrStateLost = errors.New("state database is missing")

// openStore opens state.db. A corrupt file, or one deleted since the last run, is an error
// that says how to start fresh; with cfg.Reset the old file is moved aside first.
func openStore(ctx context.Context, cfg Config, ranBefore bool) (*store.Store, error) {
	path := filepath.Join(cfg.StateDir, statedir.DBFile)
	if cfg.Reset {
		if err := moveAside(path); err != nil {
			return nil, err
		}
	} else if fi, err := os.Stat(path); ranBefore && (errors.Is(err, os.ErrNotExist) || err == nil && fi.Size() == 0) {
		what := "is gone"
		if err == nil {
			what = "is empty (0 bytes)"
		}
		return nil, fmt.Errorf("%w: %s %s, but a daemon ran with this state directory before; "+
			"to start with an empty queue, run: trailboss daemon --reset", ErrStateLost, path, what)
	}
	st, err := store.Open(ctx, path)
	if errors.Is(err, store.ErrCorrupt) {
		return nil, fmt.Errorf("%w\nto move it aside and start with an empty queue, run: trailboss daemon --reset", err)
	}
	return st, err
}

// dbFilesAbsent returns the database files (state.db, -wal, -shm) of dir that do not exist
// yet: opening the store creates them.
func dbFilesAbsent(dir string) []string {
	var absent []string
	for _, suffix := range []string{"", "-wal", "-shm"} {
		path := filepath.Join(dir, statedir.DBFile+suffix)
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			absent = append(absent, path)
		}
	}
	return absent
}

// moveAside renames path (and its WAL files) to path.reset-<time>, keeping it for a post-mortem.
func moveAside(path string) error {
	stamp := time.Now().UTC().Format("20060102T150405")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Rename(path+suffix, path+".reset-"+stamp+suffix)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("reset: %w", err)
		}
	}
	return nil
}

// ErrAddrInUse is returned when another program listens on the daemon's address.
var ErrAddrInUse = errors.New("address in use")

// AddrInUseError is ErrAddrInUse with the address; the command that started the daemon
// knows which setting chose it, and so how to move it.
type AddrInUseError struct{ Addr string }

func (e *AddrInUseError) Error() string {
	return e.Addr + " is taken by another program, so the daemon cannot listen there; choose another address"
}

// Is makes errors.Is(err, ErrAddrInUse) hold.
func (e *AddrInUseError) Is(target error) bool { return target == ErrAddrInUse }

// listen listens on addr, saying in a user's words what to do when it is taken.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, &AddrInUseError{Addr: addr}
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

// Run serves until ctx ends, then shuts down gracefully. A start that fails (the address
// is taken, the state cannot be opened) leaves the state directory as it found it: what
// this start created there is removed, and the lock's record of the last daemon is kept.
func Run(ctx context.Context, cfg Config) (err error) {
	log := cfg.Log
	if cfg.Addr != "" {
		if err := CheckLoopback(cfg.Addr); err != nil {
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
		tcp, err := listen(cfg.Addr)
		if err != nil {
			return err
		}
		listeners = append(listeners, tcp)
	}
	token, createdToken, err := statedir.MakeToken(cfg.StateDir)
	if err != nil {
		return err
	}
	if createdToken {
		made = append(made, filepath.Join(cfg.StateDir, statedir.TokenFile))
	}
	dbMade := dbFilesAbsent(cfg.StateDir)
	st, err := openStore(ctx, cfg, ranBefore)
	made = append(made, dbMade...)
	if err != nil {
		return err
	}
	defer st.Close()
	engine, err := NewEngine(ctx, st, cfg.Cooldown, log.With("component", "engine"))
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

	ingest := &Ingestor{Engine: engine, Now: time.Now, Log: log.With("component", "ingest")}
	holds, ptys := &Holds{}, &ptyhub.PTYHub{}
	off := cfg.DeliveryOff
	if len(cfg.Channels) > 0 {
		off = "" // configuring a remote channel switched delivery on
	}
	core := &Core{Engine: engine, Log: log.With("component", "api"), Ingest: ingest,
		Holds: holds, PTY: ptys, HoldPermissions: cfg.HoldPermissions || len(cfg.Channels) > 0, DeliveryChannels: cfg.Channels,
		Off: off,
		Deliver: &Deliverer{Engine: engine, Tmux: tmuxctl.New, PTY: ptys, Holds: holds, MaxReply: cfg.MaxReply,
			Off: off, Log: log.With("component", "deliver")}}
	api := &httpapi.Server{Core: core, Token: token, Version: cfg.Version, Log: log.With("component", "api")}
	if off == "" {
		log.Info("delivery is on: answers from the popup, trailboss reply and the channels are typed into panes")
	}
	var screens *ScreenWatcher
	if cfg.ScreenTick > 0 {
		screens = &watch.ScreenWatcher{Engine: engine, Tmux: tmuxctl.New, Tick: cfg.ScreenTick, Quiet: 2,
			Discover: cfg.Sweep, Servers: watch.KnownServers(engine, os.Getenv), Covered: fullyHooked,
			Log: log.With("component", "screen")}
		core.Screens = screens
	}
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		ConnContext: httpapi.ConnContext}
	rec := &watch.Reconciler{
		Engine: engine, Dialogs: dialogs, Readers: transcriptReaders, Sweep: cfg.Sweep, Settle: cfg.Settle, Watch: !cfg.NoWatch,
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
	for _, live := range liveStateWatchers(engine, dialogs, cfg, log) {
		g.Go(func() error { return live.Run(gctx) })
	}
	drainer := &SpoolDrainer{Ingest: ingest, StateDir: cfg.StateDir, Interval: time.Second, Log: log.With("component", "spool")}
	g.Go(func() error { return drainer.Run(gctx) })
	if screens != nil {
		g.Go(func() error { return screens.Run(gctx) })
	}
	status := &tmuxstatus.Publisher{Engine: engine, Tmux: tmuxctl.New, Log: log.With("component", "status")}
	g.Go(func() error { return status.Run(gctx) })
	if hook != nil {
		g.Go(func() error { return hook.Run(gctx) })
	}
	for _, ch := range cfg.Channels {
		host := ChannelHost{Engine: engine, Deliver: core.Deliver, Store: st, Tmux: tmuxctl.New,
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
