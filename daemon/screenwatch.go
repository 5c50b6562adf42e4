package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/tmuxctl"
)

// The screen adapter: for agents that report no hooks, the daemon reads their screens.
// It never polls each pane: one list-panes call per tick covers every pane of a server,
// and a pane is captured only when its output went quiet after changing. A quiet screen
// that shows a prompt or an idle input box queues the session; new output or input
// dequeues it. A spinner keeps changing, so it is never captured, let alone queued.

// agentCommands are the foreground processes whose panes are watched without being asked.
var agentCommands = map[string]bool{"claude": true, "codex": true, "gemini": true, "aider": true}

// screenSessionPrefix marks the sessions the screen adapter made up (one per pane), so
// they are never confused with a session a hook reported.
const screenSessionPrefix = "screen:"

// ScreenWatcher watches panes that run an agent but report no hooks.
type ScreenWatcher struct {
	Engine   *Engine
	Tmux     func(socket string) *tmuxctl.Server
	Tick     time.Duration // how often one list-panes looks at every watched pane
	Quiet    int           // ticks a pane must stay unchanged after a change before it is read
	Discover time.Duration // how often agent panes without hooks are looked for
	Servers  func() []string
	Log      *slog.Logger

	mu       sync.Mutex
	explicit map[paneKey]string // `trailboss watch`: pane → harness
	watched  map[paneKey]*watchState
}

type paneKey struct{ socket, pane string }

type watchState struct {
	harness  string
	explicit bool
	last     string  // the pane's output state at the last tick
	stable   int     // ticks since it last changed
	read     bool    // captured since the last change
	stuck    bool    // we queued it and nothing changed since
	bound    binding // the session another adapter bound to the pane; zero for our own
}

// sessionID is the made-up session of a watched pane.
func (k paneKey) sessionID() string { return screenSessionPrefix + k.pane + "@" + k.socket }

// Watch adds a pane to watch until it is gone or Unwatch; harness names what runs there.
func (w *ScreenWatcher) Watch(socket, pane, harness string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.init()
	k := paneKey{socket, pane}
	w.explicit[k] = harness
	if st, ok := w.watched[k]; ok {
		st.explicit, st.harness = true, harness
	} else {
		w.watched[k] = &watchState{harness: harness, explicit: true}
	}
}

// Unwatch stops watching a pane and reports whether it was watched.
func (w *ScreenWatcher) Unwatch(socket, pane string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.init()
	k := paneKey{socket, pane}
	_, was := w.explicit[k]
	delete(w.explicit, k)
	delete(w.watched, k)
	return was
}

// Watched returns the watched panes as "pane@socket harness (how)", for doctor and tests.
func (w *ScreenWatcher) Watched() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for k, st := range w.watched {
		how := "found"
		if st.explicit {
			how = "asked"
		}
		out = append(out, k.pane+"@"+k.socket+" "+st.harness+" ("+how+")")
	}
	return out
}

func (w *ScreenWatcher) init() {
	if w.watched == nil {
		w.watched = make(map[paneKey]*watchState)
		w.explicit = make(map[paneKey]string)
	}
}

// Run watches until ctx ends.
func (w *ScreenWatcher) Run(ctx context.Context) error {
	w.mu.Lock()
	w.init()
	w.mu.Unlock()
	tick := time.NewTicker(w.Tick)
	defer tick.Stop()
	discover := time.NewTicker(w.Discover)
	defer discover.Stop()
	w.discover(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-discover.C:
			w.discover(ctx)
		case <-tick.C:
			w.tick(ctx)
		}
	}
}

// bindings returns, for each pane a session reported by another adapter is bound to, that
// session. Claude Code's hooks cover every wait (and its transcript covers Esc), so its
// panes are left alone: covered reports them. Other adapters may see only part of the
// story (Codex's notify reports a turn's end, not an approval prompt), so their panes are
// still read, and what the screen shows is reported as their session, never as a second
// session fighting for the pane.
func (w *ScreenWatcher) bindings() (bound map[paneKey]binding, covered map[paneKey]bool) {
	bound, covered = make(map[paneKey]binding), make(map[paneKey]bool)
	for _, s := range w.Engine.Snapshot() {
		if s.Pane == "" || strings.HasPrefix(s.ID, screenSessionPrefix) {
			continue
		}
		k := paneKey{s.TmuxSocket, s.Pane}
		if s.Harness == fullyHookedHarness {
			covered[k] = true
		} else {
			bound[k] = binding{s.ID, s.Harness}
		}
	}
	return bound, covered
}

// binding is the session another adapter bound to a pane.
type binding struct{ session, harness string }

// fullyHookedHarness is the harness whose hooks report every kind of wait.
const fullyHookedHarness = "claude"

// discover adds the agent panes of every known tmux server that no hook reports.
func (w *ScreenWatcher) discover(ctx context.Context) {
	_, covered := w.bindings()
	for _, socket := range w.Servers() {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		states, err := w.Tmux(socket).PaneStates(cctx)
		cancel()
		if err != nil {
			continue // no server there (yet): nothing to watch
		}
		w.mu.Lock()
		for _, p := range states {
			k := paneKey{socket, p.ID}
			if _, ok := w.watched[k]; ok || p.Dead || !agentCommands[p.Command] || covered[k] {
				continue
			}
			w.watched[k] = &watchState{harness: p.Command, last: p.Changed}
			w.Log.Info("watching an agent pane that reports no hooks", "pane", p.ID, "socket", socket, "agent", p.Command)
		}
		w.mu.Unlock()
	}
}

// tick looks at every watched pane with one list-panes per server, and reads the screens
// that went quiet after a change.
func (w *ScreenWatcher) tick(ctx context.Context) {
	w.mu.Lock()
	bySocket := make(map[string]bool)
	for k := range w.watched {
		bySocket[k.socket] = true
	}
	w.mu.Unlock()
	if len(bySocket) == 0 {
		return
	}
	bound, covered := w.bindings()
	for socket := range bySocket {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		states, err := w.Tmux(socket).PaneStates(cctx)
		cancel()
		if err != nil {
			w.Log.Debug("screen watch: list panes", "socket", socket, "err", err)
			continue
		}
		present := make(map[string]tmuxctl.PaneState, len(states))
		for _, p := range states {
			present[p.ID] = p
		}
		w.mu.Lock()
		var read []paneKey
		var events []adapter.Event
		for k, st := range w.watched {
			if k.socket != socket {
				continue
			}
			p, ok := present[k.pane]
			if !ok || p.Dead || covered[k] {
				delete(w.watched, k) // gone, or Claude's hooks report it now
				continue
			}
			st.bound = bound[k]
			if p.Changed != st.last {
				st.last, st.stable, st.read = p.Changed, 0, false
				if st.stuck {
					st.stuck = false // new output or input: it moved on
					events = append(events, w.event(k, st, adapter.KindUnstuck, termprompt.Result{}))
				}
				continue
			}
			st.stable++
			if st.stable >= w.Quiet && !st.read {
				st.read = true
				read = append(read, k)
			}
		}
		w.mu.Unlock()
		for _, ev := range events {
			w.ingest(ctx, ev)
		}
		for _, k := range read {
			_ = guard(w.Log, "reading a pane's screen", []any{"pane", k.pane, "socket", k.socket}, func() {
				w.read(ctx, k)
			})
		}
	}
}

// read captures one quiet pane and queues it when its screen waits for the human.
func (w *ScreenWatcher) read(ctx context.Context, k paneKey) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	screen, err := w.Tmux(k.socket).CapturePane(cctx, k.pane)
	cancel()
	if err != nil {
		return
	}
	r := termprompt.Classify(screen)
	waiting := r.Kind != termprompt.Unknown && r.Kind != termprompt.Busy && r.Confidence >= 0.6
	w.mu.Lock()
	st, ok := w.watched[k]
	if !ok || !waiting || st.stuck {
		w.mu.Unlock()
		return
	}
	st.stuck = true
	ev := w.event(k, st, adapter.KindStuck, r)
	w.mu.Unlock()
	w.ingest(ctx, ev)
}

// event is a screen event of pane k; r says what the screen shows for a stuck one.
func (w *ScreenWatcher) event(k paneKey, st *watchState, kind adapter.Kind, r termprompt.Result) adapter.Event {
	ev := adapter.Event{Harness: st.harness, SessionID: k.sessionID(), Kind: kind, Pane: k.pane,
		TmuxSocket: k.socket, At: time.Now()}
	if st.bound.session != "" {
		ev.SessionID, ev.Harness = st.bound.session, st.bound.harness
	}
	if kind != adapter.KindStuck {
		return ev
	}
	ev.Reason, ev.Detail = adapter.ReasonStopped, r.Screen
	switch {
	case r.Kind == termprompt.YesNo, r.Kind == termprompt.MultipleChoice, r.Kind == termprompt.PressEnter:
		ev.Reason = adapter.ReasonPermission
	case r.Screen == termprompt.ScreenIdle:
		ev.Detail = "idle"
	}
	if ev.Detail == "" {
		ev.Detail = r.Kind.String()
	}
	ev.Summary = screenSummary(r)
	return ev
}

// screenSummary is the question with its choices: "Do you want to proceed? [1. Yes / 2. No]".
func screenSummary(r termprompt.Result) string {
	var labels []string
	for _, c := range r.Choices {
		if c.Key == termprompt.KeyEnter {
			labels = append(labels, "Enter")
			continue
		}
		labels = append(labels, c.Key+". "+c.Label)
	}
	s := r.Question
	if s == "" && r.Screen == termprompt.ScreenIdle {
		s = "waiting at its input box"
	}
	if len(labels) > 0 {
		s += " [" + strings.Join(labels, " / ") + "]"
	}
	return adapter.CleanText(strings.TrimSpace(s), adapter.MaxSummaryLen)
}

func (w *ScreenWatcher) ingest(ctx context.Context, ev adapter.Event) {
	if _, err := w.Engine.Ingest(ctx, ev); err != nil {
		w.Log.Warn("screen watch", "pane", ev.Pane, "err", err)
	}
}

// knownServers returns the tmux servers to look for agent panes on: the servers of known
// sessions, the server the daemon runs in, and the user's default server.
func knownServers(e *Engine, getenv func(string) string) func() []string {
	return func() []string {
		set := map[string]bool{}
		for _, s := range e.Snapshot() {
			if s.TmuxSocket != "" {
				set[s.TmuxSocket] = true
			}
		}
		if s, err := adapter.SocketFromTmuxEnv(getenv("TMUX")); err == nil && s != "" {
			set[s] = true
		}
		dir := getenv("TMUX_TMPDIR")
		if dir == "" {
			dir = "/tmp"
		}
		if def := filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), "default"); IsSocket(def) {
			set[def] = true
		}
		out := make([]string, 0, len(set))
		for s := range set {
			out = append(out, s)
		}
		return out
	}
}
