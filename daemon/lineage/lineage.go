// Package lineage reads, from /proc, which program sent a hook: the pane's first process
// (the tmux server's child on the hook's ancestry) and the agent (the nearest ancestor of
// the hook that is not a shell: Claude Code, Codex, the demo agent), with the agent's start time, so that a
// pid reused by another program is never taken for it. The daemon keeps this identity on
// every prompt record and checks it again before typing an answer (DELIVERY.md: an answer
// reaches the program that asked, or nothing is typed).
package lineage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/trailboss/trailboss/adapter"
)

// Proc is one process as /proc/PID/stat tells it.
type Proc struct {
	PID   int
	PPID  int
	Comm  string
	Start uint64 // clock ticks after boot
	PGrp  int    // its process group
	TPGid int    // the foreground process group of its terminal; -1 when it has none
}

// Foreground reports whether p is in the foreground process group of its terminal: the
// program a pane's keys reach, even under a wrapper shell (sh -c 'claude; sleep 30'), and
// not one a shell has put in the background or stopped.
func (p Proc) Foreground() bool { return p.TPGid > 0 && p.PGrp == p.TPGid }

// ErrGone is a process that no longer exists.
var ErrGone = errors.New("the process is gone")

// Root is where proc is mounted; tests may point it elsewhere.
var Root = "/proc"

// Read returns process pid, or ErrGone.
func Read(pid int) (Proc, error) {
	if pid <= 0 {
		return Proc{}, ErrGone
	}
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", Root, pid))
	if errors.Is(err, os.ErrNotExist) {
		return Proc{}, ErrGone
	}
	if err != nil {
		return Proc{}, err
	}
	return parseStat(pid, b)
}

// parseStat parses "PID (COMM) STATE PPID … STARTTIME …". COMM may hold spaces and
// parentheses, so the fields after it are found from its last ')'.
func parseStat(pid int, b []byte) (Proc, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Proc{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[end+1:]))
	// f[0] is field 3 (state): ppid is field 4, starttime field 22.
	if len(f) < 20 {
		return Proc{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	// pgrp is field 5, tpgid field 8.
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	pgrp, err3 := strconv.Atoi(f[2])
	tpgid, err4 := strconv.Atoi(f[5])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return Proc{}, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	return Proc{PID: pid, PPID: ppid, Comm: string(b[open+1 : end]), Start: start, PGrp: pgrp, TPGid: tpgid}, nil
}

// maxDepth bounds a walk up the process tree.
const maxDepth = 64

// shells are the programs whose input line runs what is typed as a command.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true,
	"ksh": true, "mksh": true, "tcsh": true, "csh": true, "busybox": true}

// IsShell reports whether a program named comm is a shell.
func IsShell(comm string) bool { return shells[comm] }

// notAgent reports whether comm stands between an agent and its hook (the shell that runs
// the hook command, env) or between a pane and its agent (the pane's shell).
func notAgent(comm string) bool { return shells[comm] || comm == "env" }

// TmuxPID returns the server pid of a TMUX value ("socket,pid,session"), or 0.
func TmuxPID(tmux string) int {
	f := strings.Split(tmux, ",")
	if len(f) < 2 {
		return 0
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Of returns the identity of the program that ran hook process pid inside the tmux server
// tmuxPID (what the hook's TMUX says). Only what /proc confirms is kept: nothing when pid is
// not a descendant of that server (TMUX is the hook's word, not proof); the agent stays 0
// when no process between the hook and the pane is one.
func Of(pid, tmuxPID int) adapter.Program {
	var prog adapter.Program
	if pid <= 0 || tmuxPID <= 1 {
		return prog
	}
	if server, err := Read(tmuxPID); err != nil || !IsTmux(server) {
		return prog // not a tmux server ("tmux: server"): TMUX named another process
	}
	var chain []Proc // from the hook up to the pane's process
	for p, depth := pid, 0; depth < maxDepth; depth++ {
		proc, err := Read(p)
		if err != nil {
			return prog
		}
		chain = append(chain, proc)
		if proc.PPID == tmuxPID {
			break
		}
		if proc.PPID <= 1 {
			return prog // not inside that tmux server
		}
		p = proc.PPID
	}
	pane := chain[len(chain)-1]
	if pane.PPID != tmuxPID {
		return prog
	}
	prog.TmuxPID, prog.PanePID = tmuxPID, pane.PID
	for _, proc := range chain[1:] { // chain[0] is the hook itself
		if !notAgent(proc.Comm) {
			prog.AgentPID, prog.AgentStart = proc.PID, proc.Start
			break
		}
	}
	return prog
}

// AgentGone says why the agent of prog no longer runs ("" when it does, or is not known):
// its process ended, or its pid now belongs to another program.
func AgentGone(prog adapter.Program) string {
	if prog.AgentPID == 0 {
		return ""
	}
	p, err := Read(prog.AgentPID)
	switch {
	case errors.Is(err, ErrGone):
		return "its process ended"
	case err != nil:
		return "" // cannot tell: the other checks decide
	case p.Start != prog.AgentStart:
		return "its process ended and another program now has its pid"
	}
	return ""
}

// Within reports whether process pid is ancestor itself or one of its descendants.
func Within(pid, ancestor int) bool {
	for p, depth := pid, 0; depth < maxDepth && p > 1; depth++ {
		if p == ancestor {
			return true
		}
		proc, err := Read(p)
		if err != nil {
			return false
		}
		p = proc.PPID
	}
	return false
}

// Chain returns process pid and its ancestors, nearest first, up to the first that cannot be
// read or is init; nil when pid itself cannot be read.
func Chain(pid int) []Proc {
	var chain []Proc
	for p, depth := pid, 0; depth < maxDepth && p > 1; depth++ {
		proc, err := Read(p)
		if err != nil {
			break
		}
		chain = append(chain, proc)
		p = proc.PPID
	}
	return chain
}

// Ours reports whether process pid runs as this process's user (the owner of its /proc
// folder): a process of another user is never taken for one of the operator's agents.
func Ours(pid int) bool {
	info, err := os.Stat(fmt.Sprintf("%s/%d", Root, pid))
	return err == nil && OwnedByUs(info)
}

// OwnedByUs reports whether info is of a file owned by this process's user.
func OwnedByUs(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// IsTmux reports whether p is a tmux server process ("tmux: server", or a tmux binary).
func IsTmux(p Proc) bool { return strings.HasPrefix(p.Comm, "tmux") }

// TmuxServerOf returns the pid of the tmux server process pid runs under (a pane's program,
// a popup's), or 0 when it runs under none.
func TmuxServerOf(pid int) int {
	for p, depth := pid, 0; depth < maxDepth && p > 1; depth++ {
		proc, err := Read(p)
		if err != nil {
			return 0
		}
		if IsTmux(proc) && p != pid {
			return p
		}
		p = proc.PPID
	}
	return 0
}
