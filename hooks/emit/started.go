package emit

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// userHZ is the unit of a process's start time in /proc/<pid>/stat: USER_HZ, 100 on every
// Linux architecture (the kernel converts to it for userspace, whatever its own HZ).
const userHZ = 100

// Started returns when this process started, as a hook's event time: Claude Code runs its
// hooks in parallel (all but a held PermissionRequest are async), so the order in which
// they start is the order of the events, while the moment each one reads the clock is not
// — on a busy machine a hook takes from 5 ms to a second to get going, and a PostToolUse
// stamped then came after the Stop that followed it. The start is read from
// /proc/self/stat, in hundredths of a second, and rounded up: never before the hook began,
// at most 10 ms after. Where that cannot be read (not Linux), it is now.
func Started() time.Time {
	now := time.Now()
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return now
	}
	ticks, ok := startTicks(stat)
	var boot unix.Timespec
	if !ok || unix.ClockGettime(unix.CLOCK_BOOTTIME, &boot) != nil {
		return now
	}
	sinceStart := time.Duration(boot.Nano()) - time.Duration(ticks+1)*(time.Second/userHZ)
	switch {
	case sinceStart < 0:
		return now
	case sinceStart > time.Minute:
		return now // not the start of a hook (a clock or /proc this code does not know)
	}
	return now.Add(-sinceStart)
}

// startTicks returns field 22 of a /proc/<pid>/stat line: the process's start, in USER_HZ
// ticks since boot. The command name (field 2) is in parentheses and may hold spaces and
// parentheses, so fields are counted from the last ')'.
func startTicks(stat []byte) (uint64, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	const startField = 22 - 3 // fields[0] is field 3, the state
	if len(fields) <= startField {
		return 0, false
	}
	n, err := strconv.ParseUint(string(fields[startField]), 10, 64)
	return n, err == nil
}
