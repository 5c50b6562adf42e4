package main

// trailboss setup [--undo]: the Claude Code hooks in settings.json and a block in the tmux
// config, each added so that --undo takes out exactly what was added. Every change is
// planned first (so an unreadable file changes nothing at all), then printed (--dry-run)
// or written.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/hooks/install"
	"github.com/trailboss/trailboss/tmuxctl"
)

// backupSuffix names the copy of settings.json that setup keeps from before its first
// install. An empty backup means there was no file.
const backupSuffix = ".trailboss-backup"

type setupFlags struct {
	undo, dryRun, noTmux, noClaude, codex, opencode bool
	project                                         string
}

// fileChange is one file setup writes (or removes), and what to say about it.
type fileChange struct {
	path       string
	old, new   []byte
	existed    bool
	mode       fs.FileMode
	remove     bool   // delete the file instead of writing new
	removeDir  string // and then this folder, when it is empty
	saveBackup string // install: keep old here first (empty: there was no file)
	dropBackup string // undo: delete this backup after
	unchanged  bool   // nothing to do
	said       string // what was done, for the summary
}

// notes says what happens to the backup, for --dry-run.
func (c *fileChange) notes() string {
	switch {
	case c.saveBackup != "" && c.existed:
		return "  (and keep the original as " + c.saveBackup + ")\n"
	case c.saveBackup != "":
		return "  (and write an empty " + c.saveBackup + ": there was no file)\n"
	case c.dropBackup != "":
		return "  (and delete the backup " + c.dropBackup + ")\n"
	case c.removeDir != "":
		return "  (and the folder " + c.removeDir + " once it is empty: setup made it)\n"
	}
	return ""
}

func runSetup(ctx context.Context, e *env, args []string) error {
	fset := flag.NewFlagSet("setup", flag.ContinueOnError)
	var f setupFlags
	fset.BoolVar(&f.undo, "undo", false, "remove what setup added")
	fset.BoolVar(&f.dryRun, "dry-run", false, "print every change and change nothing")
	fset.BoolVar(&f.noTmux, "no-tmux", false, "leave the tmux config alone")
	fset.BoolVar(&f.noClaude, "no-claude", false, "leave Claude Code's settings alone")
	fset.BoolVar(&f.codex, "codex", false, "also add Trail Boss to Codex CLI's config ($CODEX_HOME/config.toml)")
	fset.BoolVar(&f.opencode, "opencode", false, "also add Trail Boss's plugin to OpenCode ($XDG_CONFIG_HOME/opencode/plugins)")
	fset.StringVar(&f.project, "project", "", "install the hooks in `DIR`/.claude/settings.json instead of the user settings")
	if err := parse(fset, args, e.stderr); err != nil {
		return err
	}
	if f.noTmux && f.noClaude && !f.codex && !f.opencode {
		return fmt.Errorf("%w: --no-tmux and --no-claude leave nothing to do", errUsage)
	}
	home := e.getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return err
		}
		home = h
	}
	bin, why := trailbossBin()
	command := bin + " emit"
	keyDefaults, err := configKeys(e.getenv)
	if err != nil {
		return err
	}

	var changes []*fileChange
	if !f.noClaude {
		path, err := settingsPath(f.project, e.getenv, home)
		if err != nil {
			return err
		}
		c, err := planClaude(path, command, f.undo)
		if err != nil {
			return err
		}
		changes = append(changes, c)
	}
	var tmuxSocket string
	if !f.noTmux {
		c, err := planTmux(tmuxConfPath(e.getenv, home), bin, f.undo)
		if err != nil {
			return err
		}
		changes = append(changes, c)
		tmuxSocket = userSocket("", e.getenv)
	}
	codexPlan, err := planCodex(e.getenv, home, f, bin)
	if err != nil {
		return err
	}
	if codexPlan.change != nil {
		changes = append(changes, codexPlan.change)
		f.codex = true // for the hints that repeat the scope
	}
	openCodePlan, err := planOpenCode(e.getenv, home, f, bin)
	if err != nil {
		return err
	}
	if openCodePlan.change != nil {
		changes = append(changes, openCodePlan.change)
		f.opencode = true
	}

	w := e.stdout
	if !f.noClaude && !f.undo {
		fmt.Fprintf(w, "Hook command: %s (%s)\n", command, why)
	}
	nothing := true
	for _, c := range changes {
		if !c.unchanged {
			nothing = false
		}
	}
	if f.dryRun {
		for _, c := range changes {
			if c.unchanged {
				fmt.Fprintf(w, "%s\n", c.said)
				continue
			}
			fmt.Fprintf(w, "Would change %s:\n", c.path)
			fmt.Fprint(w, c.notes())
			if c.remove {
				fmt.Fprintf(w, "  (delete the file %s)\n", c.path)
			}
			old, new := c.old, c.new
			if c.remove {
				new = nil
			}
			fmt.Fprintf(w, "%s", diff.Diff(c.path, old, c.path+" (after)", new))
		}
		if tmuxSocket != "" {
			if f.undo {
				fmt.Fprintln(w, "Would unbind Trail Boss's keys on the running tmux server and take its status segment off.")
			} else {
				fmt.Fprintln(w, "Would apply to the running tmux server:")
				fmt.Fprint(w, indentLines(tmuxLines(tmuxSettings{bin: bin, defaults: keyDefaults}), "  "))
			}
		}
		printNotes(w, codexPlan.notes)
		printNotes(w, openCodePlan.notes)
		fmt.Fprintln(w, "Dry run: nothing was changed.")
		return nil
	}

	for _, c := range changes {
		if err := c.write(); err != nil {
			return err
		}
		fmt.Fprintln(w, c.said)
	}
	printNotes(w, codexPlan.notes)
	printNotes(w, openCodePlan.notes)
	if tmuxSocket != "" && f.undo {
		done, err := unapplyTmux(ctx, tmuxctl.New(tmuxSocket), keyDefaults)
		if err != nil {
			return fmt.Errorf("undo on the running tmux server: %w", err)
		}
		if len(done) > 0 {
			fmt.Fprintf(w, "✓ running tmux server: %s\n", strings.Join(done, "; "))
		}
	}
	if tmuxSocket == "" && f.undo && !f.noTmux {
		fmt.Fprintln(w, "! not inside tmux, and no tmux server runs on the default socket: a tmux server started "+
			"another way keeps Trail Boss's keys and status segment until it restarts; to clear them now, "+
			"run "+bin+" setup --undo inside it")
	}
	if f.undo && !f.noTmux {
		// The tmux block started the daemon; with the block gone, nothing would.
		if dir, err := statedir.Default(); err == nil {
			pid, err := stopDaemon(dir)
			if err != nil {
				return err
			}
			if pid != 0 {
				fmt.Fprintf(w, "✓ stopped the daemon (pid %d)\n", pid)
			}
		}
	}
	if tmuxSocket != "" && !f.undo {
		t := tmuxctl.New(tmuxSocket)
		if err := applyTmux(ctx, t, bin, keyDefaults); err != nil {
			return fmt.Errorf("apply to the running tmux server: %w", err)
		}
		fmt.Fprintf(w, "✓ applied to the running tmux server: %s\n", keysSummary(ctx, t, keyDefaults))
		if v, _ := t.GlobalOption(ctx, startOption); strings.TrimSpace(v) != "off" {
			said, err := ensureDaemonFromTmux(ctx, tmuxSocket)
			if err != nil {
				return err
			}
			fmt.Fprintln(w, "✓ "+said)
		}
	}
	switch {
	case f.undo && nothing:
		fmt.Fprintln(w, "Trail Boss was not set up; nothing changed.")
	case f.undo:
		fmt.Fprintln(w, "Set up again with: "+bin+" setup"+scopeFlags(f))
	case nothing:
		fmt.Fprintln(w, "Trail Boss is already set up; nothing changed.")
	default:
		fmt.Fprintln(w, "Undo with: "+bin+" setup --undo"+scopeFlags(f))
	}
	return nil
}

// scopeFlags repeats the flags that chose what setup touched, for the undo hint.
func scopeFlags(f setupFlags) string {
	s := ""
	if f.project != "" {
		s += " --project " + hooks.ShellWord(f.project)
	}
	if f.noTmux {
		s += " --no-tmux"
	}
	if f.noClaude {
		s += " --no-claude"
	}
	if f.codex {
		s += " --codex"
	}
	if f.opencode {
		s += " --opencode"
	}
	return s
}

// keysSummary says which keys are bound, e.g. "prefix Tab → jump-next, prefix g → popup".
func keysSummary(ctx context.Context, t *tmuxctl.Server, defaults map[string]string) string {
	s, err := readTmuxSettings(ctx, t, "", false, defaults)
	if err != nil {
		return "keys bound"
	}
	var parts []string
	for _, k := range tmuxKeys {
		if key := s.key(k); key != "" {
			parts = append(parts, "prefix "+key+" → "+k.verb)
		}
	}
	if len(parts) == 0 {
		return "no keys (every @trailboss-*-key is none)"
	}
	return strings.Join(parts, ", ")
}

func indentLines(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
}

// ---- where the files are -------------------------------------------------------------------

// settingsPath is Claude Code's user settings ($CLAUDE_CONFIG_DIR/settings.json, else
// ~/.claude/settings.json), or a project's .claude/settings.json.
func settingsPath(project string, getenv func(string) string, home string) (string, error) {
	if project != "" {
		abs, err := filepath.Abs(project)
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%w: --project %s is not a folder", errUsage, project)
		}
		return filepath.Join(abs, ".claude", "settings.json"), nil
	}
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "settings.json"), nil
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// tmuxConfPath is ~/.tmux.conf, unless only $XDG_CONFIG_HOME/tmux/tmux.conf or
// ~/.config/tmux/tmux.conf exists (tmux 3.2+ reads those too).
func tmuxConfPath(getenv func(string) string, home string) string {
	classic := filepath.Join(home, ".tmux.conf")
	if fileExists(classic) {
		return classic
	}
	var xdg []string
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		xdg = append(xdg, filepath.Join(d, "tmux", "tmux.conf"))
	}
	xdg = append(xdg, filepath.Join(home, ".config", "tmux", "tmux.conf"))
	for _, p := range xdg {
		if fileExists(p) {
			return p
		}
	}
	return classic
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// readIfExists returns the file's bytes and mode, and whether it exists.
func readIfExists(path string) ([]byte, fs.FileMode, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, false, err
	}
	return b, fi.Mode().Perm(), true, nil
}

// ---- Claude Code's settings ----------------------------------------------------------------

func planClaude(path, command string, undo bool) (*fileChange, error) {
	old, mode, existed, err := readIfExists(path)
	if err != nil {
		return nil, err
	}
	c := &fileChange{path: path, old: old, existed: existed, mode: mode}
	if !existed {
		c.mode = 0o644
	}
	backup := path + backupSuffix
	if !undo {
		c.new, err = install.Install(old, command)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (nothing was changed)", path, err)
		}
		if bytes.Equal(c.new, old) && existed {
			c.unchanged = true
			c.said = "✓ Claude Code hooks already set up in " + path
			return c, nil
		}
		c.said = fmt.Sprintf("✓ Claude Code hooks added to %s (%d events)", path, len(install.Events()))
		upgrade := len(install.Installed(old, command)) == len(install.Events())
		if upgrade {
			// An older setup's hooks, brought up to date in place (PermissionRequest made
			// synchronous, so that it can hold for a delivered answer). The file is not the
			// original from before setup: it is no backup.
			c.said = "✓ Claude Code hooks updated in " + path
		}
		if !fileExists(backup) && !upgrade { // the first install keeps the original; later ones keep that
			c.saveBackup = backup
			if existed {
				c.said += "; the original is kept as " + backup
			}
		}
		return c, nil
	}

	saved, _, hasBackup, err := readIfExists(backup)
	if err != nil {
		return nil, err
	}
	if hasBackup {
		c.dropBackup = backup
	}
	if !existed {
		c.unchanged = !hasBackup
		c.said = "✓ no Claude Code settings at " + path + ": nothing to undo"
		if hasBackup {
			c.said += " (removed the leftover " + backup + ")"
		}
		return c, nil
	}
	c.new, err = install.Uninstall(old, command)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (nothing was changed)", path, err)
	}
	how := "took out Trail Boss's hooks, kept everything else"
	switch {
	case hasBackup && len(saved) == 0 && install.SameJSON(c.new, []byte("{}")):
		c.remove = true // setup created the file and nothing else was put in it since
	case hasBackup && sameAsBefore(c.new, saved, command):
		c.new = saved // the same settings as before setup: give back their very bytes
		how = "restored the original byte for byte"
	}
	switch {
	case c.remove:
		c.said = "✓ removed " + path + " (setup had created it)"
	case bytes.Equal(c.new, old):
		c.unchanged = !hasBackup
		c.said = "✓ no Trail Boss hooks in " + path
		if hasBackup {
			c.said += " (removed the leftover " + backup + ")"
		}
	default:
		c.said = "✓ Claude Code hooks removed from " + path + " (" + how + ")"
	}
	return c, nil
}

// sameAsBefore reports whether settings without our hooks hold what saved held before
// setup: the same JSON, or the same as saved after an install and uninstall of its own
// (which drop an empty "hooks" or event list that was there before).
func sameAsBefore(now, saved []byte, command string) bool {
	if install.SameJSON(now, saved) {
		return true
	}
	in, err := install.Install(saved, command)
	if err != nil {
		return false
	}
	out, err := install.Uninstall(in, command)
	return err == nil && install.SameJSON(now, out)
}

// write makes the change on disk: the backup first, then the file (atomically), then the
// retired backup goes.
func (c *fileChange) write() error {
	if c.unchanged {
		return nil
	}
	if c.saveBackup != "" {
		if err := os.MkdirAll(filepath.Dir(c.saveBackup), 0o700); err != nil {
			return err
		}
		if err := writeAtomic(c.saveBackup, c.old, c.mode); err != nil {
			return fmt.Errorf("keep a backup: %w", err)
		}
	}
	switch {
	case c.remove:
		if err := os.Remove(c.path); err != nil {
			return err
		}
	case c.existed && !bytes.Equal(c.new, c.old), !c.existed && c.new != nil:
		if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
			return err
		}
		if err := writeAtomic(c.path, c.new, c.mode); err != nil {
			return err
		}
	}
	if c.dropBackup != "" {
		if err := os.Remove(c.dropBackup); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if c.removeDir != "" {
		_ = os.Remove(c.removeDir) // fails, as it should, when something else is in it
	}
	return nil
}

// writeAtomic replaces path with data: a temp file in the same folder, then a rename, so a
// crash leaves the old file or the new one, never half of one. A symlink (dotfiles) is
// followed: its target is replaced and the link stays.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func planTmux(path, bin string, undo bool) (*fileChange, error) {
	old, mode, existed, err := readIfExists(path)
	if err != nil {
		return nil, err
	}
	c := &fileChange{path: path, old: old, existed: existed, mode: mode}
	if !existed {
		c.mode = 0o644
	}
	if !undo {
		c.new, err = install.AddTmuxBlock(old, install.TmuxBlock(bin))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if bytes.Equal(c.new, old) {
			c.unchanged = true
			c.said = "✓ tmux block already in " + path
			return c, nil
		}
		c.said = "✓ tmux: added a trailboss block to " + path + " (keys prefix Tab, g, S; status segment); tmux applies it when it starts"
		if install.HasTmuxBlock(old) {
			c.said = "✓ tmux: updated the trailboss block in " + path
		}
		return c, nil
	}
	var found bool
	c.new, found, err = install.RemoveTmuxBlock(old)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !found {
		c.unchanged = true
		c.said = "✓ no trailboss block in " + path
		return c, nil
	}
	c.said = "✓ tmux: removed the trailboss block from " + path
	if len(c.new) == 0 {
		c.remove = true
		c.said = "✓ tmux: removed " + path + " (it held only the trailboss block)"
	}
	return c, nil
}
