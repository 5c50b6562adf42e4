package lineage

import (
	"time"

	"golang.org/x/sys/unix"
)

// sinceBoot returns the time since boot by the clock /proc's start times count in.
func sinceBoot() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
