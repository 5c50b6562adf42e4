package daemon

import (
	"testing"
	"time"
)

// TestWaitLimit: a hook's wait for an answer lasts 20 s when it does not say, what it asks
// up to a minute, and never longer.
func TestWaitLimit(t *testing.T) {
	c := &Core{}
	for _, tc := range []struct{ asked, want time.Duration }{
		{0, 20 * time.Second},
		{-time.Second, 20 * time.Second},
		{5 * time.Second, 5 * time.Second},
		{time.Minute, time.Minute},
		{time.Hour, time.Minute},
	} {
		if got := c.WaitLimit(tc.asked); got != tc.want {
			t.Errorf("WaitLimit(%v) = %v, want %v", tc.asked, got, tc.want)
		}
	}
}
