package main

import (
	"os"
	"path/filepath"

	"github.com/trailboss/trailboss/hooks/install"
)

// gemini reports on Trail Boss's hooks in Gemini CLI's settings.json: all there, running
// this trailboss. Nothing when Gemini CLI is not set up and its folder is not there.
func (d *doctor) gemini() []finding {
	path := geminiSettingsPath(d.getenv, homeDir(d.getenv))
	hot, _ := hotBin()
	command := hot + " emit " + install.GeminiEmitFlag
	b, err := os.ReadFile(path)
	if err != nil || len(install.Installed(b, command)) == 0 {
		if fileExists(filepath.Dir(path)) {
			return []finding{{level: note, what: "Gemini CLI is installed (" + filepath.Dir(path) + ") but Trail Boss's hooks are not in " + path,
				fix: "trailboss setup --gemini"}}
		}
		return nil
	}
	if want, err := install.InstallGemini(b, command); err != nil || string(want) != string(b) {
		return []finding{{level: bad, what: "Trail Boss's hooks in " + path + " are not all there, or run another trailboss",
			detail: []string{"Gemini CLI would not report every wait to Trail Boss"},
			fix:    "trailboss setup --gemini, then start Gemini CLI again"}}
	}
	return []finding{{level: good, what: "Gemini CLI: Trail Boss's hooks are in " + path + " (read when Gemini CLI starts)"}}
}
