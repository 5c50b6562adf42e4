package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// maxAncestors bounds the walk up the parent chain of a process.
const maxAncestors = 64

// PaneOfProcess returns the id of the pane whose pane_pid is pid or an ancestor of pid, or
// an error wrapping ErrNoPane when there is none. Dead panes are not considered: their
// pid may have been reused. It reads the parent chain from /proc (Linux).
func (s *Server) PaneOfProcess(ctx context.Context, pid int) (string, error) {
	if pid <= 0 {
		return "", fmt.Errorf("pane of process: %w: pid %d", ErrNoPane, pid)
	}
	panes, err := s.ListPanes(ctx)
	if err != nil {
		return "", err
	}
	return paneOfPID(panes, pid, procParent)
}

// paneOfPID walks from pid up through parent (at most maxAncestors steps) and returns the
// first live pane whose PID it meets. A process that vanishes during the walk ends it:
// its child has been reparented and is no longer in any pane it was started in.
func paneOfPID(panes []Pane, pid int, parent func(pid int) (int, error)) (string, error) {
	byPID := make(map[int]string, len(panes))
	for _, p := range panes {
		if !p.Dead {
			byPID[p.PID] = p.ID
		}
	}
	cur := pid
	for step := 0; step <= maxAncestors && cur > 0; step++ {
		if id, ok := byPID[cur]; ok {
			return id, nil
		}
		ppid, err := parent(cur)
		if errors.Is(err, fs.ErrNotExist) && cur != pid {
			break
		}
		if err != nil {
			return "", fmt.Errorf("pane of process %d: %w", pid, err)
		}
		if ppid == cur {
			break
		}
		cur = ppid
	}
	return "", fmt.Errorf("pane of process %d: %w: no pane runs it or an ancestor", pid, ErrNoPane)
}

// procParent returns the parent pid of pid from /proc/pid/stat.
func procParent(pid int) (int, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	ppid, err := parseStatPPID(string(data))
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return ppid, nil
}

// parseStatPPID returns the parent pid from the text of /proc/pid/stat:
// "pid (comm) state ppid …". comm may hold spaces and ")", so the fields after it are
// found from the last ")".
func parseStatPPID(stat string) (int, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("no ')' after the command name in %q", clip(stat))
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, fmt.Errorf("no parent pid after the command name in %q", clip(stat))
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil || ppid < 0 || strings.TrimLeft(f[1], "0123456789") != "" {
		return 0, fmt.Errorf("parent pid %q is not a number", clip(f[1]))
	}
	return ppid, nil
}
