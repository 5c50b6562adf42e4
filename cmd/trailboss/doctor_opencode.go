package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/trailboss/trailboss/hooks/install"
)

// openCode reports on Trail Boss's OpenCode plugin: there, and what setup --opencode would
// write now (the program it runs, and this version's plugin). Nothing when OpenCode is not
// set up and its config folder is not there.
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
	bin, _ := trailbossBin()
	if !bytes.Equal(b, install.OpenCodePlugin(codexProgram(bin), install.OpenCodePluginMadeFolder(b))) {
		return []finding{{level: bad, what: "Trail Boss's OpenCode plugin in " + dir + " is not this version's, or runs another trailboss",
			detail: []string{"OpenCode would send its events the old way, or to another program"},
			fix:    "trailboss setup --opencode, then start OpenCode again"}}
	}
	return []finding{{level: good, what: "OpenCode: Trail Boss's plugin is in " + dir + " (it loads when OpenCode starts)"}}
}
