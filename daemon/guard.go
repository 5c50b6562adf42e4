package daemon

import (
	"fmt"
	"log/slog"
	"runtime/debug"
)

// guard runs fn and turns a panic in it into an error, logged with its stack and with
// attrs naming what was being handled (the session, the file, the pane). A bug met by one
// bad event, transcript, state file or pane must cost that one thing, never the daemon and
// every queue it serves.
func guard(log *slog.Logger, what string, attrs []any, fn func()) (err error) {
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
