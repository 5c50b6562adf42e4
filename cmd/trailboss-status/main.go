// Command trailboss-status prints the queue's status line, "⚠ N stuck", for a shell prompt
// or a status bar; package statuscmd is the whole of it. Build it with CGO_ENABLED=0 (make
// build does).
package main

import (
	"os"

	"github.com/trailboss/trailboss/cmd/internal/statuscmd"
)

func main() { os.Exit(statuscmd.Main()) }
