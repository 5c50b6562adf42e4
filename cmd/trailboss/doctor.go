package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/spool"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/hooks/emit"
	"github.com/trailboss/trailboss/hooks/install"
	"github.com/trailboss/trailboss/tmuxctl"
)

// finding is one line of the doctor's report.
type finding struct {
	level  level
	what   string
	detail []string
	fix    string // the command (or action) that fixes it
}

type level int

const (
	good level = iota
	note       // worth knowing, nothing broken
	bad        // broken: doctor exits 1
)

func (l level) mark() string { return [...]string{"✓", "!", "✗"}[l] }

// runDoctor checks every part of the setup, in the order a hook's event travels, and says
// how to fix what is broken. It exits 1 when something is.
func runDoctor(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	var p place
	placeFlags(fs, &p)
	socketFlag := fs.String("socket", "", "tmux server to check (default: from $TMUX)")
	project := fs.String("project", ".", "project whose .claude settings to check too")
	if err := parsePlace(fs, &p, args, e); err != nil {
		return err
	}
	socket := userSocket(*socketFlag, e.getenv)
	d := &doctor{getenv: e.getenv, place: p, socket: socket, project: *project}
	var out []finding
	out = append(out, d.tmuxVersion(ctx))
	if f, ok := d.config(); ok {
		out = append(out, f)
	}
	tok := d.token()
	out = append(out, tok)
	if tok.level != bad {
		out = append(out, d.daemon(ctx)...)
	}
	out = append(out, d.delivery())
	out = append(out, d.claudeCode(ctx))
	out = append(out, d.hooks()...)
	out = append(out, d.hotBinary())
	out = append(out, d.codexAppServer()...)
	out = append(out, d.codexHookTrust()...)
	out = append(out, d.openCode()...)
	out = append(out, d.gemini()...)
	out = append(out, d.copilot()...)
	out = append(out, d.telegram(ctx)...)
	if socket != "" {
		out = append(out, d.tmuxSetup(ctx)...)
	}
	out = append(out, d.hostsChecks(ctx)...)
	out = append(out, d.emitLog())

	broken := 0
	for _, f := range out {
		fmt.Fprintf(e.stdout, "%s %s\n", f.level.mark(), f.what)
		for _, l := range f.detail {
			fmt.Fprintf(e.stdout, "    %s\n", l)
		}
		if f.fix != "" {
			fmt.Fprintf(e.stdout, "    fix: %s\n", f.fix)
		}
		if f.level == bad {
			broken++
		}
	}
	if broken > 0 {
		fmt.Fprintf(e.stdout, "\n%d problem(s) found.\n", broken)
		return errSilent
	}
	fmt.Fprintln(e.stdout, "\nAll good.")
	return nil
}

type doctor struct {
	getenv  func(string) string
	place   place
	socket  string
	project string
}

func (d *doctor) tmuxVersion(ctx context.Context) finding {
	// tmux -V connects to no server; the socket is only there because every call names one.
	srv := tmuxctl.New(firstNonEmpty(d.socket, filepath.Join(os.TempDir(), "trailboss-doctor-none")))
	v, err := srv.Version(ctx)
	if err != nil {
		return finding{level: bad, what: "tmux not found: " + err.Error(), fix: "apt-get install tmux (3.2 or newer)"}
	}
	major, minor := tmuxMajorMinor(v)
	if major < 3 || (major == 3 && minor < 2) {
		return finding{level: bad, what: "tmux " + v + " is too old: the popup needs display-popup (tmux 3.2)",
			fix: "install tmux 3.2 or newer"}
	}
	return finding{level: good, what: "tmux " + v}
}

// tmuxMajorMinor reads "3.3a" or "next-3.4" as 3, 3 or 3, 4; 0, 0 when unreadable.
func tmuxMajorMinor(v string) (int, int) {
	v = strings.TrimPrefix(v, "next-")
	maj, rest, _ := strings.Cut(v, ".")
	major, err := strconv.Atoi(maj)
	if err != nil {
		return 0, 0
	}
	digits := strings.TrimRightFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	minor, _ := strconv.Atoi(digits)
	return major, minor
}

func (d *doctor) token() finding {
	path := filepath.Join(d.place.StateDir, statedir.TokenFile)
	// Said first: the clients refuse such a token too (ReadToken), and chmod is the fix.
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return finding{level: bad, what: fmt.Sprintf("token %s is readable by others (mode %v)", path, fi.Mode().Perm()),
			fix: "chmod 600 " + hooks.ShellWord(path)}
	}
	if _, err := statedir.ReadToken(d.place.StateDir); errors.Is(err, statedir.ErrNotPrivate) {
		return finding{level: bad, what: err.Error()} // it says whose it is and what to do
	} else if err != nil {
		return finding{level: bad, what: "token not readable: " + err.Error(), fix: "trailboss start"}
	}
	return finding{level: good, what: "token readable: " + path}
}

func (d *doctor) daemon(ctx context.Context) []finding {
	c, err := client.New(d.place.Addr, d.place.StateDir, time.Second)
	if err == nil {
		_, err = c.Health(ctx)
	}
	var onSocket *client.ImpostorError
	switch {
	case errors.Is(err, statedir.ErrNotPrivate), errors.As(err, &onSocket) && onSocket.OnSocket:
		return []finding{{level: bad, what: err.Error()}} // it says whose it is and what to do
	case errors.Is(err, client.ErrImpostor):
		return []finding{{level: bad, what: err.Error(), fix: takenFix(d.place.Addr, d.place.AddrFrom, d.getenv)}}
	case errors.Is(err, client.ErrForeign):
		return []finding{{level: bad, what: "another program, not Trail Boss, answers at " + d.place.Where(),
			fix: takenFix(d.place.Addr, d.place.AddrFrom, d.getenv)}}
	case errors.Is(err, client.ErrBusy):
		return []finding{{level: bad, what: err.Error(), fix: "wait a moment and run trailboss doctor again; if it goes on, trailboss stop && trailboss start"}}
	case errors.Is(err, client.ErrDown):
		return []finding{{level: bad, what: fmt.Sprintf("%s (nothing answers at %s)", err, d.place.Where()), fix: "trailboss start"}}
	case err != nil:
		return []finding{{level: bad, what: "the daemon at " + d.place.Where() + " did not answer as expected: " + err.Error(), fix: "trailboss stop && trailboss start"}}
	}
	rec, _ := statedir.Holder(d.place.StateDir)
	out := []finding{{level: good, what: fmt.Sprintf("daemon answering at %s (%s)", d.place.Where(), rec)}}
	sessions, err := c.Sessions(ctx)
	if err != nil {
		return append(out, finding{level: bad, what: "daemon refused the token: " + err.Error(), fix: "trailboss stop && trailboss start"})
	}
	if len(sessions) == 0 {
		return append(out, finding{level: note, what: "no session has reported yet",
			detail: []string{"start Claude Code in a tmux pane; hooks run only once you trust the workspace"}})
	}
	f := finding{level: good, what: fmt.Sprintf("%d session(s) reporting; last event from each:", len(sessions))}
	var nopane []string
	now := time.Now()
	for _, s := range sessions {
		state := "working"
		if s.Stuck {
			state = "stuck"
		}
		pane := s.Pane
		if pane == "" {
			pane = "no pane"
			// A script's session may run outside tmux on purpose; an agent's is placed
			// by the TMUX_PANE its hooks inherit.
			if s.Harness == "claude" || s.Harness == "codex" {
				nopane = append(nopane, clipRunes(s.SessionID, 8)+" ("+s.Harness+")")
			}
		}
		f.detail = append(f.detail, fmt.Sprintf("%-8s  %-8s  %-7s  %s ago  %s", clipRunes(s.SessionID, 8), pane, state,
			queue.Age(now.Sub(s.LastEventAt)), filepath.Base(s.Cwd)))
	}
	out = append(out, f)
	if len(nopane) > 0 {
		out = append(out, finding{level: bad, what: "TMUX_PANE does not arrive with the events of " + strings.Join(nopane, ", "),
			detail: []string{"Trail Boss cannot take you to a session it cannot place"},
			fix:    "run the agent inside a tmux pane (and update Claude Code if it is: one release stripped TMUX_PANE)"})
	} else {
		out = append(out, finding{level: good, what: "TMUX_PANE arrives with every agent session's events"})
	}
	return out
}

// hotBinary says whether trailboss-hot, the small binary the hooks and keys run, is beside
// trailboss: without it they run trailboss itself, which works, but starts slower.
func (d *doctor) hotBinary() finding {
	if p := hotBinBeside(selfPath()); p != "" {
		return finding{level: good, what: "trailboss-hot is beside trailboss (" + p + "): setup makes the hooks and keys run it, so they start fast"}
	}
	return finding{level: note,
		what: "no trailboss-hot beside " + selfPath() + ": the hooks and keys run trailboss itself, which works but takes a few milliseconds longer to start each time",
		fix:  "put trailboss-hot in the same folder as trailboss (make build puts both in bin/), then run trailboss setup again"}
}

// settingsFiles are the Claude Code settings files that apply, in the order Claude Code
// merges them.
func (d *doctor) settingsFiles() []string {
	user := filepath.Join(firstNonEmpty(d.getenv("CLAUDE_CONFIG_DIR"), filepath.Join(homeDir(d.getenv), ".claude")), "settings.json")
	return []string{user,
		filepath.Join(d.project, ".claude", "settings.json"),
		filepath.Join(d.project, ".claude", "settings.local.json")}
}

func homeDir(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

func (d *doctor) hooks() []finding {
	var out []finding
	var where []string
	missing := map[string]bool{}
	for _, ev := range install.Events() {
		missing[ev.Name] = true
	}
	for _, path := range d.settingsFiles() {
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			out = append(out, finding{level: bad, what: "cannot read " + path + ": " + err.Error()})
			continue
		}
		var s struct {
			DisableAllHooks bool                       `json:"disableAllHooks"`
			Hooks           map[string][]hookGroupJSON `json:"hooks"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			out = append(out, finding{level: bad, what: path + " is not valid JSON: " + err.Error(), fix: "repair the file, then trailboss setup"})
			continue
		}
		if s.DisableAllHooks {
			out = append(out, finding{level: bad, what: path + " sets disableAllHooks: no hook runs at all",
				fix: `remove "disableAllHooks": true from ` + path})
		}
		found := false
		for ev, groups := range s.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					if install.IsTrailbossEmit(h.Command) {
						delete(missing, ev)
						found = true
						if ev == "PermissionRequest" && h.Async {
							out = append(out, d.asyncPermissionHook(path))
						}
						if ev == "PreToolUse" && g.Matcher != nil && *g.Matcher != "*" && *g.Matcher != "" {
							out = append(out, finding{level: note, fix: "trailboss setup",
								what: "the PreToolUse hook in " + path + " hooks only " + *g.Matcher + " (an older setup's): " +
									"a permission Claude Code asks in auto mode (which fires no PermissionRequest) is queued without its command"})
						}
					}
				}
			}
		}
		if found {
			where = append(where, path)
		}
	}
	switch {
	case len(where) == 0:
		out = append(out, finding{level: bad, what: "Claude Code hooks not installed", fix: "trailboss setup", detail: withoutHooks})
	case len(missing) > 0:
		var ev []string
		for _, e := range install.Events() {
			if missing[e.Name] {
				ev = append(ev, e.Name)
			}
		}
		out = append(out, finding{level: bad, what: "Claude Code hooks installed in " + strings.Join(where, ", ") + " but missing for " + strings.Join(ev, ", "),
			fix: "trailboss setup"})
	default:
		out = append(out, finding{level: good, what: "Claude Code hooks installed in " + strings.Join(where, ", ")})
	}
	return append(out, d.workspaceTrust())
}

// workspaceTrust says whether Claude Code trusts the project folder: hooks run only in a
// workspace whose trust dialog was accepted, which Claude Code records per folder in
// .claude.json (in $CLAUDE_CONFIG_DIR when set, else the home folder). A trusted parent
// folder trusts its children.
func (d *doctor) workspaceTrust() finding {
	stateFile := filepath.Join(firstNonEmpty(d.getenv("CLAUDE_CONFIG_DIR"), homeDir(d.getenv)), ".claude.json")
	dir, err := filepath.Abs(d.project)
	if err != nil {
		dir = d.project
	}
	var state struct {
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	if b, err := os.ReadFile(stateFile); err == nil {
		_ = json.Unmarshal(b, &state) // unreadable: reported as not trusted below
	}
	for p := dir; ; p = filepath.Dir(p) {
		if state.Projects[p].HasTrustDialogAccepted {
			return finding{level: good, what: "Claude Code trusts " + p + ", so its hooks run there"}
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	return finding{level: note, what: "Claude Code does not trust " + dir + " yet: hooks run only once you accept its trust dialog",
		detail: []string{"start claude in that folder once and accept; trust is kept in " + stateFile}}
}

// withoutHooks says what Trail Boss still sees of Claude Code without its hooks, and what
// the hooks add.
var withoutHooks = []string{
	"without them, a Claude Code 2.1.332 or later in a tmux pane is still found from its state files",
	"(~/.claude/sessions): finished turns, permissions, questions and dialogs are queued within a second,",
	"with the words its transcript has; the hooks add what the agent said at a turn's end, a permission's",
	"command even before it is written down, who submitted a prompt (a background task's wake-up keeps",
	"its place), answers held for the popup and the phone, and sessions of older versions",
}

type hookGroupJSON struct {
	Matcher *string `json:"matcher"`
	Hooks   []struct {
		Command string `json:"command"`
		Async   bool   `json:"async"`
	} `json:"hooks"`
}

// asyncPermissionHook is the finding for a Trail Boss PermissionRequest hook that an older
// setup wrote "async": Claude Code does not read what it prints, so a held permission's
// decision would be lost. Broken when holding is on; worth knowing otherwise.
func (d *doctor) asyncPermissionHook(path string) finding {
	f := finding{level: note, fix: "trailboss setup",
		what: "the PermissionRequest hook in " + path + " is async (an older setup's): Claude Code would not read a decision delivered through it"}
	if cfg, err := loadConfig(d.getenv); err == nil && (cfg.Delivery.HoldPermissions || cfg.Telegram != nil) {
		f.level = bad
		if cfg.Delivery.HoldPermissions {
			f.what += ", and hold_permissions is on"
		} else {
			f.what += ", and the Telegram relay (which holds permissions) is on"
		}
	}
	return f
}

func (d *doctor) tmuxSetup(ctx context.Context) []finding {
	srv := tmuxctl.New(d.socket)
	keys, err := srv.ListKeys(ctx, "prefix")
	if err != nil {
		return []finding{{level: bad, what: "tmux server " + d.socket + ": " + err.Error()}}
	}
	var out []finding
	bound := map[string]string{}
	for _, k := range keys {
		for cmd, needle := range map[string]string{"jump-next": " jump-next ", "skip": " skip ", "popup": " popup ", "focus": " focus --client "} {
			if strings.Contains(k, "trailboss") && strings.Contains(k, needle) {
				if f := strings.Fields(k); len(f) > 3 {
					bound[cmd] = f[3]
				}
			}
		}
	}
	if len(bound) == 0 {
		out = append(out, finding{level: bad, what: "no Trail Boss keys bound on this tmux server", fix: "trailboss setup (or: trailboss tmux-conf >> ~/.tmux.conf)"})
	} else {
		var parts []string
		for _, cmd := range []string{"jump-next", "popup", "skip", "focus"} {
			if k, ok := bound[cmd]; ok {
				parts = append(parts, "prefix "+k+" → "+cmd)
			}
		}
		out = append(out, finding{level: good, what: "keys bound: " + strings.Join(parts, ", ")})
	}
	left, _ := srv.GlobalOption(ctx, "status-left")
	right, _ := srv.GlobalOption(ctx, "status-right")
	switch status := left + right; {
	case strings.Contains(status, "@trailboss_status"):
		out = append(out, finding{level: good, what: "status line shows #{@trailboss_status}"})
	case strings.Contains(status, "trailboss status"), strings.Contains(status, "trailboss-hot status"):
		out = append(out, finding{level: note, what: "status line runs #(trailboss status) on every redraw",
			fix: "use #{@trailboss_status} instead: the daemon keeps it current at no cost"})
	default:
		out = append(out, finding{level: note, what: "the status line does not show the stuck count",
			fix: `tmux set -ag status-right " #{@trailboss_status}"`})
	}
	return out
}

// config checks the config file as the daemon reads it; false when there is none.
func (d *doctor) config() (finding, bool) {
	path := configPath(d.getenv)
	if _, err := os.Stat(path); err != nil {
		return finding{}, false
	}
	cfg, err := loadConfig(d.getenv)
	if err == nil {
		err = checkConfig(cfg, path)
	}
	if err != nil {
		return finding{level: bad, what: "the daemon refuses the config file: " + err.Error(), fix: "edit " + path}, true
	}
	return finding{level: good, what: "config file " + path}, true
}

// delivery says whether answers are typed into panes, and through which channels.
func (d *doctor) delivery() finding {
	cfg, err := loadConfig(d.getenv)
	if err != nil {
		return finding{level: note, what: "delivery: cannot tell, the config file does not read"}
	}
	if !cfg.DeliveryOn() {
		return finding{level: good, what: "delivery is off: nothing is ever typed into a pane and no hook is held " +
			"(answer in the panes; to answer from the popup, trailboss reply or a phone, add enabled = true under [delivery] in " +
			configPath(d.getenv) + ")"}
	}
	chans := []string{"the popup", "trailboss reply", "trailboss run"}
	if cfg.Telegram != nil {
		chans = append(chans, "Telegram")
	}
	what := "delivery is on: answers from " + strings.Join(chans, ", ") + " are typed into panes"
	if cfg.Delivery.HoldPermissions || cfg.Telegram != nil {
		what += "; Claude Code's permission hook holds for them"
	}
	return finding{level: good, what: what}
}

// emitLog reports the last failure a hook logged, if any in the last day.
func (d *doctor) emitLog() finding {
	path := filepath.Join(d.place.StateDir, statedir.EmitLog)
	f, err := os.Open(path)
	if err != nil {
		return finding{level: good, what: "no hook failures logged"}
	}
	defer f.Close()
	var last string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		last = sc.Text()
	}
	stamp, msg, _ := strings.Cut(last, " ")
	t, err := time.Parse(time.RFC3339, stamp)
	if last == "" || err != nil || time.Since(t) > 24*time.Hour {
		return finding{level: good, what: "no hook failures logged in the last day"}
	}
	if strings.Contains(msg, emit.SpooledNote) {
		if pending, err := spool.List(d.place.StateDir); err == nil && len(pending) == 0 {
			// Every spooled event has been applied since: nothing was lost.
			return finding{level: good, what: "hooks that could not reach the daemon " + queue.Age(time.Since(t)) +
				" ago were delivered from the spool since"}
		}
	}
	return finding{level: note, what: "a hook failed " + queue.Age(time.Since(t)) + " ago: " + msg,
		detail: []string{"see " + path}}
}

// doctorHelp is what `trailboss doctor --help` says around the flags.
var doctorHelp = commandHelp{
	Args:    "[--project DIR]",
	About:   "Checks every part of the setup and says how to fix what is broken.",
	Example: "trailboss doctor",
}
