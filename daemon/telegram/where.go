package telegram

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/tmuxctl"
)

// placer finds where sessions run, as the popup does: the folder's base name, its git
// branch, and the pane's tmux session and window (one list-panes per server, per pass).
type placer struct {
	tmux  func(socket string) *tmuxctl.Server
	panes map[string]map[string]tmuxctl.Pane // by socket, then pane id; nil entry: list-panes failed
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
		w.Branch = gitBranch(dir)
	}
	return w
}

// gitBranch returns the branch checked out in dir, the short commit of a detached HEAD,
// or "" when dir is not the top of a plain repository. It reads .git/HEAD and runs no git
// (the popup's rule, popup/load.go).
func gitBranch(dir string) string {
	gd := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(gd); err != nil || !fi.IsDir() {
		return ""
	}
	f, err := os.Open(filepath.Join(gd, "HEAD"))
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	s := strings.TrimSpace(string(line))
	if ref, ok := strings.CutPrefix(s, "ref:"); ok {
		name, _ := strings.CutPrefix(strings.TrimSpace(ref), "refs/heads/")
		if name == strings.TrimSpace(ref) {
			return ""
		}
		return name
	}
	if len(s) >= 40 && strings.Trim(s, "0123456789abcdef") == "" {
		return s[:7]
	}
	return ""
}
