package main

import (
	"os"
	"path/filepath"
	"strings"

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

// codexHookTrust reports whether Codex trusts Trail Boss's hooks in its config: Codex runs a
// hook only once its user has trusted it, and skips the others without a word, so an
// untrusted PermissionRequest or Interrupt hook leaves its waits unqueued (notify, which
// needs no trust, still reports turn ends).
func (d *doctor) codexHookTrust() []finding {
	path := codexConfigPath(d.getenv, homeDir(d.getenv))
	config, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	if _, hooksIn := install.CodexInstalled(config); !hooksIn {
		return nil
	}
	if untrusted := install.CodexUntrustedHooks(config, path); len(untrusted) > 0 {
		return []finding{{level: bad,
			what: "Codex has not trusted Trail Boss's hooks (" + strings.Join(untrusted, ", ") + "): it skips them without a word, " +
				"so Trail Boss does not see those events",
			detail: []string{"Codex runs a hook from " + path + " only once you have trusted it"},
			fix: "start codex and, when it says \"Hooks need review\", choose \"Trust all and continue\" " +
				"(or trust them in Codex's /hooks)"}}
	}
	return []finding{{level: good, what: "Codex trusts Trail Boss's hooks"}}
}
