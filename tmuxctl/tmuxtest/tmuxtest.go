// Package tmuxtest gives a test an isolated, real tmux world: a tmux server on a private
// socket in a temporary directory, with HOME, TMUX_TMPDIR and XDG_* pointing into it, so
// that no test ever touches the operator's own tmux server or files. Clients attach
// through a real pseudo-terminal made by util-linux script(1).
//
// A test is skipped when tmux is not installed, unless TRAILBOSS_REQUIRE_TMUX=1, when it
// fails instead (CI sets it so that a missing tmux cannot pass as green).
package tmuxtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/tmuxctl"
)

// Size of every session and attached client, in cells.
const (
	Width  = 200
	Height = 50
)

// maxSocketPath is a safe bound for a unix socket path (sun_path is 108 bytes on Linux).
const maxSocketPath = 100

// commandTimeout bounds each tmux command the harness runs.
const commandTimeout = 10 * time.Second

// Env is an isolated tmux world for a test.
type Env struct {
	Dir     string          // temporary directory holding the socket, HOME and the rest
	Socket  string          // the private server's socket
	Server  *tmuxctl.Server // runs commands against the private server, with Environ
	Environ []string        // HOME, TMUX_TMPDIR, XDG_* set to temp dirs, TMUX, TMUX_PANE and CI unset

	mu      sync.Mutex
	outputs map[string]string   // client name → its typescript file
	inputs  map[string]*os.File // client name → what its terminal reads as typed keys
	nfiles  int

	panePIDs []int // the panes' processes when the server was killed
}

// removeAfterExit removes dir once every process of pids has exited, so that nothing they
// write as they exit is left behind.
func removeAfterExit(dir string, pids []int) {
	WaitExited(pids, 5*time.Second)
	// What a pane started in a session of its own (Codex's app-server) outlives the pane:
	// anything still running with the test's HOME is ended before its folder goes.
	WaitExited(killUsing(filepath.Join(dir, "home")), 5*time.Second)
	// Something may still write into it as it goes (a hook's spool, a shell's history):
	// RemoveAll then fails on a folder that is no longer empty, and is tried again.
	for i := 0; i < 20; i++ {
		if os.RemoveAll(dir) == nil {
			if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// killUsing kills the processes whose HOME is home, and returns them.
func killUsing(home string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	want := []byte("\x00HOME=" + home + "\x00")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), want) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// WaitExited waits, at most timeout, until every process of pids has exited: a pane's
// program outlives its tmux server for a moment, and a shell writes its history as it goes.
func WaitExited(pids []int, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// PanePIDs returns the process ids of the panes of the tmux server that cmd (a tmux
// command line without its arguments) reaches, or none when it cannot say.
func PanePIDs(cmd *exec.Cmd) []int {
	cmd.Args = append(cmd.Args, "list-panes", "-a", "-F", "#{pane_pid}")
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid runs: it exists and is not a zombie (one whose parent has not
// reaped it has written all it will).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // not Linux: trust kill
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// New starts a tmux server on a private socket, with an empty configuration and one
// detached session "main" of Width×Height, and kills it when the test ends.
func New(t testing.TB) *Env {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("TRAILBOSS_REQUIRE_TMUX") == "1" {
			t.Fatalf("tmux is required (TRAILBOSS_REQUIRE_TMUX=1) but not found: %v", err)
		}
		t.Skipf("tmux not installed: %v", err)
	}
	// Not t.TempDir: its path, named after the test, can outgrow a unix socket path.
	dir, err := os.MkdirTemp("", "tbx")
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{Dir: dir, Socket: filepath.Join(dir, "s"), outputs: map[string]string{}, inputs: map[string]*os.File{}}
	t.Cleanup(func() { removeAfterExit(dir, e.panePIDs) }) // after the server's, below
	if len(e.Socket) > maxSocketPath {
		t.Fatalf("socket path %q is longer than %d bytes: set TMPDIR to a short directory", e.Socket, maxSocketPath)
	}
	dirs := map[string]string{
		"HOME":            "home",
		"TMUX_TMPDIR":     "tmp",
		"XDG_CONFIG_HOME": "config",
		"XDG_DATA_HOME":   "data",
		"XDG_STATE_HOME":  "state",
		"XDG_CACHE_HOME":  "cache",
		"XDG_RUNTIME_DIR": "run",
		"TMPDIR":          "tmpdir", // programs in panes (Claude Code's claude-UID) keep theirs here
	}
	// Nor CI: a pane is a person's terminal, and an agent that sees CI=true (as .ci/run sets
	// it) may take itself for a job with no one at the keyboard: Gemini CLI 0.61.0 then
	// reads its prompt from stdin and exits.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, ours := dirs[k]
		return ours || k == "TMUX" || k == "TMUX_PANE" || k == "SHELL" || k == "TERM" || k == "CI"
	})
	for k, sub := range dirs {
		p := filepath.Join(dir, sub)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		env = append(env, k+"="+p)
	}
	// sh rather than the user's shell: no rc files, and the same prompt everywhere.
	env = append(env, "SHELL=/bin/sh", "TERM=xterm-256color")
	slices.Sort(env)
	e.Environ = env
	e.Server = &tmuxctl.Server{Bin: bin, Socket: e.Socket, Env: env}

	// Registered first: a new-session that fails half-way may still leave a server.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		// The panes' programs outlive the server for a moment (a shell writes its history
		// into HOME as it exits); the folder is removed once they are gone.
		e.panePIDs = PanePIDs(e.command(ctx))
		out, err := e.command(ctx, "kill-server").CombinedOutput()
		if err != nil && !strings.Contains(string(out), "no server running") &&
			!strings.Contains(string(out), "error connecting") {
			t.Errorf("tmux kill-server: %v: %s", err, out)
		}
	})
	e.Tmux(t, "-f", "/dev/null", "new-session", "-d", "-s", "main",
		"-x", fmt.Sprint(Width), "-y", fmt.Sprint(Height))
	return e
}

// command returns tmux -u -S socket args… run in the test's environment.
func (e *Env) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.Server.Bin, append([]string{"-u", "-S", e.Socket}, args...)...)
	cmd.Env = e.Environ
	cmd.WaitDelay = time.Second
	return cmd
}

// Tmux runs tmux -u -S socket args… against the private server and returns its standard
// output; it fails the test when tmux fails. For setting up a test, not for code under
// test: that goes through Server.
func (e *Env) Tmux(t testing.TB, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	var stderr strings.Builder
	cmd := e.command(ctx, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out)
}

// NewPane creates a detached window in session, creating the session when it is missing,
// that runs cmd (a shell, sh, when cmd is empty), and returns the id of its pane. A single
// cmd is run by the shell; several are run directly as an argv.
func (e *Env) NewPane(t testing.TB, session string, cmd ...string) string {
	t.Helper()
	if len(cmd) == 0 {
		cmd = []string{"sh"}
	}
	var args []string
	if e.hasSession(t, session) {
		args = []string{"new-window", "-d", "-t", "=" + session + ":"}
	} else {
		args = []string{"new-session", "-d", "-s", session,
			"-x", fmt.Sprint(Width), "-y", fmt.Sprint(Height)}
	}
	args = append(args, "-P", "-F", "#{pane_id}")
	id := strings.TrimSpace(e.Tmux(t, append(args, cmd...)...))
	if !strings.HasPrefix(id, "%") {
		t.Fatalf("tmux %s printed %q, not a pane id", args[0], id)
	}
	return id
}

func (e *Env) hasSession(t testing.TB, session string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	out, err := e.command(ctx, "has-session", "-t", "="+session).CombinedOutput()
	if err == nil {
		return true
	}
	if strings.Contains(string(out), "can't find session") {
		return false
	}
	t.Fatalf("tmux has-session -t =%s: %v: %s", session, err, out)
	return false
}

// Attach attaches a real client to session through a pseudo-terminal of Width×Height,
// waits until the server lists it, and returns its client name ("/dev/pts/3"). The
// client is detached when the test ends. What the client draws is kept; see Output.
func (e *Env) Attach(t testing.TB, session string) string {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()

	before := map[string]bool{}
	for _, c := range e.clients(t) {
		before[c.Name] = true
	}
	e.nfiles++
	typescript := filepath.Join(e.Dir, fmt.Sprintf("client%d.typescript", e.nfiles))
	// script(1) takes a shell command; everything in it is quoted.
	shell := fmt.Sprintf("stty cols %d rows %d && exec %s -u -S %s attach-session -t %s",
		Width, Height, shQuote(e.Server.Bin), shQuote(e.Socket), shQuote("="+session))
	cmd := exec.Command("script", "-qfc", shell, typescript)
	cmd.Env = e.Environ
	// script reads its standard input until EOF and then types ^D into the terminal, which
	// tmux would pass to the pane: give it a pipe that stays open until the client is gone.
	stdin, keepOpen, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = stdin
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		stdin.Close()
		keepOpen.Close()
		t.Fatalf("start script(1) for a tmux client: %v", err)
	}
	stdin.Close()
	// exited closes when script(1) exits; waitErr is its exit status then.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()

	var name string
	deadline := time.Now().Add(commandTimeout)
	for name == "" {
		for _, c := range e.clients(t) {
			if !before[c.Name] && c.SessionName == session {
				name = c.Name
			}
		}
		if name != "" {
			break
		}
		select {
		case <-exited:
			err := waitErr
			keepOpen.Close()
			out, _ := os.ReadFile(typescript)
			t.Fatalf("tmux client for session %q exited before attaching: %v: %s %q",
				session, err, stderr.String(), out)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited // killed: its exit status says nothing
			_ = keepOpen.Close()
			t.Fatalf("tmux client for session %q not listed after %v", session, commandTimeout)
		}
	}
	e.outputs[name] = typescript
	e.inputs[name] = keepOpen

	t.Cleanup(func() {
		// Detach through the server first, so that nothing reaches the pane; closing the
		// pipe before script exits would type ^D into it.
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		_ = e.command(ctx, "detach-client", "-t", name).Run() // it may have left already
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		}
		keepOpen.Close()
	})
	return name
}

func (e *Env) clients(t testing.TB) []tmuxctl.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cs, err := e.Server.ListClients(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// Output returns everything the attached client has drawn on its terminal so far, escape
// sequences included: what a human at that terminal would have seen.
func (e *Env) Output(t testing.TB, client string) string {
	t.Helper()
	e.mu.Lock()
	path, ok := e.outputs[client]
	e.mu.Unlock()
	if !ok {
		t.Fatalf("client %q was not attached by this Env", client)
	}
	out, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// Press types keys into client's terminal as a person at it would: the bytes reach the
// tmux client, so a prefix key and its binding work as they do for a person. Keys are raw
// bytes ("\x02" is C-b, "\t" Tab, "\r" Enter).
func (e *Env) Press(t testing.TB, client, keys string) {
	t.Helper()
	e.mu.Lock()
	in, ok := e.inputs[client]
	e.mu.Unlock()
	if !ok {
		t.Fatalf("client %q was not attached by this Env", client)
	}
	if _, err := in.WriteString(keys); err != nil {
		t.Fatalf("type into client %s: %v", client, err)
	}
}

// ActivePane returns the id of the pane client is looking at: the active pane of the
// current window of the client's session. It asks tmux by another path than
// Server.ClientPane (which reads the client's pane_id from list-clients), so that tests
// can check one against the other. ("display-message -c client -p '#{pane_id}'" is no
// such path: tmux 3.3a expands it for the most recently active client, whichever -c names.)
func (e *Env) ActivePane(t testing.TB, client string) string {
	t.Helper()
	session := ""
	for _, l := range strings.Split(e.Tmux(t, "list-clients", "-F", "#{client_name}\t#{client_session}"), "\n") {
		if name, s, ok := strings.Cut(l, "\t"); ok && name == client {
			session = s
		}
	}
	if session == "" {
		t.Fatalf("client %q is not attached", client)
	}
	pane := strings.TrimSpace(e.Tmux(t, "display-message", "-p", "-t", "="+session+":", "#{pane_id}"))
	if !strings.HasPrefix(pane, "%") {
		t.Fatalf("display-message -t =%s: printed %q, not a pane id", session, pane)
	}
	return pane
}

// WaitFor polls cond every 10ms until it returns true, and fails the test, naming what it
// waited for, when timeout passes first.
func (e *Env) WaitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// shQuote quotes s for sh as one word.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
