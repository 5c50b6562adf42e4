package watch

import "time"

// Fixtures of the tests of the pure rule decide, which need no engine.

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// at returns t0 plus sec seconds (fractions allowed).
func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
