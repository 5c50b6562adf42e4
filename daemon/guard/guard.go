// Package guard keeps a bug met by one thing the daemon handles (an event, a transcript, a
// state file, a pane) from costing the daemon and every queue it serves.
package guard

import (
	"fmt"
	"log/slog"
	"runtime/debug"
)

// Run runs fn and turns a panic in it into an error, logged with its stack and with attrs
// naming what was being handled (the session, the file, the pane).
func Run(log *slog.Logger, what string, attrs []any, fn func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error while %s: %v", what, v)
			log.Error("recovered from a panic; the daemon goes on", append(attrs,
				"while", what, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))...)
		}
	}()
	fn()
	return nil
}
