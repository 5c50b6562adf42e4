package queue

import "fmt"

// StatusText is what the status line shows, given how many sessions are stuck and how
// many of those are cooling after a skip: "⚠ 2 stuck", "⚠ 2 stuck · 1 cooling", or ""
// when every stuck session is cooling (the queue presents as empty until one is ready).
// "stuck" never counts the cooling ones.
func StatusText(stuck, cooling int) string {
	waiting := stuck - cooling
	if waiting <= 0 {
		return ""
	}
	if cooling > 0 {
		return fmt.Sprintf("⚠ %d stuck · %d cooling", waiting, cooling)
	}
	return fmt.Sprintf("⚠ %d stuck", waiting)
}
