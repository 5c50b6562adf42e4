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

// StatusLine is StatusText with the hosts a hub cannot reach now after it, each marked ✗:
// "⚠ 3 stuck · devbox ✗", or "devbox ✗" alone when nothing waits (their items may).
func StatusLine(stuck, cooling int, unreachable []string) string {
	text := StatusText(stuck, cooling)
	for _, h := range unreachable {
		if text != "" {
			text += " · "
		}
		text += h + " ✗"
	}
	return text
}
