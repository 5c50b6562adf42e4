package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// parseStatPPID returns the parent pid from the text of /proc/pid/stat.
func parseStatPPID(stat string) (int, error) {
	ppid, err := statField(stat, 1, "parent pid")
	if err == nil && ppid < 0 {
		return 0, fmt.Errorf("parent pid %d is negative", ppid)
	}
	return ppid, err
}

// parseStatTPGID returns the foreground process group of the process's terminal from the
// text of /proc/pid/stat; -1 when it has no terminal.
func parseStatTPGID(stat string) (int, error) {
	return statField(stat, 5, "terminal process group")
}

// statField returns the n-th number after the command name in the text of /proc/pid/stat:
// "pid (comm) state ppid pgrp session tty_nr tpgid …", state being field 0. comm may hold
// spaces and ")", so the fields after it are found from the last ")". name says what the
// field is, for the error.
func statField(stat string, n int, name string) (int, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("no ')' after the command name in %q", clip(stat))
	}
	f := strings.Fields(stat[i+1:])
	if len(f) <= n {
		return 0, fmt.Errorf("no %s after the command name in %q", name, clip(stat))
	}
	v, err := strconv.Atoi(f[n])
	if err != nil || strings.TrimLeft(strings.TrimPrefix(f[n], "-"), "0123456789") != "" {
		return 0, fmt.Errorf("%s %q is not a number", name, clip(f[n]))
	}
	return v, nil
}

// ForegroundGroup returns the foreground process group of the terminal that process pid (a
// pane's pid) runs on: the id of one run of the pane's current command, which is that
// group's leader. It returns 0 when the process has no terminal. It reads /proc (Linux).
func ForegroundGroup(pid int) (int, error) {
	return foregroundGroup("/proc", pid)
}

func foregroundGroup(proc string, pid int) (int, error) {
	stat, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	pgid, err := parseStatTPGID(string(stat))
	if err != nil {
		return 0, fmt.Errorf("%s/%d/stat: %w", proc, pid, err)
	}
	return max(pgid, 0), nil
}

// ChildCommands returns the command names of the children of process pid; none when it is
// gone. Of a pane whose current command is an interpreter, it tells what the script
// started: npm's `codex` is a Node script that spawns the native binary, so the pane's
// current command is "node" and "codex" is its child. It reads /proc (Linux).
func ChildCommands(pid int) ([]string, error) {
	return childCommands("/proc", pid)
}

func childCommands(proc string, pid int) ([]string, error) {
	kids, err := children(proc, pid)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, k := range kids {
		comm, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(k), "comm"))
		if err != nil {
			continue // it exited meanwhile
		}
		names = append(names, strings.TrimSuffix(string(comm), "\n"))
	}
	return names, nil
}

// children returns the pids of the children of pid, from the children file of each of its
// threads (a child belongs to the thread that forked it). A process that is gone has none.
func children(proc string, pid int) ([]int, error) {
	tasks, err := os.ReadDir(filepath.Join(proc, strconv.Itoa(pid), "task"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "task", t.Name(), "children"))
		if err != nil {
			continue // the thread ended, or the kernel has no children files
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil && n > 0 {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// NearestAncestor returns the nearest of the first depth ancestors of pid (pid itself
// excluded) whose argv satisfies match, and its argv; 0 and nil when none does or the chain
// cannot be read. It reads /proc (Linux).
func NearestAncestor(pid, depth int, match func(argv []string) bool) (int, []string) {
	return nearestAncestor("/proc", pid, depth, match)
}

func nearestAncestor(proc string, pid, depth int, match func(argv []string) bool) (int, []string) {
	cur := pid
	for step := 0; step < min(depth, maxAncestors); step++ {
		stat, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(cur), "stat"))
		if err != nil {
			return 0, nil
		}
		ppid, err := parseStatPPID(string(stat))
		if err != nil || ppid <= 0 || ppid == cur {
			return 0, nil
		}
		cur = ppid
		cmdline, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(cur), "cmdline"))
		if err != nil {
			return 0, nil
		}
		if argv := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00"); match(argv) {
			return cur, argv
		}
	}
	return 0, nil
}
