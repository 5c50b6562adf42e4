package main

// The tmux side of Trail Boss: the key bindings and the status segment, as tmux config
// lines (tmux-conf prints them) or applied to a running server (tmux-conf --apply, which
// the tmux.conf block of setup and the TPM plugin trailboss.tmux run).

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/hooks/install"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/tmuxstatus"
	"github.com/trailboss/trailboss/focus"
	"github.com/trailboss/trailboss/tmuxctl"
)

// tmuxKey is one key binding of Trail Boss; the tmux option overrides its key, and the
// value "none" turns the binding off.
type tmuxKey struct {
	option, def, verb string
}

var tmuxKeys = []tmuxKey{
	{"@trailboss-next-key", "Tab", "jump-next"},
	{"@trailboss-popup-key", "g", "popup"},
	{"@trailboss-skip-key", "S", "skip"},
	{"@trailboss-focus-key", "F", "focus"},
}

// Options read from the server (besides the keys).
const (
	statusOption = "@trailboss-status" // "off": leave the status line alone
	startOption  = "@trailboss-start"  // "off": --apply does not start the daemon
	// statusSegment is what goes at the end of status-right: the daemon keeps the user
	// option @trailboss_status current, so the status line runs no process per redraw.
	statusSegment = " #{@trailboss_status}"
)

// tmuxSettings is everything the tmux lines depend on.
type tmuxSettings struct {
	bin      string            // the trailboss binary as a shell word
	hot      string            // the binary that runs jump-next and skip (trailboss-hot), or "" for bin
	keys     map[string]string // option → key set on the tmux server
	defaults map[string]string // option → key from the config file's [keys]
	// statusOff is @trailboss-status "off".
	statusOff bool
	// statusKnown says statusLeft and statusRight are the server's current values; when
	// they are not known, the lines decide in tmux when they are sourced.
	statusKnown             bool
	statusLeft, statusRight string
}

// key returns the key bound for k, or "" when its binding is off: the tmux option, else
// the config file's key, else the default.
func (s tmuxSettings) key(k tmuxKey) string {
	v := s.keys[k.option]
	if v == "" {
		v = s.defaults[k.option]
	}
	if v == "" {
		v = k.def
	}
	if v == "none" {
		return ""
	}
	return v
}

// tmuxLines returns the tmux config lines for s: one bind-key per key that is on, and the
// status segment appended to status-right unless the user placed @trailboss_status in
// status-left or status-right already, or turned it off. status-left is never touched.
func tmuxLines(s tmuxSettings) string {
	var b strings.Builder
	b.WriteString("# Trail Boss: keys and status segment (printed by `trailboss tmux-conf`).\n")
	// run-shell expands formats before sh sees the command; #{q:…} quotes them for sh, so
	// the client that pressed the key is the one that moves.
	where := " --client #{q:client_name} --socket #{q:socket_path}"
	for _, k := range tmuxKeys {
		key := s.key(k)
		if key == "" {
			continue
		}
		var sh string
		switch k.verb {
		case "focus":
			// In and out of the focus view: the same key leaves it.
			sh = s.bin + " focus" + where
		case "popup":
			// tmux 3.3a does not expand formats in display-popup's command, so the popup
			// is opened from run-shell, which does; given several arguments, display-popup
			// runs them as they are, with no second shell to quote for.
			sh = "tmux -S #{q:socket_path} display-popup -c #{q:client_name} -E -w 90% -h 80% " +
				s.bin + " popup" + where
		default:
			// The pane the client is on comes with the key press too: it saves asking tmux.
			sh = firstNonEmpty(s.hot, s.bin) + " " + k.verb + where + " --pane #{q:pane_id}"
		}
		cmd := "run-shell -b " + install.TmuxQuote(sh)
		if k.verb == "jump-next" {
			// Where the daemon has said where the key lands (a pane of this server), tmux
			// switches the client itself: no process starts. Otherwise the process asks.
			cmd = "if-shell -F " + install.TmuxQuote(jumpReady) + " " + install.TmuxQuote(jumpLocal) + " " + install.TmuxQuote(cmd)
			// In a focus session (focus.MarkOption set on it) the next key moves the view
			// on: it links the next head's window in place of the one there.
			next := "run-shell -b " + install.TmuxQuote(s.bin+" focus --next"+where)
			cmd = "if-shell -F " + install.TmuxQuote("#{"+focus.MarkOption+"}") + " " + install.TmuxQuote(next) + " " + install.TmuxQuote(cmd)
		}
		fmt.Fprintf(&b, "bind-key %s %s\n", tmuxKeyWord(key), cmd)
	}
	switch {
	case s.statusOff:
	case s.statusKnown:
		if !strings.Contains(s.statusLeft, "@trailboss_status") && !strings.Contains(s.statusRight, "@trailboss_status") {
			fmt.Fprintf(&b, "set -ag status-right %s\n", install.TmuxQuote(statusSegment))
		}
	default:
		// Decided by tmux when the lines run, so that sourcing them again (or after a
		// status-right that already shows it) adds nothing.
		cond := "#{||:#{==:#{" + statusOption + "},off},#{||:#{m:*@trailboss_status*,#{status-left}},#{m:*@trailboss_status*,#{status-right}}}}"
		fmt.Fprintf(&b, "if-shell -F %s \"\" %s\n", install.TmuxQuote(cond), install.TmuxQuote("set -ag status-right '"+statusSegment+"'"))
	}
	return b.String()
}

var (
	plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// The jump key without a process. The daemon keeps two options on each tmux server
// (tmuxstatus.OptionHead, OptionNext): the pane its jump lands on from any other pane, and
// from the head's own pane, "" where it would not land the client itself (nothing ready,
// the head on another host or server). The key runs jumpLocal when jumpReady says the
// pane it picks is there, else trailboss-hot jump-next as before.
var (
	// jumpTarget is the pane the key lands on: the head, or the next from the head's pane.
	jumpTarget = "#{?#{==:#{pane_id},#{" + tmuxstatus.OptionHead + "}},#{" + tmuxstatus.OptionNext + "},#{" + tmuxstatus.OptionHead + "}}"
	// jumpReady is non-empty when jumpTarget names a pane of this server that exists now:
	// a pane id a stopped daemon left (a crash: a clean stop clears them) that is gone
	// falls back to the process, which says what is wrong. Only a real pane's id passes,
	// so nothing else ever reaches the command jumpLocal parses.
	jumpReady = "#{?#{==:#{pane_id},#{" + tmuxstatus.OptionHead + "}}," + paneExists(tmuxstatus.OptionNext) + "," + paneExists(tmuxstatus.OptionHead) + "}"
	// jumpLocal lands the client that pressed the key as the daemon's jump does (tmuxctl
	// SwitchClient). tmux 3.3a expands no format in switch-client's -t; run-shell -C
	// expands the formats of the tmux command it runs, in the server, with no shell.
	jumpLocal = "run-shell -C " + install.TmuxQuote("switch-client -t "+jumpTarget+" ; select-window -t "+jumpTarget+" ; select-pane -t "+jumpTarget)
)

// paneExists returns a format that is "1" when the user option names a pane of the server
// (some pane of some window of some session has that id), else "".
func paneExists(option string) string {
	return "#{S:#{W:#{P:#{?#{==:#{pane_id},#{" + option + "}},1,}}}}"
}

// tmuxKeyWord writes a key name as one tmux config word.
func tmuxKeyWord(k string) string {
	if plainKey.MatchString(k) {
		return k
	}
	return install.TmuxQuote(k)
}

// demoTmuxConf is the whole tmux config of the demo's own server: its look, then the
// lines every user gets, with all three keys and the status segment.
func demoTmuxConf(self string) string {
	var b strings.Builder
	b.WriteString("set -g mouse on\nset -g status-interval 1\nset -g base-index 0\n")
	// Short enough that, at 80 columns, the five windows and "⚠ 3 stuck · 1 cooling" fit.
	b.WriteString(`set -g status-left "#[bold] trailboss #[default]| "` + "\n")
	b.WriteString("set -g status-left-length 30\nset -g status-right-length 60\nset -g status-right \"\"\n")
	b.WriteString(tmuxLines(tmuxSettings{bin: hooks.ShellWord(self), statusKnown: true}))
	return b.String()
}

// ---- the binary ---------------------------------------------------------------------------

// trailbossBin returns how tmux and Claude Code should run this binary: "trailboss" when
// the trailboss on PATH is this very binary, else its absolute path; and why.
func trailbossBin() (word, why string) {
	return binWord("trailboss", selfPath(), "this binary", exec.LookPath)
}

// hotBinName is the file name of the small binary of the hot verbs (cmd/trailboss-hot).
const hotBinName = "trailboss-hot"

// hotBin returns how the hooks and the jump-next and skip keys should run the hot verbs,
// and why: the trailboss-hot beside this binary ("trailboss-hot" when the one on PATH is
// that very file, else its absolute path), which starts several times faster; without
// one, this binary itself, which runs the same verbs.
func hotBin() (word, why string) {
	path := hotBinBeside(selfPath())
	if path == "" {
		word, why := trailbossBin()
		return word, why + "; no " + hotBinName + " beside it, so trailboss itself runs the hooks and keys (slower to start)"
	}
	return binWord(hotBinName, path, "the one beside this binary", exec.LookPath)
}

// hotBinBeside returns the trailboss-hot in the folder of self (how this binary was run),
// else in the folder of the executable self is (a link's target); "" when neither has one.
func hotBinBeside(self string) string {
	dirs := []string{filepath.Dir(self)}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		dirs = append(dirs, filepath.Dir(real))
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	for _, d := range dirs {
		p := filepath.Join(d, hotBinName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// binWord returns how a shell should run the program name found at path (what describes
// it in the reason): name when the one on PATH is that very file, else path as a shell
// word; and why.
func binWord(name, path, what string, lookPath func(string) (string, error)) (word, why string) {
	onPath, err := lookPath(name)
	if err != nil {
		return hooks.ShellWord(path), "no " + name + " on your PATH, so " + possessive(what) + " absolute path"
	}
	a, errA := os.Stat(onPath)
	b, errB := os.Stat(path)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return name, "the " + name + " on your PATH is " + what
	}
	return hooks.ShellWord(path), "the " + name + " on your PATH (" + onPath + ") is another binary, so " + possessive(what) + " absolute path"
}

// possessive returns "this binary's" for "this binary".
func possessive(s string) string { return s + "'s" }

// ---- talking to the running tmux server ----------------------------------------------------

// tmuxOpTimeout bounds each conversation with the running tmux server.
const tmuxOpTimeout = 5 * time.Second

// readTmuxSettings reads the key options, the status opt-out and, when status is set, the
// current status lines of the server.
func readTmuxSettings(ctx context.Context, t *tmuxctl.Server, bin, hot string, status bool, defaults map[string]string) (tmuxSettings, error) {
	ctx, cancel := context.WithTimeout(ctx, tmuxOpTimeout)
	defer cancel()
	s := tmuxSettings{bin: bin, hot: hot, keys: map[string]string{}, defaults: defaults}
	for _, k := range tmuxKeys {
		v, err := t.GlobalOption(ctx, k.option)
		if err != nil {
			return s, err
		}
		s.keys[k.option] = strings.TrimSpace(v)
	}
	v, err := t.GlobalOption(ctx, statusOption)
	if err != nil {
		return s, err
	}
	s.statusOff = strings.TrimSpace(v) == "off"
	if status {
		s.statusKnown = true
		if s.statusLeft, err = t.GlobalOption(ctx, "status-left"); err != nil {
			return s, err
		}
		if s.statusRight, err = t.GlobalOption(ctx, "status-right"); err != nil {
			return s, err
		}
	}
	return s, nil
}

// applyTmux binds the keys and adds the status segment on the server, deciding the status
// rule on the server's current status lines.
func applyTmux(ctx context.Context, t *tmuxctl.Server, bin, hot string, defaults map[string]string) error {
	s, err := readTmuxSettings(ctx, t, bin, hot, true, defaults)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, tmuxOpTimeout)
	defer cancel()
	return t.SourceConfig(ctx, tmuxLines(s))
}

// unapplyTmux undoes applyTmux on the server: it unbinds the keys that run trailboss and
// takes the status segment off the end of status-right. It returns what it did, one line
// each.
func unapplyTmux(ctx context.Context, t *tmuxctl.Server, defaults map[string]string) ([]string, error) {
	s, err := readTmuxSettings(ctx, t, "", "", true, defaults)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, tmuxOpTimeout)
	defer cancel()
	var done []string
	seen := map[string]bool{}
	for _, k := range tmuxKeys {
		for _, key := range []string{k.def, s.key(k)} {
			if key == "" || seen[key] {
				continue
			}
			seen[key] = true
			bound, err := t.ListKeys(ctx, "prefix", key)
			if err != nil || len(bound) == 0 || !runsTrailboss(bound[0]) {
				continue // not bound, or not to us
			}
			if err := t.UnbindKey(ctx, "prefix", key); err != nil {
				return done, err
			}
			done = append(done, "unbound prefix "+key)
		}
	}
	if rest, ok := strings.CutSuffix(s.statusRight, statusSegment); ok {
		if err := t.SetGlobalOption(ctx, "status-right", rest); err != nil {
			return done, err
		}
		done = append(done, "took #{@trailboss_status} off status-right")
	}
	return done, nil
}

// runsTrailboss reports whether a key binding runs one of Trail Boss's navigation commands.
func runsTrailboss(binding string) bool {
	for _, cmd := range []string{" popup --client ", " jump-next --client ", " skip --client ", " focus --client ", " focus --next --client "} {
		if strings.Contains(binding, cmd) {
			return true
		}
	}
	return false
}

// configKeys returns the keys the config file sets, as option → key.
func configKeys(getenv func(string) string) (map[string]string, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"@trailboss-next-key":  cfg.Keys.Next,
		"@trailboss-popup-key": cfg.Keys.Popup,
		"@trailboss-skip-key":  cfg.Keys.Skip,
		"@trailboss-focus-key": cfg.Keys.Focus,
	}, nil
}

// serverSocket returns the socket of the tmux server to talk to: flag, else $TMUX.
// userSocket returns the tmux server a command that sets up or checks the user's tmux acts
// on: the flag's, else the one it runs inside ($TMUX), else the user's default server when
// one runs. "" when there is none.
func userSocket(flagValue string, getenv func(string) string) string {
	if s, err := serverSocket(flagValue, getenv); err == nil && s != "" {
		return s
	}
	return tmuxctl.DefaultSocket(getenv)
}

func serverSocket(flagValue string, getenv func(string) string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return adapter.SocketFromTmuxEnv(getenv("TMUX"))
}

// ---- the command ---------------------------------------------------------------------------

func runTmuxConf(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("tmux-conf", flag.ContinueOnError)
	apply := fs.Bool("apply", false, "apply the lines to the running tmux server instead of printing them, and start the daemon (unless @trailboss-start is off)")
	socket := fs.String("socket", "", "tmux server socket (default: from $TMUX)")
	noStart := fs.Bool("no-start", false, "with --apply: do not start the daemon")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	bin, _ := trailbossBin()
	hot, _ := hotBin()
	defaults, err := configKeys(e.getenv)
	if err != nil {
		return err
	}
	sock, err := serverSocket(*socket, e.getenv)
	if err != nil {
		return err
	}
	if !*apply {
		s := tmuxSettings{bin: bin, hot: hot, defaults: defaults}
		if sock != "" { // the key options of the running server, if it answers
			if got, err := readTmuxSettings(ctx, tmuxctl.New(sock), bin, hot, false, defaults); err == nil {
				s = got
			}
		}
		fmt.Fprint(e.stdout, tmuxLines(s))
		return nil
	}
	if sock == "" {
		return fmt.Errorf("%w: not inside tmux: run it from tmux (the tmux.conf line does), or pass --socket", errUsage)
	}
	t := tmuxctl.New(sock)
	if err := applyTmux(ctx, t, bin, hot, defaults); err != nil {
		return err
	}
	if *noStart {
		return nil
	}
	if v, _ := t.GlobalOption(ctx, startOption); strings.TrimSpace(v) == "off" {
		return nil
	}
	_, err = ensureDaemonFromTmux(ctx, sock) // silent when it works: tmux shows whatever this prints
	return err
}

// ensureDaemonFromTmux runs `trailboss start --socket S`, which starts the daemon in a
// tmux session of that server unless one runs, and returns what start said.
func ensureDaemonFromTmux(ctx context.Context, socket string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, selfPath(), "start", "--socket", socket).CombinedOutput()
	msg := strings.TrimPrefix(strings.TrimSpace(string(out)), "trailboss: ")
	if err != nil {
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("start the daemon: %s", msg)
	}
	return msg, nil
}

// tmuxConfHelp is what `trailboss tmux-conf --help` says around the flags.
var tmuxConfHelp = commandHelp{
	Args:    "[--apply]",
	About:   "Prints the tmux lines: the key bindings and the status segment.",
	Example: "trailboss tmux-conf >> ~/.tmux.conf",
}
