package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
)

// demoAgents are the simulated sessions of the demo: each gets stuck in its own way.
var demoAgents = []struct{ name, script string }{
	{"api", "ask:go test ./... && git push|stop:Pushed. Want me to open the pull request?"},
	{"web", "stop:The dark-mode toggle works. Should it follow the system setting by default?"},
	{"infra", "ask:terraform apply -auto-approve|stop:Applied. Anything else?"},
}

// runDemo starts an isolated tmux server of its own, with the daemon and three simulated
// agents that really get stuck through the real hook path, binds the keys there, and
// attaches. Nothing of the user's own tmux, ~/.claude or state directory is touched.
func runDemo(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	dir := fs.String("dir", "", "folder for the demo's state (default: a new temp folder)")
	noAttach := fs.Bool("no-attach", false, "set everything up but do not attach (prints how to)")
	addrFlag := fs.String("addr", "", "address for the demo's daemon (default: a free loopback port)")
	fast := fs.Bool("fast", false, "agents get stuck within a second (for tests)")
	if err := parse(fs, args, e.stderr); err != nil {
		return err
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return fmt.Errorf("the demo needs tmux (apt-get install tmux): %w", err)
	}
	self := selfPath()
	if *dir == "" {
		d, err := os.MkdirTemp("", "trailboss-demo-")
		if err != nil {
			return err
		}
		*dir = d
	}
	addr := *addrFlag
	if addr == "" {
		a, err := freeLoopbackAddr()
		if err != nil {
			return err
		}
		addr = a
	}
	d := &demo{dir: *dir, self: self, addr: addr, socket: filepath.Join(*dir, "tmux.sock"), fast: *fast}
	if err := d.start(ctx); err != nil {
		d.stop()
		return err
	}
	if *noAttach {
		fmt.Fprintf(e.stdout, "demo running; attach with:\n  tmux -S %s attach -t trailboss-demo\nstop with:\n  tmux -S %s kill-server\n", d.socket, d.socket)
		return nil
	}
	defer d.stop()
	attach := exec.Command("tmux", "-S", d.socket, "attach", "-t", "trailboss-demo")
	attach.Stdin, attach.Stdout, attach.Stderr = os.Stdin, os.Stdout, os.Stderr
	attach.Env = d.environ()
	return attach.Run()
}

type demo struct {
	dir, self, addr, socket string
	fast                    bool
}

func (d *demo) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			out = append(out, kv)
		}
	}
	// TMUX_TMPDIR too: the demo's daemon must not find (let alone read) the user's own
	// default tmux server.
	return append(out, "TRAILBOSS_STATE_DIR="+filepath.Join(d.dir, "state"), "TRAILBOSS_ADDR="+d.addr,
		"HOME="+filepath.Join(d.dir, "home"), "TMUX_TMPDIR="+d.dir, "TRAILBOSS_DEMO=1")
}

func (d *demo) tmux(args ...string) error {
	cmd := exec.Command("tmux", append([]string{"-S", d.socket}, args...)...)
	cmd.Env = d.environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tmux %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (d *demo) start(ctx context.Context) error {
	conf := filepath.Join(d.dir, "tmux.conf")
	if err := os.MkdirAll(filepath.Join(d.dir, "home"), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(conf, []byte(demoTmuxConf(d.self)), 0o600); err != nil {
		return err
	}
	q := shellQuote
	daemonCmd := fmt.Sprintf("%s daemon --cooldown 30s --sweep 2s; echo daemon stopped; sleep 3600", q(d.self))
	if err := d.tmux("-f", conf, "new-session", "-d", "-s", "trailboss-demo", "-n", "welcome", "-x", "200", "-y", "50",
		"sh", "-c", "cat "+q(filepath.Join(d.dir, "WELCOME"))+"; exec sh"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d.dir, "WELCOME"), []byte(welcome), 0o600); err != nil {
		return err
	}
	if err := d.tmux("new-window", "-d", "-t", "trailboss-demo:9", "-n", "daemon", "sh", "-c", daemonCmd); err != nil {
		return err
	}
	if err := d.waitDaemon(ctx); err != nil {
		return err
	}
	for i, a := range demoAgents {
		// They get stuck one after another: a FIFO to deplete.
		work := time.Duration(3+4*i) * time.Second
		if d.fast {
			work = time.Duration(100+300*i) * time.Millisecond
		}
		agentCmd := fmt.Sprintf("cd %s && %s demo-agent --session demo-%s --work %s --script %s --transcript %s",
			q(d.dir), q(d.self), a.name, work, q(a.script), q(filepath.Join(d.dir, "transcripts", a.name+".jsonl")))
		if err := d.tmux("new-window", "-d", "-t", fmt.Sprintf("trailboss-demo:%d", i+1), "-n", a.name, "sh", "-c", agentCmd); err != nil {
			return err
		}
	}
	return nil
}

func (d *demo) waitDaemon(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := client.New(d.addr, filepath.Join(d.dir, "state"), time.Second); err == nil {
			if _, err := c.Status(ctx); err == nil {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("the demo daemon did not start; see: tmux -S %s attach -t trailboss-demo:daemon", d.socket)
}

func (d *demo) stop() { _ = d.tmux("kill-server") }

func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

const welcome = `
  Trail Boss demo
  ───────────────
  Three simulated agents (windows 1–3) are working. One after another they stop to wait
  for you: a permission prompt, or a finished turn. The status line counts them: ⚠ N stuck.

  Press  Ctrl-b Tab   to land on the oldest stuck pane.
         type a line + Enter in that pane to answer it (it leaves the queue),
         then Ctrl-b Tab again for the next one.
  Press  Ctrl-b g     to see the whole queue in a popup, with a preview; Enter jumps.
  Press  Ctrl-b S     to skip the one you are on (it cools down for 30 s).

  Window 9 runs the daemon. Leave with Ctrl-b d; the demo cleans up after itself.
`
