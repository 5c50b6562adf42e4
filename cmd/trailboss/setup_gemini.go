package main

// trailboss setup --gemini: Trail Boss's hooks in Gemini CLI's settings.json, added with
// every other byte kept and taken out exactly by --undo (hooks/install/gemini.go).

import (
	"path/filepath"

	"github.com/trailboss/trailboss/hooks/install"
)

// geminiSettingsPath is Gemini CLI's user settings: $GEMINI_CLI_HOME/.gemini/settings.json
// when that is set (Gemini's own override of the home folder), else ~/.gemini/settings.json.
func geminiSettingsPath(getenv func(string) string, home string) string {
	if d := getenv("GEMINI_CLI_HOME"); d != "" {
		home = d
	}
	return filepath.Join(home, ".gemini", "settings.json")
}

// harnessSetup is what setup does in Gemini's settings, and what to tell the user.
// planGemini plans the Gemini part of setup. Without --gemini an install leaves Gemini
// alone (and says how to add it when Gemini's folder is there); an undo takes our hooks out
// whenever they are there. bin is trailboss as a shell word, for the advice; hot the hook
// program as a shell word.
func planGemini(getenv func(string) string, home string, f setupFlags, bin, hot string) (harnessSetup, error) {
	path := geminiSettingsPath(getenv, home)
	command := hot + " emit " + install.GeminiEmitFlag
	if !f.gemini {
		c, err := install.Read(path, 0o600)
		if err != nil || len(install.Installed(c.Old, command)) == 0 {
			if !f.undo && fileExists(filepath.Dir(path)) {
				return harnessSetup{notes: []string{"Gemini CLI is installed too (" + filepath.Dir(path) +
					"): `" + bin + " setup --gemini` adds Trail Boss to it."}}, nil
			}
			return harnessSetup{}, nil
		}
		if !f.undo {
			return harnessSetup{}, nil
		}
	}
	c, err := install.PlanGemini(path, command, f.undo)
	if err != nil {
		return harnessSetup{}, err
	}
	if f.undo || c.Unchanged {
		return harnessSetup{change: c}, nil
	}
	return harnessSetup{change: c, notes: []string{"Gemini CLI reads its hooks when it starts: a Gemini CLI running now " +
		"reports to Trail Boss once it is started again. No hook can approve in Gemini: an answer from afar is typed " +
		"into its pane, with delivery on."}}, nil
}
