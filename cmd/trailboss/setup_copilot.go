package main

// trailboss setup --copilot: Trail Boss's hook file in GitHub Copilot CLI's hooks folder,
// written whole and removed whole by --undo (hooks/install/copilot.go).

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/trailboss/trailboss/hooks/install"
)

// copilotHome is Copilot CLI's configuration folder: $COPILOT_HOME, else ~/.copilot.
func copilotHome(getenv func(string) string, home string) string {
	if d := getenv("COPILOT_HOME"); d != "" {
		return d
	}
	return filepath.Join(home, ".copilot")
}

// harnessSetup is what setup does in Copilot's hooks folder, and what to tell the user.
// planCopilot plans the Copilot part of setup. Without --copilot an install leaves Copilot
// alone (and says how to add it when Copilot's folder is there); an undo removes Trail
// Boss's hook file whenever it is there. bin is trailboss as a shell word, for the advice;
// prog the program the hooks run (hotProgram).
func planCopilot(getenv func(string) string, home string, f setupFlags, bin, prog string) (harnessSetup, error) {
	dir := filepath.Join(copilotHome(getenv, home), "hooks")
	path := filepath.Join(dir, install.CopilotHooksName)
	c, err := install.Read(path, 0o600)
	if err != nil {
		return harnessSetup{}, err
	}
	old, existed := c.Old, c.Existed
	ours := existed && install.IsCopilotHooks(old)
	if f.undo {
		switch {
		case !f.copilot && !ours:
			return harnessSetup{}, nil
		case !existed:
			c.Unchanged, c.Said = true, "✓ no Trail Boss hooks in "+dir+": nothing to undo for Copilot CLI"
		case !ours:
			c.Unchanged, c.Said = true, "! "+path+" is not Trail Boss's hook file (its \"trailboss\" key says whose it is): left alone"
		default:
			c.Remove = true
			c.Said = "✓ Copilot CLI: removed Trail Boss's hooks " + path
			if install.CopilotHooksMadeFolder(old) {
				c.RemoveDir = dir
			}
		}
		return harnessSetup{change: c}, nil
	}
	if !f.copilot {
		if fileExists(filepath.Dir(dir)) && !ours {
			return harnessSetup{notes: []string{"GitHub Copilot CLI is installed too (" + filepath.Dir(dir) +
				"): `" + bin + " setup --copilot` adds Trail Boss to it."}}, nil
		}
		return harnessSetup{}, nil
	}
	if existed && !ours {
		return harnessSetup{}, fmt.Errorf("%s is not Trail Boss's hook file (it lacks Trail Boss's \"trailboss\" key), so setup "+
			"will not overwrite it: move it away and run setup --copilot again (nothing was changed)", path)
	}
	madeFolder := !fileExists(dir) || (ours && install.CopilotHooksMadeFolder(old))
	c.New = install.CopilotHooks(prog, madeFolder)
	if existed && bytes.Equal(old, c.New) {
		c.Unchanged, c.Said = true, "✓ Copilot CLI already set up: "+path
		return harnessSetup{change: c}, nil
	}
	c.Said = "✓ Copilot CLI: Trail Boss's hooks written to " + path
	if existed {
		c.Said = "✓ Copilot CLI: Trail Boss's hooks brought up to date in " + path
	}
	return harnessSetup{change: c, notes: []string{"Copilot CLI reads its hooks when it starts: a Copilot running now " +
		"reports to Trail Boss once it is started again."}}, nil
}
