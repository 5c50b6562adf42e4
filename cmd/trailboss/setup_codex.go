package main

// trailboss setup --codex: Trail Boss's notify program and hooks in Codex CLI's config.toml,
// and `[features] daemon_auto_start = false` so that each Codex runs its own app-server,
// added (and taken out by --undo) like the Claude Code hooks: a backup of the original, and
// surgical edits that keep every other byte (hooks/codexconfig.go).

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/trailboss/trailboss/hooks/emit"
	"github.com/trailboss/trailboss/hooks/install"
)

// codexConfigPath is $CODEX_HOME/config.toml, else ~/.codex/config.toml.
func codexConfigPath(getenv func(string) string, home string) string {
	if d := getenv("CODEX_HOME"); d != "" {
		return filepath.Join(d, "config.toml")
	}
	return filepath.Join(home, ".codex", "config.toml")
}

// hotProgram is the program Codex and OpenCode run for `emit`, as hotBin chooses it:
// "trailboss-hot" or "trailboss" from PATH, else an absolute path, unquoted (they run it
// with argv, no shell).
func hotProgram() string {
	switch word, _ := hotBin(); word {
	case hotBinName, "trailboss":
		return word
	}
	if p := hotBinBeside(selfPath()); p != "" {
		return p
	}
	return selfPath()
}

// harnessSetup is what setup does to Codex's config: the change, and what to tell the user
// beside it.
// planCodex plans the Codex part of setup. Without --codex an install leaves Codex alone
// (and only says how to add it when Codex is there); an undo takes Trail Boss out of the
// config whenever it is in it.
// bin is trailboss as a shell word, for the advice; prog the program Codex runs (hotProgram).
func planCodex(getenv func(string) string, home string, f setupFlags, bin, prog string) (harnessSetup, error) {
	path := codexConfigPath(getenv, home)
	if !f.codex {
		c, err := install.Read(path, 0o600)
		if err != nil {
			return harnessSetup{}, err
		}
		notify, hooksIn := install.CodexInstalled(c.Old)
		switch {
		case f.undo && (notify || hooksIn || fileExists(path+install.BackupSuffix)):
			// Taken out below, as with --codex.
		case !f.undo && fileExists(filepath.Dir(path)) && !notify && !hooksIn:
			return harnessSetup{notes: []string{"Codex CLI is installed too (" + filepath.Dir(path) +
				"): `" + bin + " setup --codex` adds Trail Boss to it."}}, nil
		default:
			return harnessSetup{}, nil
		}
	}
	c, notes, err := planCodexFile(path, prog, f.undo)
	if err == nil && !f.undo {
		if pids := sharedCodexAppServers(filepath.Dir(path)); len(pids) > 0 {
			notes = append(notes, fmt.Sprintf("Codex's shared app-server is running now (pid %s): Codex uses a running one "+
				"even with daemon_auto_start = false. Stop it once no Codex is working: codex app-server daemon stop",
				joinPIDs(pids)))
		}
	}
	return harnessSetup{change: c, notes: notes}, err
}

// planCodexFile plans the change of config.toml at path for the program bin.
func planCodexFile(path, bin string, undo bool) (*install.Change, []string, error) {
	c, err := install.Read(path, 0o600) // Codex's config may hold provider settings
	if err != nil {
		return nil, nil, err
	}
	if !undo {
		res, err := install.InstallCodex(c.Old, bin)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w (nothing was changed)", path, err)
		}
		c.New = res.Config
		var notes []string
		switch {
		case res.UserNotify != nil:
			notes = append(notes, fmt.Sprintf("Codex already runs a notify program (%s) in %s; Trail Boss left it alone "+
				"and gets turn ends from a Stop hook instead. To have both through notify, make that line:\n    %s",
				strings.Join(res.UserNotify, " "), path, install.CodexNotifyChain(res.UserNotify, bin)))
		case res.UserNotifyOdd:
			notes = append(notes, "Codex's notify in "+path+" is not a list of strings; Trail Boss left it alone "+
				"and gets turn ends from a Stop hook instead.")
		}
		if bytes.Equal(c.New, c.Old) && c.Existed {
			c.Unchanged, c.Said = true, "✓ Codex CLI already set up in "+path
			return c, notes, nil
		}
		what := "hooks"
		if res.Notify {
			what = "notify and hooks"
		}
		c.KeepOriginal(fmt.Sprintf("✓ Codex CLI: %s added to %s (%s)", what, path, strings.Join(res.Hooks, ", ")))
		notes = append(notes, "Codex runs hooks only once you trust them: type /hooks in Codex and trust Trail Boss's. "+
			"Until then it hears only when a turn ends (notify).")
		notes = append(notes, appServerNotes(res.AppServer, path)...)
		return c, notes, nil
	}

	saved, hasBackup, err := c.Backup()
	if err != nil {
		return nil, nil, err
	}
	if !c.Existed {
		c.NothingToUndo("✓ no Codex config at " + path + ": nothing to undo")
		return c, nil, nil
	}
	var found bool
	c.New, found, err = install.UninstallCodex(c.Old)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w (nothing was changed)", path, err)
	}
	how := "took out Trail Boss's lines, kept everything else"
	switch {
	case !found:
		c.NothingToUndo("✓ no Trail Boss entries in " + path)
		return c, nil, nil
	case hasBackup && len(saved) == 0 && len(bytes.TrimSpace(c.New)) == 0:
		c.Remove, c.Said = true, "✓ removed "+path+" (setup had created it)"
		return c, nil, nil
	case hasBackup && bytes.Equal(c.New, saved):
		how = "restored the original byte for byte"
	}
	c.Said = "✓ Codex CLI: Trail Boss removed from " + path + " (" + how + ")"
	return c, nil, nil
}

// appServerNotes explains what setup did about Codex's shared app-server (see
// emit.ErrSharedAppServer for why it matters).
func appServerNotes(a install.CodexAppServer, path string) []string {
	const why = "Codex's TUIs otherwise share one background app-server, which runs every Codex's hooks and notify " +
		"with the environment of the first Codex started, so Trail Boss could not tell which pane they are from"
	switch a {
	case install.AppServerTurnedOff:
		return []string{why + ". Setup turned it off ([features] daemon_auto_start = false in " + path +
			"): each Codex now runs its own, and its events carry its own pane."}
	case install.AppServerKeptOn:
		return []string{path + " says daemon_auto_start = true. " + why + ": Trail Boss drops what that app-server runs " +
			"and sees only the approvals it reads off each pane. Set it to false to have every event."}
	case install.AppServerNotEdited:
		return []string{why + ". Setup left [features] in " + path + " alone (it is written in a way setup does not edit): " +
			"add daemon_auto_start = false to it by hand."}
	}
	return nil
}

// sharedCodexAppServers returns the pids of the shared Codex app-servers of codexHome running
// now: `codex app-server` processes that listen for TUIs (--listen, --managed-daemon), not
// the stdio one an editor runs for itself nor the daemon's helpers, whose binary lies under
// codexHome (Codex runs a copy from CODEX_HOME/packages) or whose CODEX_HOME is codexHome.
// It reads /proc; it finds none elsewhere.
func sharedCodexAppServers(codexHome string) []int {
	var pids []int
	for _, p := range liveProcs() {
		serving := slices.Contains(p.argv, "--managed-daemon") || slices.Contains(p.argv, "--listen")
		if !emit.IsCodexAppServer(p.argv) || !serving {
			continue
		}
		if strings.HasPrefix(p.argv[0], codexHome+string(filepath.Separator)) || p.env("CODEX_HOME") == codexHome {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

func joinPIDs(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ", ")
}

// printNotes prints what setup wants the user to know beside its changes, one "!" each.
func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, "! "+n)
	}
}
