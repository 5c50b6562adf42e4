package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/hooks/emit"
	"github.com/trailboss/trailboss/hooks/install"
)

// openCode reports on Trail Boss's OpenCode plugin: there, what setup --opencode would
// write now (the program it runs, and this version's plugin), and loaded by OpenCode.
// Nothing when OpenCode is not set up and its config folder is not there.
func (d *doctor) openCode() []finding {
	dir := openCodePluginsDir(d.getenv, homeDir(d.getenv))
	path := filepath.Join(dir, install.OpenCodePluginName)
	b, err := os.ReadFile(path)
	switch {
	case err != nil && fileExists(filepath.Dir(dir)):
		return []finding{{level: note, what: "OpenCode is installed (" + filepath.Dir(dir) + ") but Trail Boss's plugin is not in " + dir,
			fix: "trailboss setup --opencode"}}
	case err != nil:
		return nil
	case !install.IsOpenCodePlugin(b):
		return []finding{{level: bad, what: path + " is not Trail Boss's plugin: OpenCode does not report to Trail Boss",
			fix: "move it away, then: trailboss setup --opencode"}}
	}
	if !bytes.Equal(b, install.OpenCodePlugin(hotProgram(), install.OpenCodePluginMadeFolder(b))) {
		return []finding{{level: bad, what: "Trail Boss's OpenCode plugin in " + dir + " is not this version's, or runs another trailboss",
			detail: []string{"OpenCode would send its events the old way, or to another program"},
			fix:    "trailboss setup --opencode, then start OpenCode again"}}
	}
	out := []finding{{level: good, what: "OpenCode: Trail Boss's plugin is in " + dir + " (it loads when OpenCode starts)"}}
	return append(out, d.openCodeLoaded()...)
}

// openCodeLoaded says which plugin the OpenCode that started last loaded, as the plugin
// reported it (emit.OpenCodePluginLoaded): this version's, or an older one, which that
// OpenCode runs until it starts again.
func (d *doctor) openCodeLoaded() []finding {
	b, err := os.ReadFile(filepath.Join(d.place.StateDir, emit.OpenCodePluginLoaded))
	var loaded emit.LoadedPlugin
	if err != nil || json.Unmarshal(b, &loaded) != nil {
		return []finding{{level: note, what: "no OpenCode has loaded Trail Boss's plugin yet",
			detail: []string{"OpenCode loads plugins when it starts; one started before setup reports nothing"},
			fix:    "start OpenCode again"}}
	}
	ago := queue.Age(time.Since(loaded.At))
	if loaded.Plugin != install.OpenCodePluginID() {
		return []finding{{level: note, what: fmt.Sprintf("the OpenCode that started last (pid %d, %s ago) loaded an older Trail Boss plugin", loaded.PID, ago),
			fix: "start that OpenCode again"}}
	}
	return []finding{{level: good, what: fmt.Sprintf("OpenCode loaded this plugin (pid %d, %s ago)", loaded.PID, ago)}}
}
