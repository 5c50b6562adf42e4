package lineage

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Spawn places a process in the order the kernel started processes: its start time in
// clock ticks after boot, then, within one tick (10 ms), its pid, which Linux gives out in
// increasing order. An agent fires its hooks in order, each a process of its own; hooks
// are stamped when they run, and a hook slow to start under load is stamped after one the
// agent started later. Their spawns still say which came first.
type Spawn struct {
	Start  uint64
	PID    int
	Parent int // the process that started it: two spawns are in order only within one parent
}

// Known reports whether s was read.
func (s Spawn) Known() bool { return s.PID > 0 }

// Before reports whether s was started before t. Two spawns of one process are neither.
// Spawns of two parents are compared all the same; whether that order means anything is
// the caller's to know (SameParent).
func (s Spawn) Before(t Spawn) bool {
	if s.Start != t.Start {
		return s.Start < t.Start
	}
	if s.PID == t.PID {
		return false
	}
	// Pids wrap at pid_max: the nearer way round the circle is the order.
	d := (t.PID - s.PID + pidMax()) % pidMax()
	return d < pidMax()/2
}

// ticksPerSecond is the unit of /proc's start times (USER_HZ), 100 on every Linux build
// that runs user programs unchanged.
const ticksPerSecond = 100

// Latest returns the latest wall time s can have been started at, read at now: the end of
// its clock tick, placed by the boot clock. A hook's own stamp says when it first ran, which
// under load is long after its agent started it, and after what the agent did next. ok is
// false when s is not known or the clock cannot be read.
func (s Spawn) Latest(now time.Time) (time.Time, bool) {
	up, ok := sinceBoot()
	if !s.Known() || !ok {
		return time.Time{}, false
	}
	end := time.Duration(s.Start+1) * time.Second / ticksPerSecond
	return now.Add(end - up), true
}

// SameParent reports whether s and t were started by one process.
func (s Spawn) SameParent(t Spawn) bool { return s.Parent == t.Parent }

// Spawned returns the process the agent started for hook process pid: the outermost of
// pid and the shells (or env) between it and the program that ran it, since a hook
// command may run in a shell of its own. ok is false when pid cannot be read.
func Spawned(pid int) (s Spawn, ok bool) {
	p, err := Read(pid)
	if err != nil {
		return Spawn{}, false
	}
	for depth := 0; depth < maxDepth; depth++ {
		parent, err := Read(p.PPID)
		if err != nil || !notAgent(parent.Comm) {
			break
		}
		p = parent
	}
	return Spawn{Start: p.Start, PID: p.PID, Parent: p.PPID}, true
}

var pidMax = sync.OnceValue(func() int {
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if n, convErr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && convErr == nil && n > 1 {
		return n
	}
	return 1 << 22 // Linux's largest
})
