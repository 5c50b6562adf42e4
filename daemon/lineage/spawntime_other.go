//go:build !linux

package lineage

import "time"

// sinceBoot has no clock to read outside Linux, where there is no /proc either.
func sinceBoot() (time.Duration, bool) { return 0, false }
