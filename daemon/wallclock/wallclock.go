// Package wallclock is the wall clock that a daemon's queue is ordered by and that another
// machine's hub holds against its own (issue 30): when a hook ran (the emitter's stamp),
// the engine's now (cooldowns, prompt deadlines), the queue stream's server time.
//
// TRAILBOSS_TEST_CLOCK_SKEW, for tests only, moves it by a Go duration ("30s", "-2m"): a
// test makes a machine whose clock is wrong (testscripts/sshtest's Options.Env) and the
// skew goes through the real path, from the hook to the hub. Nothing else can: Go programs
// read the clock without libc, so libfaketime does not reach them, and a time namespace
// does not move the wall clock. Unset, as everywhere but in such a test, it is time.Now.
package wallclock

import (
	"os"
	"time"
)

// EnvSkew names the test-only variable.
const EnvSkew = "TRAILBOSS_TEST_CLOCK_SKEW"

var skew = func() time.Duration {
	d, err := time.ParseDuration(os.Getenv(EnvSkew))
	if err != nil {
		return 0
	}
	return d
}()

// Now returns the wall clock's time.
func Now() time.Time {
	if skew == 0 {
		return time.Now()
	}
	return time.Now().Add(skew)
}
