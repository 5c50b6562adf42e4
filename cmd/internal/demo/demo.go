// Package demo is `trailboss demo`: an isolated tmux server of its own, with the daemon and
// three simulated agents (cmd/internal/simagent) that really get stuck through the real hook
// path, and the keys bound there.
package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/hooks"
)

// Session is the tmux session of the demo's own server.
const Session = "trailboss-demo"

// StopWait bounds how long the demo waits for what it started to exit on SIGHUP before it
// kills what is left: the whole teardown stays well inside two seconds.
const StopWait = 1200 * time.Millisecond

// Agent is one simulated session of the demo: its project folder's name and git branch,
// and its turns (see cmd/internal/simagent).
type Agent struct{ Name, Branch, Script string }

// Agents get stuck one after another, each in its own way, and after an answer work for
// a while before they stop again with the next question.
var Agents = []Agent{
	{"api", "main", "ask:go test ./... && git push" +
		"|stop:Pushed to main. Shall I open the pull request?" +
		"|ask:gh pr create --fill" +
		"|stop:The pull request is open. Anything else?"},
	{"web", "dark-mode", "stop:The dark-mode toggle works. Should it follow the system setting by default?" +
		"|stop:It follows the system setting now, with an override in the menu. Shall I add a test for the override?" +
		"|ask:npm test" +
		"|stop:The tests pass. Anything else?"},
	{"infra", "vpc-peering", "ask:terraform apply -auto-approve" +
		"|stop:Applied: 3 added, 1 changed. Shall I remove the old bastion host too?" +
		"|ask:terraform destroy -target=aws_instance.bastion" +
		"|stop:The bastion host is gone. Anything else?"},
}

// Options are the demo verb's flags, and what the verb knows of where it runs.
type Options struct {
	Dir      string // folder for the demo's state; "": a new temp folder, removed when the demo ends
	Addr     string // a loopback TCP address for the demo's daemon too; "": its unix socket alone
	Fast     bool   // agents get stuck within a second (for tests)
	NoAttach bool   // set everything up, print how to attach and how to stop it, and return
	Self     string // the trailboss binary: its daemon and demo-agent verbs run in the demo
	// TmuxConf is the demo server's tmux config: its look, and the lines every user gets.
	TmuxConf string
	// OuterPrefix is the prefix key of the tmux the demo was started in ("C-b"), "" outside
	// tmux (see OuterTmuxPrefix).
	OuterPrefix    string
	Stdout, Stderr io.Writer
}

// Run starts an isolated tmux server of its own, with the daemon and three simulated agents
// that really get stuck through the real hook path, binds the keys there, and attaches.
// Nothing of the user's own tmux, ~/.claude, config or state directory is touched. However
// the demo ends (detach, Ctrl-C, a closed terminal, its own failure) it stops everything it
// started and removes the folder it made before it returns.
func Run(ctx context.Context, o Options) error {
	if _, err := exec.LookPath("tmux"); err != nil {
		return fmt.Errorf("the demo needs tmux (apt-get install tmux): %w", err)
	}
	d := &demo{self: o.Self, fast: o.Fast, conf: o.TmuxConf, stdout: o.Stdout, stderr: o.Stderr}
	if o.Dir == "" {
		dd, err := os.MkdirTemp("", "trailboss-demo-")
		if err != nil {
			return fmt.Errorf("make the demo's temp folder: %w", err)
		}
		d.dir, d.owned = dd, true
	} else {
		abs, err := filepath.Abs(o.Dir)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(abs, 0o700); err != nil {
			return err
		}
		d.dir = abs
	}
	d.socket = filepath.Join(d.dir, "tmux.sock")
	d.addr = o.Addr
	keys := KeysFor(o.OuterPrefix)
	if err := d.start(ctx, keys); err != nil {
		_ = d.stop() // what did not stop is killed; why the start failed is what matters
		if ctx.Err() != nil {
			fmt.Fprintln(d.stdout, "Trail Boss demo interrupted while starting; it has cleaned up after itself.")
			return nil
		}
		return fmt.Errorf("the demo could not start (it has cleaned up after itself): %w", err)
	}
	if o.NoAttach {
		fmt.Fprintf(d.stdout, "demo running; attach with:\n  tmux -S %s attach -t %s\nstop with:\n  tmux -S %s kill-server\n",
			d.socket, Session, d.socket)
		if d.owned {
			fmt.Fprintf(d.stdout, "and then remove its folder:\n  rm -rf %s\n", d.dir)
		}
		return nil
	}
	if keys.nested {
		fmt.Fprintln(d.stdout, keys.note())
	}
	return d.attach(ctx)
}

// demo is one running demo: its folder, its daemon's address and its tmux server.
type demo struct {
	dir, self, addr, socket string
	conf                    string // the tmux config
	fast                    bool
	stdout, stderr          io.Writer
	owned                   bool // dir was made by the demo, so the demo removes it

	server *tmuxServer // the demo's tmux server, a child of this process
}

// tmuxServer is the demo's tmux server, run in the foreground (tmux -D).
type tmuxServer struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once it has exited
}

// said returns the last lines written to the demo's file name.
func (d *demo) said(name string) string {
	b, _ := os.ReadFile(filepath.Join(d.dir, name))
	return lastLines(string(b), 3)
}

// exited reports whether the server exited before deadline.
func (s *tmuxServer) exited(deadline time.Time) bool {
	select {
	case <-s.done:
		return true
	case <-time.After(time.Until(deadline)):
		return false
	}
}

// environ is the environment of everything the demo runs: the user's, minus whatever would
// lead to the user's own tmux server, Claude Code, Codex, config or state.
func (d *demo) environ() []string {
	drop := []string{"TMUX", "TMUX_PANE", "TMUX_TMPDIR", "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
		"CLAUDE_CONFIG_DIR", "CODEX_HOME", "TRAILBOSS_STATE_DIR", "TRAILBOSS_ADDR"}
	out := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(drop, k)
	})
	if d.addr != "" {
		out = append(out, "TRAILBOSS_ADDR="+d.addr)
	}
	return append(out, "TRAILBOSS_STATE_DIR="+filepath.Join(d.dir, "state"),
		"HOME="+filepath.Join(d.dir, "home"), "XDG_CONFIG_HOME="+filepath.Join(d.dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(d.dir, "xdg-state"), "TMUX_TMPDIR="+d.dir, "TRAILBOSS_DEMO=1")
}

// tmux runs one tmux command (or several, separated by ";") against the demo's server and
// returns its output.
func (d *demo) tmux(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-S", d.socket}, args...)...)
	cmd.Env = d.environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// start makes the demo's folder (projects, config, welcome text), its tmux server, daemon
// and agents, and returns once the daemon answers and the agents run; it attaches nothing.
func (d *demo) start(ctx context.Context, keys Keys) error {
	for _, sub := range []string{"home", "config", "state", "transcripts"} {
		if err := os.MkdirAll(filepath.Join(d.dir, sub), 0o700); err != nil {
			return err
		}
	}
	// A low escape-time: Esc in the popup closes it at once, not after tmux's 500 ms.
	conf := d.conf + "set -s escape-time 10\n"
	if err := os.WriteFile(filepath.Join(d.dir, "tmux.conf"), []byte(conf), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d.dir, "WELCOME"), []byte(keys.welcome()), 0o600); err != nil {
		return err
	}
	// The welcome offers answers from the popup, so the demo's own config switches delivery
	// on; a user's own setup keeps it off until they do (the welcome says so).
	if err := os.MkdirAll(filepath.Join(d.dir, "config", "trailboss"), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d.dir, "config", "trailboss", "config.toml"), []byte(demoConfig), 0o600); err != nil {
		return err
	}
	for _, a := range Agents {
		if err := makeDemoProject(filepath.Join(d.dir, "projects", a.Name), a.Branch); err != nil {
			return err
		}
	}
	if err := d.startServer(); err != nil {
		return err
	}
	if _, err := d.tmux("new-session", "-d", "-s", Session, "-n", "welcome", "-x", "200", "-y", "50", "-c", d.dir,
		"sh", "-c", "cat WELCOME; exec sh"); err != nil {
		return err
	}
	// The daemon's window stays when the daemon exits, and what it says goes to a file as
	// well: tmux can lose from the screen what a pane wrote just before it died.
	daemonWin := Session + ":9"
	if _, err := d.tmux("new-window", "-d", "-t", daemonWin, "-n", "daemon", "-c", d.dir,
		d.self, "daemon", "--cooldown", "30s", "--sweep", "2s",
		";", "pipe-pane", "-t", daemonWin, "cat >> "+hooks.ShellWord(filepath.Join(d.dir, "daemon.log")),
		";", "set-option", "-w", "-t", daemonWin, "remain-on-exit", "on"); err != nil {
		return err
	}
	if err := d.waitDaemon(ctx, daemonWin); err != nil {
		return err
	}
	for i, a := range Agents {
		// They get stuck one after another, a FIFO to deplete; answered, they work a few
		// seconds, visibly, before the next question.
		first, work := time.Duration(2+3*i)*time.Second, 4*time.Second
		if d.fast {
			first, work = time.Duration(100+300*i)*time.Millisecond, time.Second
		}
		if _, err := d.tmux("new-window", "-d", "-t", fmt.Sprintf("%s:%d", Session, i+1), "-n", a.Name,
			"-c", filepath.Join(d.dir, "projects", a.Name),
			d.self, "demo-agent", "--session", "demo-"+a.Name, "--first", first.String(), "--work", work.String(),
			"--script", a.Script, "--transcript", filepath.Join(d.dir, "transcripts", a.Name+".jsonl")); err != nil {
			return err
		}
	}
	return nil
}

// startServer starts the demo's tmux server in the foreground (tmux -D) as a child of this
// process, in a session of its own so that no signal meant for the terminal reaches it,
// and waits until it accepts commands.
func (d *demo) startServer() error {
	log, err := os.Create(filepath.Join(d.dir, "tmux-server.log"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command("tmux", "-D", "-S", d.socket, "-f", filepath.Join(d.dir, "tmux.conf"))
	cmd.Env = d.environ()
	cmd.Dir = d.dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the demo's tmux server: %w", err)
	}
	d.server = &tmuxServer{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(d.server.done)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if c, err := net.Dial("unix", d.socket); err == nil {
			c.Close()
			return nil
		}
		if d.server.exited(time.Now().Add(10 * time.Millisecond)) {
			return fmt.Errorf("the demo's tmux server stopped at once: %s", d.said("tmux-server.log"))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the demo's tmux server did not open its socket %s within 5 s", d.socket)
		}
	}
}

// waitDaemon waits until the demo's daemon answers. It returns at once, with what the
// daemon said, when the daemon stops instead.
func (d *demo) waitDaemon(ctx context.Context, win string) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := client.New(d.addr, filepath.Join(d.dir, "state"), 500*time.Millisecond); err == nil {
			if _, err := c.Status(ctx); err == nil {
				return nil
			}
		}
		if dead, _ := d.tmux("display-message", "-p", "-t", win, "#{pane_dead}"); strings.TrimSpace(dead) == "1" {
			// pipe-pane's cat may still be writing what it read.
			said := d.said("daemon.log")
			for end := time.Now().Add(time.Second); said == "" && time.Now().Before(end); said = d.said("daemon.log") {
				time.Sleep(10 * time.Millisecond)
			}
			return fmt.Errorf("its daemon stopped: %s", said)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return errors.New("its daemon did not answer within 10 s")
}

// lastLines returns the last n non-blank lines of s, joined by " / ".
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(0, len(lines)-n):], " / ")
}

// attach attaches the terminal to the demo until the user detaches (or the session ends),
// the terminal goes away, or ctx ends (Ctrl-C, SIGHUP, SIGTERM); then it stops the demo.
func (d *demo) attach(ctx context.Context) error {
	cmd := exec.Command("tmux", "-S", d.socket, "attach-session", "-t", "="+Session)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = d.environ()
	if err := cmd.Start(); err != nil {
		_ = d.stop() // what did not stop is killed; why tmux did not start is what matters
		return fmt.Errorf("attach to the demo: %w", err)
	}
	// done closes when the client exits; attachErr is its exit status then.
	done := make(chan struct{})
	var attachErr error
	go func() { attachErr = cmd.Wait(); close(done) }()
	clientLeft := false
	select {
	case <-done:
		clientLeft = true
	case <-ctx.Done():
		// Detach first: the client gives the terminal back as it found it.
		_, _ = d.tmux("detach-client", "-s", "="+Session)
	}
	stopErr := d.stop()
	if !clientLeft {
		select {
		case <-done:
		case <-time.After(time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		attachErr = nil // we ended it: how it exited says nothing
	}
	if stopErr != nil {
		fmt.Fprintln(d.stderr, "trailboss: demo:", stopErr)
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(d.stdout, "Trail Boss demo interrupted; it has stopped and cleaned up after itself.")
		return nil
	case attachErr != nil:
		return fmt.Errorf("the demo's tmux client failed (%v); the demo has stopped and cleaned up after itself. "+
			"Run it in a terminal, or with --no-attach to attach yourself", attachErr)
	}
	fmt.Fprintln(d.stdout, "Trail Boss demo stopped; it has cleaned up after itself.\n"+
		"To use Trail Boss for real: make build, put bin/trailboss on your PATH, run trailboss setup (see the README).")
	return nil
}

// stop ends everything the demo started and waits until it has: each pane's processes (the
// daemon's too) get SIGHUP, as a closed terminal would send, and what has not exited within
// StopWait is killed; then the tmux server. The demo's folder goes too when the demo
// made it. It returns an error naming what had to be killed.
func (d *demo) stop() error {
	var killed []string
	panes := map[int]string{} // pid → its window's name
	if d.server != nil {
		if out, err := d.tmux("list-panes", "-s", "-t", "="+Session, "-F", "#{pane_pid} #{window_name}"); err == nil {
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var pid int
				var name string
				if _, err := fmt.Sscan(l, &pid, &name); err == nil && pid > 1 {
					panes[pid] = name
				}
			}
		}
	}
	// A pane's process leads a process group of its own: the signal reaches its children
	// too (an agent's running hook).
	for pid := range panes {
		_ = syscall.Kill(-pid, syscall.SIGHUP)
	}
	deadline := time.Now().Add(StopWait)
	for pid, name := range panes {
		if !paneExited(pid, deadline) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			paneExited(pid, time.Now().Add(300*time.Millisecond))
			killed = append(killed, "window "+name)
		}
	}
	if d.server != nil {
		// The server exits once its last client has gone.
		_ = d.server.cmd.Process.Signal(syscall.SIGTERM)
		if !d.server.exited(time.Now().Add(StopWait)) { // a busy machine: a second or so
			_ = d.server.cmd.Process.Kill()
			<-d.server.done
			killed = append(killed, "its tmux server")
		}
	}
	if d.owned {
		_ = os.RemoveAll(d.dir)
	}
	if len(killed) > 0 {
		slices.Sort(killed)
		return fmt.Errorf("%s did not stop within %v of SIGHUP and had to be killed", strings.Join(killed, ", "), StopWait)
	}
	return nil
}

// paneExited reports whether a pane's process pid has exited before deadline: it is gone,
// or it is a zombie that the tmux server has yet to reap (which can take it a while).
func paneExited(pid int, deadline time.Time) bool {
	for syscall.Kill(pid, 0) == nil && !zombie(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// zombie reports whether process pid has exited and waits to be reaped. It reads Linux's
// /proc; elsewhere it reports false.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')') // the command's name, in parentheses, may hold anything
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// makeDemoProject makes dir a git repository with branch checked out, as `git init -b
// branch` would (no git needed): the popup shows its folder and branch.
func makeDemoProject(dir, branch string) error {
	gd := filepath.Join(dir, ".git")
	for _, sub := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(gd, sub), 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		filepath.Join(gd, "HEAD"):   "ref: refs/heads/" + branch + "\n",
		filepath.Join(gd, "config"): "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
		filepath.Join(dir, "README.md"): "# " + filepath.Base(dir) + "\n\nA project of the Trail Boss demo; " +
			"its simulated agent works here.\n",
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Keys is how the user reaches the demo's tmux from their keyboard.
type Keys struct {
	prefix string // what to press for the demo's prefix: "Ctrl-b", or "Ctrl-b Ctrl-b"
	nested bool   // the demo runs inside a tmux whose own prefix is Ctrl-b
}

// OuterTmuxPrefix returns the prefix key of the tmux the demo was started in ("C-b"), "" when
// it was started outside tmux. Only asked, never changed; a tmux that does not answer is
// taken to have tmux's default prefix.
func OuterTmuxPrefix(getenv func(string) string) string {
	if getenv("TMUX") == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "show-options", "-gv", "prefix").Output()
	if p := strings.TrimSpace(string(out)); err == nil && p != "" {
		return p
	}
	return "C-b"
}

// KeysFor returns how to reach the demo's keys from inside a tmux with prefix outer ("":
// not inside tmux). A tmux inside tmux gets its prefix only when the outer one, with the
// same prefix, is sent it: pressed twice (tmux binds prefix prefix to send-prefix).
func KeysFor(outer string) Keys {
	if outer == "C-b" {
		return Keys{prefix: "Ctrl-b Ctrl-b", nested: true}
	}
	return Keys{prefix: "Ctrl-b"}
}

// note says, in two lines, how to reach the demo's keys from inside the user's tmux.
func (k Keys) note() string {
	return "You are inside tmux, which takes Ctrl-b itself: press it twice to reach the\n" +
		"demo (Ctrl-b Ctrl-b Tab), or leave tmux and run make demo outside it."
}

// demoConfig is the demo's config.toml: delivery on, so that the popup's answer keys work.
const demoConfig = "# The demo's own settings: delivery is on here so that the popup can answer.\n" +
	"# In your own setup it is off until you add these two lines to your config.toml.\n" +
	"[delivery]\nenabled = true\n"

// welcome is the text of the demo's first window, at most 78 columns wide.
func (k Keys) welcome() string {
	var b strings.Builder
	b.WriteString("\n  Trail Boss demo\n  ───────────────\n")
	if k.nested {
		b.WriteString("  " + strings.ReplaceAll(k.note(), "\n", "\n  ") + "\n\n")
	}
	b.WriteString("  Three simulated agents (windows 1-3) work, each in a project of its own.\n" +
		"  One after another they stop to wait for you: a permission prompt, or a\n" +
		"  finished turn. The status line counts them: ⚠ N stuck. Window 9 runs\n" +
		"  the daemon.\n\n")
	w := len(k.prefix) + 6
	key := func(name, first string, more ...string) {
		fmt.Fprintf(&b, "  %-*s%s\n", w, k.prefix+" "+name, first)
		for _, l := range more {
			fmt.Fprintf(&b, "  %-*s%s\n", w, "", l)
		}
	}
	key("Tab", "lands on the oldest stuck pane. Answer it there (a",
		"permission: 1 yes, 3 no; a finished turn: a line and",
		"Enter): it leaves the queue, works a few seconds,",
		"then asks its next question.",
		k.prefix+" Tab again goes on to the next one.")
	key("g", "shows the whole queue in a popup, with a preview;",
		"Enter jumps. Or answer from there: a allows, x denies,",
		"r replies with a line. (The demo switches delivery on;",
		"in your own setup it stays off until you do.)")
	key("S", "skips the one you are on (it cools down for 30 s).")
	key("F", "opens the focus view: the oldest one's window, with the",
		"queue on the status line; Tab there links the next one",
		"in its place. F again puts every window back.")
	key("d", "leaves: the demo stops everything it started and",
		"removes its temp folder.")
	return b.String()
}
