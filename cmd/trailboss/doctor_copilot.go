package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/trailboss/trailboss/hooks/install"
)

// copilot reports on Trail Boss's GitHub Copilot CLI hooks: there, what setup --copilot
// would write now (the program they run, and every event), and not switched off by
// Copilot's disableAllHooks. Nothing when Copilot is not set up and its folder is not
// there.
func (d *doctor) copilot() []finding {
	home := copilotHome(d.getenv, homeDir(d.getenv))
	dir := filepath.Join(home, "hooks")
	path := filepath.Join(dir, install.CopilotHooksName)
	b, err := os.ReadFile(path)
	switch {
	case err != nil && fileExists(home):
		return []finding{{level: note, what: "GitHub Copilot CLI is installed (" + home + ") but Trail Boss's hooks are not in " + dir,
			fix: "trailboss setup --copilot"}}
	case err != nil:
		return nil
	case !install.IsCopilotHooks(b):
		return []finding{{level: bad, what: path + " is not Trail Boss's hook file: Copilot CLI does not report to Trail Boss",
			fix: "move it away, then: trailboss setup --copilot"}}
	}
	if !bytes.Equal(b, install.CopilotHooks(hotProgram(), install.CopilotHooksMadeFolder(b))) {
		return []finding{{level: bad, what: "Trail Boss's Copilot CLI hooks in " + dir + " are not this version's, or run another trailboss",
			detail: []string{"Copilot would send its events the old way, or to another program"},
			fix:    "trailboss setup --copilot, then start Copilot again"}}
	}
	for _, name := range []string{"settings.json", "config.json"} {
		if hooksDisabled(filepath.Join(home, name)) {
			return []finding{{level: bad, what: "Copilot CLI runs no hooks: disableAllHooks is true in " + filepath.Join(home, name),
				fix: "remove disableAllHooks from that file, then start Copilot again"}}
		}
	}
	return []finding{{level: good, what: "Copilot CLI: Trail Boss's hooks are in " + path + " (read when Copilot starts)"}}
}

// hooksDisabled reports whether Copilot's JSON settings file at path turns every hook off.
func hooksDisabled(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var s struct {
		DisableAllHooks bool `json:"disableAllHooks"`
	}
	return json.Unmarshal(b, &s) == nil && s.DisableAllHooks
}
