package main

// trailboss setup --opencode: Trail Boss's plugin file in OpenCode's plugins folder, written
// whole and removed whole by --undo (hooks/install/opencode.go). OpenCode has no shell hooks;
// the plugin runs in its process and hands its events to `trailboss emit --opencode`.

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/trailboss/trailboss/hooks/install"
)

// openCodePluginsDir is the folder OpenCode loads plugin files from:
// $XDG_CONFIG_HOME/opencode/plugins, else ~/.config/opencode/plugins.
func openCodePluginsDir(getenv func(string) string, home string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "opencode", "plugins")
	}
	return filepath.Join(home, ".config", "opencode", "plugins")
}

// harnessSetup is what setup does in OpenCode's plugins folder, and what to tell the user.
// planOpenCode plans the OpenCode part of setup. Without --opencode an install leaves
// OpenCode alone (and says how to add it when OpenCode's config folder is there); an undo
// removes Trail Boss's plugin whenever it is there.
// bin is trailboss as a shell word, for the advice; prog the program the plugin runs (hotProgram).
func planOpenCode(getenv func(string) string, home string, f setupFlags, bin, prog string) (harnessSetup, error) {
	dir := openCodePluginsDir(getenv, home)
	path := filepath.Join(dir, install.OpenCodePluginName)
	c, err := install.Read(path, 0o600)
	if err != nil {
		return harnessSetup{}, err
	}
	old, existed := c.Old, c.Existed
	ours := existed && install.IsOpenCodePlugin(old)
	if f.undo {
		switch {
		case !f.opencode && !ours:
			return harnessSetup{}, nil
		case !existed:
			c.Unchanged, c.Said = true, "✓ no Trail Boss plugin in "+dir+": nothing to undo for OpenCode"
		case !ours:
			c.Unchanged, c.Said = true, "! "+path+" is not Trail Boss's plugin (its first line says whose it is): left alone"
		default:
			c.Remove = true
			c.Said = "✓ OpenCode: removed Trail Boss's plugin " + path
			if install.OpenCodePluginMadeFolder(old) {
				c.RemoveDir = dir
			}
		}
		return harnessSetup{change: c}, nil
	}
	if !f.opencode {
		if fileExists(filepath.Dir(dir)) && !ours {
			return harnessSetup{notes: []string{"OpenCode is installed too (" + filepath.Dir(dir) +
				"): `" + bin + " setup --opencode` adds Trail Boss to it."}}, nil
		}
		return harnessSetup{}, nil
	}
	if existed && !ours {
		return harnessSetup{}, fmt.Errorf("%s is not Trail Boss's plugin (it lacks Trail Boss's first line), so setup "+
			"will not overwrite it: move it away and run setup --opencode again (nothing was changed)", path)
	}
	madeFolder := !fileExists(dir) || (ours && install.OpenCodePluginMadeFolder(old))
	c.New = install.OpenCodePlugin(prog, madeFolder)
	if existed && bytes.Equal(old, c.New) {
		c.Unchanged, c.Said = true, "✓ OpenCode already set up: "+path
		return harnessSetup{change: c}, nil
	}
	c.Said = "✓ OpenCode: Trail Boss's plugin written to " + path
	if existed {
		c.Said = "✓ OpenCode: Trail Boss's plugin brought up to date in " + path
	}
	return harnessSetup{change: c, notes: []string{"OpenCode loads plugins when it starts: an OpenCode running now " +
		"reports to Trail Boss once it is started again."}}, nil
}
