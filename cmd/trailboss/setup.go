package main

// trailboss setup [--undo]: the Claude Code hooks in settings.json and a block in the tmux
// config, each added so that --undo takes out exactly what was added. Every change is
// planned first (so an unreadable file changes nothing at all), then printed (--dry-run)
// or written.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/hooks/install"
	"github.com/trailboss/trailboss/tmuxctl"
)

type setupFlags struct {
	undo, dryRun, noTmux, noClaude, codex, opencode, gemini, copilot bool
	project                                                          string
}

func runSetup(ctx context.Context, e *env, args []string) error {
	// The command line: what to set up (or undo), and whether only to show it.
	f, err := parseSetupFlags(e, args)
	if err != nil {
		return err
	}

	// Where things are: the home, the two binaries the hooks and keys run, the keys.
	home := e.getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil {
			return err
		}
	}
	bin, _ := trailbossBin()
	hot, why := hotBin()
	keyDefaults, err := configKeys(e.getenv)
	if err != nil {
		return err
	}

	// The plan: every file's change, made in memory first; a dry run shows it and stops.
	plan, err := planSetup(e, &f, home, bin, hot)
	if err != nil {
		return err
	}
	w := e.stdout
	if !f.noClaude && !f.undo {
		fmt.Fprintf(w, "Hook command: %s emit (%s)\n", hot, why)
	}
	if f.dryRun {
		printDryRun(w, plan, f, tmuxLines(tmuxSettings{bin: bin, hot: hot, defaults: keyDefaults}))
		return nil
	}

	// The files, then the running tmux server and the daemon it starts.
	for _, c := range plan.changes {
		if err := c.Write(); err != nil {
			return err
		}
		fmt.Fprintln(w, c.Said)
	}
	printNotes(w, plan.notes)
	if err := setupRunningTmux(ctx, w, plan.tmuxSocket, f, bin, hot, keyDefaults); err != nil {
		return err
	}

	// What to run to go back.
	switch nothing := plan.nothing(); {
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

func parseSetupFlags(e *env, args []string) (setupFlags, error) {
	fset := flag.NewFlagSet("setup", flag.ContinueOnError)
	var f setupFlags
	fset.BoolVar(&f.undo, "undo", false, "remove what setup added")
	fset.BoolVar(&f.dryRun, "dry-run", false, "print every change and change nothing")
	fset.BoolVar(&f.noTmux, "no-tmux", false, "leave the tmux config alone")
	fset.BoolVar(&f.noClaude, "no-claude", false, "leave Claude Code's settings alone")
	fset.BoolVar(&f.codex, "codex", false, "also add Trail Boss to Codex CLI's config ($CODEX_HOME/config.toml)")
	fset.BoolVar(&f.opencode, "opencode", false, "also add Trail Boss's plugin to OpenCode ($XDG_CONFIG_HOME/opencode/plugins)")
	fset.BoolVar(&f.gemini, "gemini", false, "also add Trail Boss's hooks to Gemini CLI ($GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini)")
	fset.BoolVar(&f.copilot, "copilot", false, "also add Trail Boss's hooks to GitHub Copilot CLI ($COPILOT_HOME/hooks)")
	fset.StringVar(&f.project, "project", "", "install the hooks in `DIR`/.claude/settings.json instead of the user settings")
	if err := parse(fset, args, e.stderr); err != nil {
		return f, err
	}
	if f.noTmux && f.noClaude && !f.codex && !f.opencode && !f.gemini && !f.copilot {
		return f, fmt.Errorf("%w: --no-tmux and --no-claude leave nothing to do", errUsage)
	}
	return f, nil
}

// harnessSetup is one agent CLI's part of setup.
type harnessSetup struct {
	change *install.Change // nil: nothing to do with that harness
	notes  []string
}

// setupPlan is everything setup would change: each file, what to say beside them, and the
// running tmux server to apply the keys to ("" for none).
type setupPlan struct {
	changes    []*install.Change
	notes      []string
	tmuxSocket string
}

// nothing reports whether every file is already as setup would leave it.
func (p setupPlan) nothing() bool {
	for _, c := range p.changes {
		if !c.Unchanged {
			return false
		}
	}
	return true
}

// planSetup plans every file setup touches: Claude Code's settings, the tmux config, and
// each other harness's. A harness it will change is marked in f, for the hints that repeat
// the scope.
func planSetup(e *env, f *setupFlags, home, bin, hot string) (setupPlan, error) {
	var plan setupPlan
	if !f.noClaude {
		path, err := settingsPath(f.project, e.getenv, home)
		if err != nil {
			return plan, err
		}
		c, err := install.PlanClaude(path, hot+" emit", f.undo)
		if err != nil {
			return plan, err
		}
		plan.changes = append(plan.changes, c)
	}
	if !f.noTmux {
		c, err := install.PlanTmux(tmuxConfPath(e.getenv, home), bin, f.undo)
		if err != nil {
			return plan, err
		}
		plan.changes = append(plan.changes, c)
		plan.tmuxSocket = userSocket("", e.getenv)
	}
	for _, h := range []struct {
		plan   func() (harnessSetup, error)
		chosen *bool
	}{
		{func() (harnessSetup, error) { return planCodex(e.getenv, home, *f, bin, hotProgram()) }, &f.codex},
		{func() (harnessSetup, error) { return planOpenCode(e.getenv, home, *f, bin, hotProgram()) }, &f.opencode},
		{func() (harnessSetup, error) { return planGemini(e.getenv, home, *f, bin, hot) }, &f.gemini},
		{func() (harnessSetup, error) { return planCopilot(e.getenv, home, *f, bin, hot) }, &f.copilot},
	} {
		hs, err := h.plan()
		if err != nil {
			return plan, err
		}
		if hs.change != nil {
			plan.changes = append(plan.changes, hs.change)
			*h.chosen = true
		}
		plan.notes = append(plan.notes, hs.notes...)
	}
	return plan, nil
}

// printDryRun shows every change of plan as a diff, and what would be applied to the
// running tmux server (tmuxConf, the lines it would run).
func printDryRun(w io.Writer, plan setupPlan, f setupFlags, tmuxConf string) {
	for _, c := range plan.changes {
		if c.Unchanged {
			fmt.Fprintf(w, "%s\n", c.Said)
			continue
		}
		fmt.Fprintf(w, "Would change %s:\n", c.Path)
		fmt.Fprint(w, c.Notes())
		if c.Remove {
			fmt.Fprintf(w, "  (delete the file %s)\n", c.Path)
		}
		old, new := c.Old, c.New
		if c.Remove {
			new = nil
		}
		fmt.Fprintf(w, "%s", diff.Diff(c.Path, old, c.Path+" (after)", new))
	}
	if plan.tmuxSocket != "" {
		if f.undo {
			fmt.Fprintln(w, "Would unbind Trail Boss's keys on the running tmux server and take its status segment off.")
		} else {
			fmt.Fprintln(w, "Would apply to the running tmux server:")
			fmt.Fprint(w, indentLines(tmuxConf, "  "))
		}
	}
	printNotes(w, plan.notes)
	fmt.Fprintln(w, "Dry run: nothing was changed.")
}

// setupRunningTmux brings the running tmux server at socket ("" for none) in line with the
// tmux config just written: keys bound and the daemon started, or, for an undo, the keys
// unbound and the daemon the tmux block started stopped.
func setupRunningTmux(ctx context.Context, w io.Writer, socket string, f setupFlags, bin, hot string, keyDefaults map[string]string) error {
	if f.undo {
		if socket != "" {
			done, err := unapplyTmux(ctx, tmuxctl.New(socket), keyDefaults)
			if err != nil {
				return fmt.Errorf("undo on the running tmux server: %w", err)
			}
			if len(done) > 0 {
				fmt.Fprintf(w, "✓ running tmux server: %s\n", strings.Join(done, "; "))
			}
		}
		if socket == "" && !f.noTmux {
			fmt.Fprintln(w, "! not inside tmux, and no tmux server runs on the default socket: a tmux server started "+
				"another way keeps Trail Boss's keys and status segment until it restarts; to clear them now, "+
				"run "+bin+" setup --undo inside it")
		}
		if !f.noTmux {
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
		return nil
	}
	if socket == "" {
		return nil
	}
	t := tmuxctl.New(socket)
	if err := applyTmux(ctx, t, bin, hot, keyDefaults); err != nil {
		return fmt.Errorf("apply to the running tmux server: %w", err)
	}
	fmt.Fprintf(w, "✓ applied to the running tmux server: %s\n", keysSummary(ctx, t, keyDefaults))
	if v, _ := t.GlobalOption(ctx, startOption); strings.TrimSpace(v) != "off" {
		said, err := ensureDaemonFromTmux(ctx, socket)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, "✓ "+said)
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
	if f.gemini {
		s += " --gemini"
	}
	if f.copilot {
		s += " --copilot"
	}
	return s
}

// keysSummary says which keys are bound, e.g. "prefix Tab → jump-next, prefix g → popup".
func keysSummary(ctx context.Context, t *tmuxctl.Server, defaults map[string]string) string {
	s, err := readTmuxSettings(ctx, t, "", "", false, defaults)
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

// setupHelp is what `trailboss setup --help` says around the flags.
var setupHelp = commandHelp{
	Args: "[--undo] [--dry-run] [--codex] [--opencode] [--gemini] [--copilot] [--no-tmux] [--no-claude]",
	About: "Installs Trail Boss's hooks into Claude Code's settings (and Codex's config with\n" +
		"--codex, its plugin into OpenCode's plugins folder with --opencode, its hooks into\n" +
		"Gemini CLI's settings.json with --gemini and into GitHub Copilot CLI's hooks folder\n" +
		"with --copilot), and its keys and status segment into tmux. --undo takes them all\n" +
		"out again.",
	Example: "trailboss setup --dry-run",
}
