// Command trailboss-hot runs the commands that start on every hook, key press and
// status-line redraw — emit, status, jump-next and skip — exactly as `trailboss VERB` does
// (package hotcmd is both), but as a small pure-Go binary: no cgo, no SQLite, no TUI, so
// that it starts about as fast as any Go program. setup wires the hooks and the keys to it
// when it sits beside trailboss. Build it with CGO_ENABLED=0 (make build does).
package main

import (
	"os"

	"github.com/trailboss/trailboss/cmd/internal/hotcmd"
)

func main() { os.Exit(hotcmd.Main()) }
