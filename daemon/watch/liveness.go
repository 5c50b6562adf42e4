package watch

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/tmuxctl"
)

// Liveness retires sessions whose pane no longer exists, whose tmux server is gone, or whose
// program is no longer there (the agent that spoke from the pane ended — killed, crashed —
// or the pane now runs another program, as after a tmux server restarted on the same socket),
// so that the queue never sends the operator to a pane that is not theirs.
type Liveness struct {
	Engine Retirer
	Log    *slog.Logger
	// Tmux returns the runner for a socket; tests may replace it.
	Tmux func(socket string) *tmuxctl.Server
}

// Check lists the panes of every tmux server that has sessions, once per server, and
// retires the sessions whose pane is missing or dead.
func (l *Liveness) Check(ctx context.Context) {
	bySocket := make(map[string][]string) // socket → session ids
	panes := make(map[string]string)      // session id → pane
	programs := make(map[string]adapter.Program)
	for _, s := range l.Engine.Snapshot() {
		if s.TmuxSocket == "" || s.Pane == "" {
			continue
		}
		bySocket[s.TmuxSocket] = append(bySocket[s.TmuxSocket], s.ID)
		panes[s.ID] = s.Pane
		programs[s.ID] = s.Program
	}
	now := time.Now()
	for socket, ids := range bySocket {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		list, err := l.Tmux(socket).PaneProcesses(cctx)
		cancel()
		var gone []string
		switch {
		case errors.Is(err, tmuxctl.ErrNoServer):
			gone = ids
		case err != nil:
			l.Log.Warn("liveness: list panes", "socket", socket, "err", err)
			continue
		default:
			alive := make(map[string]int, len(list)) // pane → its first process
			for _, p := range list {
				if !p.Dead {
					alive[p.ID] = p.PID
				}
			}
			for _, id := range ids {
				pid, ok := alive[panes[id]]
				prog := programs[id]
				if !ok || prog.PanePID != 0 && pid != prog.PanePID || lineage.AgentGone(prog) != "" {
					gone = append(gone, id)
				}
			}
		}
		if len(gone) == 0 {
			continue
		}
		if err := l.Engine.Retire(ctx, gone, now); err != nil {
			l.Log.Warn("liveness: retire", "err", err)
			continue
		}
		l.Log.Info("retired sessions whose pane or agent is gone", "socket", socket, "count", len(gone))
	}
}
