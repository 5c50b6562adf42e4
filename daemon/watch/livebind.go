package watch

// A harness's live state file may say in which tmux pane its process runs (LiveState.Tmux,
// when TMUX_PANE was set; the adapter's LiveStateSource says since which version). That
// binds a session whose hooks did not (a hook environment without TMUX_PANE, a session started before Trail Boss, one whose
// hooks are not set up). A file is words: before a session is bound to a pane, the pane is
// found from the process itself — the state file's pid, started when the file says (a pid
// can be reused), run by this user, with the pane's first process among its ancestors, in a
// tmux server this daemon talks to — so that no file can send answers to another program.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/queue"
)

// ownedByUs reports whether a state file belongs to the daemon's user.
func ownedByUs(info os.FileInfo) bool { return lineage.OwnedByUs(info) }

// bind returns the session st names and whether the daemon follows it: one it knows, or one
// it registers now because its process runs in a pane found and verified (locate). A known
// session whose verified pane is not its own is bound to it, unless a live agent of another
// process holds the session's binding (a hook's, or an earlier file's).
func (l *LiveStates) bind(ctx context.Context, path string, st adapter.LiveState) (queue.Session, bool) {
	s, known := l.Engine.Session(st.SessionID)
	if known && s.Harness != l.Harness {
		return s, false
	}
	if (st.Kind != "" && st.Kind != adapter.LiveInteractive) || l.Tmux == nil || l.Servers == nil {
		return s, known
	}
	if known && s.Pane != "" && (st.TmuxPane() == "" || st.TmuxPane() == s.Pane) {
		return s, true // where a hook (or an earlier reading) bound it, and the file agrees
	}
	at, ok := l.locate(ctx, path, st)
	switch {
	case !ok:
		return s, known
	case known && s.Pane == at.pane && s.TmuxSocket == at.socket:
		return s, true
	case known && s.Pane != "" && s.Program.AgentPID != st.PID && lineage.AgentGone(s.Program) == "":
		l.Log.Warn("a live state file names a session bound to another live program: not rebound",
			"harness", l.Harness, "session", s.ID, "pane", s.Pane, "file", path, "file_pid", st.PID, "file_pane", at.pane)
		return s, true
	}
	ev := adapter.Event{Harness: l.Harness, SessionID: st.SessionID, Pane: at.pane, TmuxSocket: at.socket,
		Program: at.prog, Cwd: st.Cwd, Kind: adapter.KindTouch, At: time.Now()}
	if !known {
		// Registered now (not at the file's time, which can be long ago): a session the
		// screen adapter gave the pane meanwhile does not make this binding look old.
		ev.Kind = adapter.KindStart
		ev.TranscriptPath = l.Source.TranscriptPath(path, st)
	}
	if err := ev.Validate(); err != nil {
		l.Log.Debug("live state file", "harness", l.Harness, "file", path, "err", err)
		return s, known
	}
	if err := l.Engine.Take(ctx, ev); err != nil {
		l.Log.Warn("bind a session to its pane from its live state file", "harness", l.Harness, "session", st.SessionID,
			"err", err)
		return s, known
	}
	l.Log.Info("session bound from its live state file", "harness", l.Harness, "session", st.SessionID, "pane", at.pane,
		"socket", at.socket, "pid", st.PID, "new", !known)
	return l.Engine.Session(st.SessionID)
}

// locate returns the verified pane of st's process, looking again only when the process,
// its pane word or the servers to look in changed since the file's last reading.
func (l *LiveStates) locate(ctx context.Context, path string, st adapter.LiveState) (place, bool) {
	servers := slices.Sorted(slices.Values(l.Servers()))
	key := fmt.Sprint(st.PID, " ", st.ProcStart, " ", st.Tmux, " ", strings.Join(servers, "\x00"))
	if c, ok := l.located[path]; ok && c.key == key {
		return c.at, c.ok
	}
	at, ok := l.find(ctx, st, servers)
	l.located[path] = located{key: key, at: at, ok: ok}
	if !ok {
		l.Log.Debug("live state file: its process is in no pane found", "harness", l.Harness, "file", path, "pid", st.PID,
			"tmux", st.Tmux)
	} else if p := st.TmuxPane(); p != "" && p != at.pane {
		l.Log.Warn("a live state file names another pane than its process runs in: the process's is taken",
			"harness", l.Harness, "file", path, "file_pane", p, "pane", at.pane)
	}
	return at, ok
}

// find is locate's check: st's process, as the file says it (its pid, started then, run by
// this user), and the nearest of its ancestors that is the first process of a live pane
// of one of servers (sockets of this user), whose parent is that tmux server.
func (l *LiveStates) find(ctx context.Context, st adapter.LiveState, servers []string) (place, bool) {
	chain := lineage.Chain(st.PID)
	if len(chain) == 0 || (st.ProcStart != 0 && chain[0].Start != st.ProcStart) || !lineage.Ours(st.PID) {
		return place{}, false
	}
	depth := make(map[int]int, len(chain))
	for i, p := range chain {
		depth[p.PID] = i
	}
	best, found := len(chain), place{}
	for _, socket := range servers {
		if info, err := os.Stat(socket); err != nil || !ownedByUs(info) {
			continue
		}
		panes, err := l.Tmux(socket).PaneProcesses(ctx)
		if err != nil {
			continue
		}
		for _, p := range panes {
			i, ok := depth[p.PID]
			if p.Dead || !ok || i >= best || i+1 >= len(chain) || !lineage.IsTmux(chain[i+1]) {
				continue
			}
			best = i
			found = place{pane: p.ID, socket: socket, prog: adapter.Program{TmuxPID: chain[i+1].PID, PanePID: p.PID,
				AgentPID: st.PID, AgentStart: chain[0].Start}}
		}
	}
	return found, best < len(chain)
}
