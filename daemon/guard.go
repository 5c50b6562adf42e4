package daemon

import (
	"log/slog"

	panicguard "github.com/trailboss/trailboss/daemon/guard"
)

// guard runs fn and turns a panic in it into an error, logged with its stack and with
// attrs naming what was being handled (the session, the file, the pane). A bug met by one
// bad event, transcript, state file or pane must cost that one thing, never the daemon and
// every queue it serves.
func guard(log *slog.Logger, what string, attrs []any, fn func()) (err error) {
	return panicguard.Run(log, what, attrs, fn)
}
