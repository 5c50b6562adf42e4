package queue

import (
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"}, {0, "0s"}, {59 * time.Second, "59s"}, {time.Minute, "1m"}, {4*time.Minute + 59*time.Second, "4m"},
		{time.Hour, "1h"}, {47 * time.Hour, "47h"}, {48 * time.Hour, "2d"},
	} {
		if got := Age(tc.d); got != tc.want {
			t.Errorf("Age(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
