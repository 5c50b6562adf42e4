package watch

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/guard"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/tmuxctl"
)

// The screen adapter: for agents that report no hooks, the daemon reads their screens.
// It never polls each pane: one list-panes call per tick covers every pane of a server,
// and a pane is captured only when its output went quiet after changing. A quiet screen
// that shows a prompt or an idle input box queues the session; new output or input
// dequeues it. A spinner keeps changing, so it is never queued.
//
// Quiet is about what the screen shows. list-panes tells two things apart: the pane's
// history size and cursor (when they move, the pane surely drew something) and its
// window's activity time (when only that moves, something was written to the window, which
// may change nothing on screen: a harness may rewrite the terminal title every second while
// it waits for an approval, and a sibling pane's output moves it too). A pane whose activity
// alone moved is captured, and it is quiet when its text is what it was at the last
// capture. Those captures, and the reads of panes that went quiet, are one tmux call per
// tick for all of them; a pane where nothing is written costs nothing but its share of
// list-panes.

// interpreters are foreground processes that may run an agent as a script which starts the
// agent as its child: an agent installed from npm may be a Node script that spawns its
// native binary, so its pane's current command is "node" (the harness's adapter says which,
// beside its Command). Only for these is the process tree read (once per run of the
// command: see agentBehind).
var interpreters = map[string]bool{"node": true}

// screenSessionPrefix marks the sessions the screen adapter made up (one per pane), so
// they are never confused with a session a hook reported.
const screenSessionPrefix = "screen:"

// ScreenWatcher watches panes that run an agent but report no hooks.
type ScreenWatcher struct {
	Engine   ScreenEngine
	Tmux     func(socket string) *tmuxctl.Server
	Tick     time.Duration // how often one list-panes looks at every watched pane
	Quiet    int           // ticks a pane must stay unchanged after a change before it is read
	Discover time.Duration // how often agent panes without hooks are looked for
	Servers  func() []string
	Log      *slog.Logger
	// Covered are the harnesses whose hooks report every kind of wait (a plugin that also
	// answers its dialogs itself among them, so a screen reading of them must not replace
	// the record it holds for): their panes are left alone.
	Covered map[string]bool
	// Commands names, by the foreground command of a pane, the harness that runs there: the
	// panes watched without being asked.
	Commands map[string]string
	// ForegroundGroup and ChildCommands read the process tree (tmuxctl's when nil).
	ForegroundGroup func(pid int) (int, error)
	ChildCommands   func(pid int) ([]string, error)

	mu       sync.Mutex
	explicit map[paneKey]string // `trailboss watch`: pane → harness
	watched  map[paneKey]*watchState
	behind   map[paneKey]behindRun // what runs under an interpreter, per run of it
	seed     maphash.Seed
}

// behindRun is the agent (or "") found under the interpreter of one run of a pane's
// foreground command: the pane's process and its foreground process group name the run.
type behindRun struct {
	panePID, pgid int
	agent         string
}

type paneKey struct{ socket, pane string }

type watchState struct {
	harness  string
	explicit bool
	drawn    string  // the pane's history size and cursor at the last tick
	activity int64   // its window's activity time at the last tick
	hash     uint64  // its text at the last capture since drawn last moved, if hashed
	hashed   bool    // hash is set
	stable   int     // ticks since it last changed
	read     bool    // classified since the last change
	stuck    bool    // it waits as we read it, and nothing changed since
	saw      string  // the reason it waited for as we read it last (stuck's reason)
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
		w.behind = make(map[paneKey]behindRun)
		w.seed = maphash.MakeSeed()
	}
	if w.ForegroundGroup == nil {
		w.ForegroundGroup = tmuxctl.ForegroundGroup
	}
	if w.ChildCommands == nil {
		w.ChildCommands = tmuxctl.ChildCommands
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
// session. The hooks of some harnesses cover every wait (with the transcript covering
// Esc), or a plugin does, so their panes are left alone: covered reports them (Covered).
// Other adapters may see only part of the story (a notify that reports a turn's end, not
// an approval prompt), so their panes are still read, and what the screen shows is
// reported as their session, never as a second session fighting for the pane.
func (w *ScreenWatcher) bindings() (bound map[paneKey]binding, covered map[paneKey]bool) {
	bound, covered = make(map[paneKey]binding), make(map[paneKey]bool)
	for _, s := range w.Engine.Snapshot() {
		if s.Pane == "" || strings.HasPrefix(s.ID, screenSessionPrefix) {
			continue
		}
		k := paneKey{s.TmuxSocket, s.Pane}
		if w.Covered[s.Harness] {
			covered[k] = true
		} else {
			bound[k] = binding{s.ID, s.Harness, s.Stuck, s.Reason}
		}
	}
	return bound, covered
}

// binding is the session another adapter bound to a pane, and what the queue says of it.
type binding struct {
	session, harness string
	stuck            bool
	reason           string
}

// discover adds the agent panes of every known tmux server that no hook reports.
func (w *ScreenWatcher) discover(ctx context.Context) {
	_, covered := w.bindings()
	for _, socket := range w.Servers() {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		states, err := w.Tmux(socket).PaneProcesses(cctx)
		cancel()
		if err != nil {
			continue // no server there (yet): nothing to watch
		}
		w.mu.Lock()
		live := make(map[paneKey]bool, len(states))
		for _, p := range states {
			k := paneKey{socket, p.ID}
			live[k] = true
			if _, ok := w.watched[k]; ok || p.Dead || covered[k] {
				continue
			}
			agent := p.Command
			if interpreters[agent] {
				agent = w.agentBehind(k, p.PID)
			}
			harness, ok := w.Commands[agent]
			if !ok {
				continue
			}
			w.watched[k] = &watchState{harness: harness} // its first tick counts as a change
			w.Log.Info("watching an agent pane that reports no hooks", "pane", p.ID, "socket", socket,
				"agent", agent, "harness", harness, "command", p.Command)
		}
		for k := range w.behind {
			if k.socket == socket && !live[k] {
				delete(w.behind, k)
			}
		}
		w.mu.Unlock()
	}
}

// agentBehind returns the agent that the interpreter in the foreground of pane k runs as
// its child (an npm-installed agent's native binary under node), or "". The answer is kept for the run of the command
// (the pane's process and its foreground group): each later look costs one read of
// /proc/PID/stat. An interpreter that has started nothing yet is looked at again next time.
func (w *ScreenWatcher) agentBehind(k paneKey, panePID int) string {
	pgid, err := w.ForegroundGroup(panePID)
	if err != nil || pgid == 0 {
		return ""
	}
	if run, ok := w.behind[k]; ok && run.panePID == panePID && run.pgid == pgid {
		return run.agent
	}
	names, err := w.ChildCommands(pgid)
	if err != nil || len(names) == 0 {
		return ""
	}
	run := behindRun{panePID: panePID, pgid: pgid}
	for _, n := range names {
		if _, ok := w.Commands[n]; ok {
			run.agent = n
			break
		}
	}
	w.behind[k] = run
	return run.agent
}

// tick looks at every watched pane with one list-panes per server, captures the panes whose
// window was written to without their cursor moving (to see whether their text changed)
// and the ones that went quiet, in one more tmux call, and reads the quiet ones.
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
		w.tickServer(ctx, socket, bound, covered)
	}
}

// tickServer is one tick for the watched panes of one tmux server. Its list-panes asks for
// nothing about the panes' processes, which would cost tmux a look at every pane's.
func (w *ScreenWatcher) tickServer(ctx context.Context, socket string, bound map[paneKey]binding, covered map[paneKey]bool) {
	srv := w.Tmux(socket)
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	states, err := srv.PaneStates(cctx)
	cancel()
	if err != nil {
		w.Log.Debug("screen watch: list panes", "socket", socket, "err", err)
		return
	}
	present := make(map[string]tmuxctl.PaneState, len(states))
	for _, p := range states {
		present[p.ID] = p
	}
	events, check, quiet, activity := w.sortPanes(socket, present, bound, covered)
	var screens map[string]string
	if len(check)+len(quiet) > 0 {
		panes := make([]string, 0, len(check)+len(quiet))
		for _, k := range append(check, quiet...) {
			panes = append(panes, k.pane)
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		screens, err = srv.CapturePanes(cctx, panes)
		cancel()
		if err != nil {
			w.Log.Debug("screen watch: capture panes", "socket", socket, "err", err)
			screens = nil // every capture counts as missing: looked at again next tick
		}
	}
	toRead := make(map[paneKey]string)
	w.mu.Lock()
	for _, k := range check {
		st, ok := w.watched[k]
		screen, captured := screens[k.pane]
		if !ok || !captured {
			continue
		}
		st.activity = activity[k]
		h := maphash.String(w.seed, screen)
		if st.hashed && h == st.hash {
			// Written to, yet the text is what it was: a title, a sibling pane, a redraw.
			if w.quiet(st) {
				toRead[k] = screen
			}
			continue
		}
		st.hash, st.hashed = h, true
		events = w.moved(k, st, events)
	}
	for _, k := range quiet {
		st, ok := w.watched[k]
		screen, captured := screens[k.pane]
		if !ok || !captured {
			if ok {
				st.read = false // not captured this time: read it next tick
			}
			continue
		}
		st.hash, st.hashed = maphash.String(w.seed, screen), true
		toRead[k] = screen
	}
	w.mu.Unlock()
	for _, ev := range events {
		w.ingest(ctx, ev)
	}
	for k, screen := range toRead {
		_ = guard.Run(w.Log, "reading a pane's screen", []any{"pane", k.pane, "socket", k.socket}, func() {
			w.read(ctx, k, screen)
		})
	}
}

// sortPanes sorts the watched panes of socket by what tmux says of them (present): a pane
// drawn anew has moved (its events are returned), one written to is captured to compare
// (check, with its activity), a quiet one is captured to read; a pane gone, or that hooks
// report now, is no longer watched.
func (w *ScreenWatcher) sortPanes(socket string, present map[string]tmuxctl.PaneState, bound map[paneKey]binding,
	covered map[paneKey]bool) (events []adapter.Event, check, quiet []paneKey, activity map[paneKey]int64) {
	activity = make(map[paneKey]int64)
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, st := range w.watched {
		if k.socket != socket {
			continue
		}
		p, ok := present[k.pane]
		if !ok || p.Dead || covered[k] {
			delete(w.watched, k) // gone, or hooks that cover every wait report it now
			continue
		}
		st.bound = bound[k]
		switch {
		case p.Drawn != st.drawn:
			st.drawn, st.activity, st.hashed = p.Drawn, p.Activity, false
			events = w.moved(k, st, events)
		case p.Activity != st.activity:
			check, activity[k] = append(check, k), p.Activity
		default:
			if w.quiet(st) {
				quiet = append(quiet, k)
			}
		}
	}
	return events, check, quiet, activity
}

// moved records that pane k's screen changed, and returns events with the unstuck event of
// a pane that was waiting: new output or input means it moved on.
func (w *ScreenWatcher) moved(k paneKey, st *watchState, events []adapter.Event) []adapter.Event {
	st.stable, st.read = 0, false
	if st.stuck {
		st.stuck = false
		events = append(events, w.event(k, st, adapter.KindUnstuck, termprompt.Result{}))
	}
	return events
}

// quiet counts one more tick without change for st, and reports whether its screen should
// be read now: it has been quiet long enough and was not read since it last changed. The
// caller reads it; st is marked read.
func (w *ScreenWatcher) quiet(st *watchState) bool {
	st.stable++
	if st.stable >= w.Quiet && !st.read {
		st.read = true
		return true
	}
	return false
}

// read classifies the screen of one quiet pane and queues the pane when it waits for the
// human. When the session bound to the pane is queued already for what the screen shows
// (an approval its hook reported), the hook's words stand, and the screen's next change
// takes the item out: the approval answered, well before the command it allowed ends.
func (w *ScreenWatcher) read(ctx context.Context, k paneKey, screen string) {
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
	st.saw = ev.Reason
	if b := st.bound; b.session != "" && b.stuck && b.reason == ev.Reason {
		w.mu.Unlock()
		return
	}
	bound := st.bound.session != ""
	w.mu.Unlock()
	if !bound {
		// A pane of its own (no hook's session): what asked is the program whose screen
		// this is, read here by the daemon itself. A bound session keeps its hook's word.
		ev.Program = w.foregroundProgram(ctx, k)
	}
	w.ingest(ctx, ev)
}

// foregroundProgram returns the program the keys of pane k reach now: its tmux server, the
// pane's first process, and the leader of the pane's foreground process group as the
// agent; zero when any of them cannot be read (an answer is then never typed).
func (w *ScreenWatcher) foregroundProgram(ctx context.Context, k paneKey) adapter.Program {
	id, _, err := w.Tmux(k.socket).Identity(ctx, k.pane)
	if err != nil {
		return adapter.Program{}
	}
	pgid, err := w.ForegroundGroup(id.PanePID)
	if err != nil || pgid <= 1 || !lineage.Within(pgid, id.PanePID) {
		return adapter.Program{}
	}
	agent, err := lineage.Read(pgid)
	if err != nil {
		return adapter.Program{}
	}
	return adapter.Program{TmuxPID: id.ServerPID, PanePID: id.PanePID, AgentPID: agent.PID, AgentStart: agent.Start}
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
	ev.Ask = termprompt.AskOf(r, adapter.AskFromScreen)
	return ev
}

// screenSummary is the question with its choices: "Apply this edit? [1. Yes / 2. No]"; for
// an approval that shows its command, the command and the reason instead of the question:
// "$ make test — Run make outside the sandbox? [1. Yes (y) / …]".
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
	if r.Command != "" {
		s = r.Command
	}
	if r.Reason != "" {
		s = strings.TrimSpace(s + " — " + r.Reason)
	}
	if s == "" && r.Screen == termprompt.ScreenIdle {
		s = "waiting at its input box"
	}
	if len(labels) > 0 {
		s += " [" + strings.Join(labels, " / ") + "]"
	}
	return adapter.CleanText(strings.TrimSpace(s), adapter.MaxSummaryLen)
}

// ingest hands ev to the engine. An event of the pane's own made-up session is dropped
// when another adapter's session has been bound to the pane since the tick read the
// bindings (a session found from its harness's live state file a moment ago): the made-up session
// would take the pane, and the real session would end. The next tick reads the pane as
// the bindings are then.
func (w *ScreenWatcher) ingest(ctx context.Context, ev adapter.Event) {
	k := paneKey{ev.TmuxSocket, ev.Pane}
	if ev.SessionID == k.sessionID() {
		if bound, covered := w.bindings(); covered[k] || bound[k].session != "" {
			w.mu.Lock()
			if st, ok := w.watched[k]; ok {
				st.stuck, st.read = false, false
			}
			w.mu.Unlock()
			w.Log.Debug("screen watch: the pane was bound meanwhile; its screen is read again", "pane", ev.Pane,
				"socket", ev.TmuxSocket, "kind", ev.Kind)
			return
		}
	}
	if ev.Kind == adapter.KindUnstuck && ev.SessionID != k.sessionID() {
		w.takeUnstuck(ctx, k, ev)
		return
	}
	if err := w.Engine.Take(ctx, ev); err != nil {
		w.Log.Warn("screen watch", "pane", ev.Pane, "err", err)
	}
}

// takeUnstuck applies the unstuck of a screen that changed to the session another adapter
// bound to pane k, only while that session still waits for what the screen showed (the
// same reason), and only as it was read here (TakeIf). A change seen a tick after the
// session moved on, such as a turn's end reported by the harness's notify while the screen
// still showed the approval just answered, is old news of that approval: it must not take the
// new wait out of the queue.
func (w *ScreenWatcher) takeUnstuck(ctx context.Context, k paneKey, ev adapter.Event) {
	w.mu.Lock()
	saw := ""
	if st, ok := w.watched[k]; ok {
		saw = st.saw
	}
	w.mu.Unlock()
	for _, s := range w.Engine.Snapshot() {
		if s.ID != ev.SessionID {
			continue
		}
		if !s.Stuck || s.Reason != saw {
			w.Log.Debug("screen watch: the session waits for something else now; the screen's change is not news of it",
				"pane", ev.Pane, "session", s.ID, "saw", saw, "reason", s.Reason)
			return
		}
		if err := w.Engine.TakeIf(ctx, ev, s); err != nil && !errors.Is(err, fault.ErrMoved) {
			w.Log.Warn("screen watch", "pane", ev.Pane, "err", err)
		}
		return
	}
}

// KnownServers returns the tmux servers to look for agent panes on: the servers of known
// sessions, the server the daemon runs in, and the user's default server.
func KnownServers(e Sessions, getenv func(string) string) func() []string {
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
		if def := tmuxctl.DefaultSocket(getenv); def != "" {
			set[def] = true
		}
		out := make([]string, 0, len(set))
		for s := range set {
			out = append(out, s)
		}
		return out
	}
}
