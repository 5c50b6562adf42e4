package main

import (
	"os"
	"path/filepath"

	"github.com/trailboss/trailboss/hooks/install"
)

// codexAppServer reports on Codex's shared app-server, when Trail Boss is in Codex's config:
// a running one runs every Codex's hooks and notify with the environment of the Codex that
// started it, so `trailboss emit --codex` drops what it runs (see emit.ErrSharedAppServer).
func (d *doctor) codexAppServer() []finding {
	path := codexConfigPath(d.getenv, homeDir(d.getenv))
	config, err := os.ReadFile(path)
	if err != nil {
		return nil // no Codex config: Trail Boss is not in it
	}
	if notify, hooksIn := install.CodexInstalled(config); !notify && !hooksIn {
		return nil
	}
	shares := install.CodexSharesAppServer(config)
	if pids := sharedCodexAppServers(filepath.Dir(path)); len(pids) > 0 {
		f := finding{level: bad, what: "Codex's shared app-server is running (pid " + joinPIDs(pids) + "): " +
			"Trail Boss drops the Codex events it runs",
			detail: []string{"it runs every Codex's hooks and notify with the environment of the Codex that started it,",
				"so they carry that Codex's pane, not their own"},
			fix: "codex app-server daemon stop, once no Codex is working (Codex uses a running one even with daemon_auto_start = false)"}
		if shares {
			f.fix = "trailboss setup --codex (sets [features] daemon_auto_start = false), then " + f.fix
		}
		return []finding{f}
	}
	if shares {
		return []finding{{level: note, what: "Codex will start a shared app-server (" + path + " does not set " +
			"[features] daemon_auto_start = false): Trail Boss would drop the Codex events it runs",
			fix: "trailboss setup --codex"}}
	}
	return []finding{{level: good, what: "each Codex runs its own app-server (daemon_auto_start = false): its events carry its pane"}}
}
