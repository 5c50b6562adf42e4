package daemon

import (
	"github.com/trailboss/trailboss/daemon/ptyhub"
	"github.com/trailboss/trailboss/daemon/tmuxstatus"
)

// Names kept here for code that other branches move at the same time (deliver.go into
// its own package, cmd/trailboss's status); they go once those import the new packages.

// PTYHub is ptyhub.PTYHub.
type PTYHub = ptyhub.PTYHub

// StatusText is tmuxstatus.Text.
func StatusText(stuck, cooling int) string { return tmuxstatus.Text(stuck, cooling) }
