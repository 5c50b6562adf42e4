package telegram

import (
	"context"
	"path/filepath"
	"strconv"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/tmuxctl"
)

// placer finds where sessions run, as the popup does: the folder's base name, its git
// branch, and the pane's tmux session and window (one list-panes per server, per pass).
type placer struct {
	tmux  func(socket string) *tmuxctl.Server
	panes map[string]map[string]tmuxctl.Pane // by socket, then pane id; nil entry: list-panes failed
}

// placeItem is where item it runs: another host's (its prompt is that host's) as that
// host said, this machine's as place finds it.
func (pl *placer) placeItem(ctx context.Context, it queue.Item) place {
	if it.Prompt != nil {
		if host := remoteHost(it.Prompt.ID); host != "" {
			return remotePlace(host, it.Session)
		}
	}
	return pl.place(ctx, it.Session)
}

func (pl *placer) place(ctx context.Context, s queue.Session) place {
	w := place{Run: s.Harness == queue.HarnessPTY}
	dir := s.Cwd
	if s.Pane != "" && s.TmuxSocket != "" && pl.tmux != nil {
		if pl.panes == nil {
			pl.panes = map[string]map[string]tmuxctl.Pane{}
		}
		panes, ok := pl.panes[s.TmuxSocket]
		if !ok {
			if list, err := pl.tmux(s.TmuxSocket).ListPanes(ctx); err == nil {
				panes = make(map[string]tmuxctl.Pane, len(list))
				for _, p := range list {
					panes[p.ID] = p
				}
			}
			pl.panes[s.TmuxSocket] = panes
		}
		if p, ok := panes[s.Pane]; ok {
			w.Tmux = p.SessionName + ":" + strconv.Itoa(p.WindowIndex)
			if dir == "" {
				dir = p.CurrentPath
			}
		} else {
			w.Tmux = s.Pane
		}
	}
	if dir != "" {
		w.Project = filepath.Base(dir)
		w.Branch = adapter.GitBranch(dir)
	}
	return w
}
