package main

// The end-to-end acceptance tests: testscript files in ../../testscripts, each run against
// the real trailboss binary (this test binary, re-executed under that name), a real daemon
// process with a real SQLite file, and a real tmux server on a private socket with a real
// attached client on a PTY. Nothing here touches the user's tmux server, home or state.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/cmd/internal/hotcmd"
	"github.com/trailboss/trailboss/hooks"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wire"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"trailboss": func() { os.Exit(mainExit()) },
		// trailboss-hot beside trailboss, as make build puts it: setup wires the hooks and
		// keys to it, and the benchmarks run it (benchHotBin).
		"trailboss-hot": func() { os.Exit(hotcmd.Main()) },
		"impostor":      impostorMain, // transport_test.go
		"flood":         floodMain,    // flood_test.go
		// auto-dialog: Claude Code 2.1.332's auto-mode dialog (script_autodialog_test.go).
		"auto-dialog": autoDialogMain,
		// other-web-server FILE: another program on a loopback port (an HTML page on every
		// path), writing its address to FILE. SIGINT stops it with status 0, so that a
		// script can wait until the port is free (kill -INT, wait).
		"other-web-server": func() {
			term := make(chan os.Signal, 1)
			signal.Notify(term, os.Interrupt)
			go func() { <-term; os.Exit(0) }()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				os.Exit(1)
			}
			if err := os.WriteFile(os.Args[1], []byte(ln.Addr().String()), 0o600); err != nil {
				os.Exit(1)
			}
			_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, "<html><body>Some other app</body></html>")
			}))
		},
	})
}

func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("TRAILBOSS_REQUIRE_TMUX") == "1" {
			t.Fatal("tmux is not installed and TRAILBOSS_REQUIRE_TMUX=1")
		}
		t.Skip("tmux is not installed")
	}
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatal("script (util-linux) is needed to attach a real tmux client")
	}
	// Our own root for the scripts' folders, removed when every script is done: testscript
	// leaves its own behind when -run picks only some scripts.
	root, err := os.MkdirTemp("", "tbs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	testscript.Run(t, testscript.Params{
		WorkdirRoot:         root,
		Dir:                 filepath.Join("..", "..", "testscripts"),
		Setup:               setupScript,
		Cmds:                scriptCmds(),
		RequireExplicitExec: true,
	})
}

// setupScript gives each script its own home, XDG folders, state dir, colours, and a free
// port in ADDR for a script that asks for TCP (TRAILBOSS_ADDR=$ADDR): clients reach the
// daemon through its unix socket otherwise.
func setupScript(env *testscript.Env) error {
	for _, d := range []string{"home", "xdg/config", "xdg/state", "xdg/data", "xdg/cache", "state", "transcripts", "tmuxtmp"} {
		if err := os.MkdirAll(filepath.Join(env.WorkDir, d), 0o700); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return err
	}
	env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
	env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "xdg/config"))
	env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, "xdg/state"))
	env.Setenv("XDG_DATA_HOME", filepath.Join(env.WorkDir, "xdg/data"))
	env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, "xdg/cache"))
	env.Setenv("TMUX_TMPDIR", filepath.Join(env.WorkDir, "tmuxtmp"))
	env.Setenv("TRAILBOSS_STATE_DIR", filepath.Join(env.WorkDir, "state"))
	env.Setenv("TRAILBOSS_ADDR", "")
	env.Setenv("ADDR", addr)
	env.Setenv("TRANSCRIPTS", filepath.Join(env.WorkDir, "transcripts"))
	env.Setenv("REPO", repo)
	// A shell under another name, for a pane that plays an agent: an answer is never typed
	// into a pane whose program is a shell (it would run the answer as a command).
	sh, err := exec.LookPath("sh")
	if err != nil {
		return err
	}
	fake := filepath.Join(env.WorkDir, "fake-agent")
	if err := os.Symlink(sh, fake); err != nil {
		return err
	}
	env.Setenv("FAKE_AGENT", fake)
	env.Setenv("NO_COLOR", "1")
	env.Setenv("TERM", "xterm-256color")
	env.Setenv("TMUX", "")
	env.Setenv("TMUX_PANE", "")
	return nil
}

// scriptCommands are the scripts' own commands that state a fact and have no negative form:
// `! name` fails with "unsupported: ! name" (go-internal's own convention), where it once
// quietly asserted the positive. Say what must not happen with a command made for it
// (queuestays, stayspane, waitnoproc, fakebot never).
var scriptCommands = map[string]func(ts *testscript.TestScript, args []string){
	"tmux-start":   cmdTmuxStart,
	"tmux-use":     cmdTmuxUse,
	"tmux-restart": cmdTmuxRestart,
	"pane":         cmdPane,
	"attach":       cmdAttach,
	"press":        cmdPress,
	"bindkeys":     cmdBindKeys,
	"waitpane":     cmdWaitPane,
	"stayspane":    cmdStaysPane,
	"daemon-wait":  cmdDaemonWait,
	"emit":         cmdEmit,
	"transcript":   cmdTranscript,
	"waitqueue":    cmdWaitQueue,
	"queuestays":   cmdQueueStays,
	"http":         cmdHTTP,
	"timed":        cmdTimed,
	"copy-fixture": cmdCopyFixture,
	"waitfile":     cmdWaitFile,
	"envfile":      cmdEnvFile,
	"envmatch":     cmdEnvMatch,
	"waitscreen":   cmdWaitScreen,
	"waitoption":   cmdWaitOption,
	"lateanswer":   cmdLateAnswer,
}

// negatableCommands are the commands whose negative means something: `! tmux …` expects
// tmux to fail, `! queuefield …` the field not to match.
var negatableCommands = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"tmux":       cmdTmux,
	"queuefield": cmdQueueField,
}

// scriptCmds is every script command as testscript takes them, the positive ones refusing `!`.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){}
	for name, run := range scriptCommands {
		cmds[name] = func(ts *testscript.TestScript, neg bool, args []string) {
			if neg {
				ts.Fatalf("unsupported: ! %s", name)
			}
			run(ts, args)
		}
	}
	for name, run := range negatableCommands {
		cmds[name] = run
	}
	return cmds
}

// ---- tmux -------------------------------------------------------------------------------

func tmuxArgs(ts *testscript.TestScript, args ...string) []string {
	sock := ts.Getenv("TMUX_SOCK")
	if sock == "" {
		ts.Fatalf("tmux-start first")
	}
	return append([]string{"-u", "-S", sock}, args...) // -u: UTF-8 even without a UTF-8 locale
}

func runTmux(ts *testscript.TestScript, args ...string) (string, error) {
	cmd := exec.Command("tmux", tmuxArgs(ts, args...)...)
	cmd.Env = scriptEnv(ts)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// scriptEnv is the script's environment for child processes started by custom commands.
func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME",
		"XDG_CACHE_HOME", "TMUX_TMPDIR", "TRAILBOSS_STATE_DIR", "TRAILBOSS_ADDR", "TRANSCRIPTS",
		"NO_COLOR", "TERM", "TMPDIR", "WORK"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// tmux-start starts a tmux server on a private socket with a session "main" and sets
// TMUX_SOCK. The socket lives in a short temp path: unix socket paths are limited.
func cmdTmuxStart(ts *testscript.TestScript, args []string) {
	var dir, sock string
	if len(args) == 1 && args[0] == "-default" {
		// The user's default server, as plain `tmux` starts it: where commands run outside
		// tmux find it.
		dir = filepath.Join(ts.Getenv("TMUX_TMPDIR"), fmt.Sprintf("tmux-%d", os.Getuid()))
		ts.Check(os.MkdirAll(dir, 0o700))
		sock = filepath.Join(dir, "default")
	} else {
		var err error
		dir, err = os.MkdirTemp("", "tbt")
		ts.Check(err)
		sock = filepath.Join(dir, "sock")
	}
	ts.Setenv("TMUX_SOCK", sock)
	ts.Defer(func() { killTmux(ts); os.RemoveAll(dir) })
	_, err := runTmux(ts, "-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "160", "-y", "40")
	ts.Check(err)
	_, err = runTmux(ts, "set", "-g", "remain-on-exit", "off")
	ts.Check(err)
}

// tmux-restart starts a new tmux server on the socket of one that was killed, with a
// session "main", as a user who runs tmux again would.
// The old server may still be on its way out ("server exited unexpectedly"): it retries.
func cmdTmuxRestart(ts *testscript.TestScript, args []string) {
	var err error
	poll(ts, "a new tmux server on the socket", 5*time.Second, func() bool {
		_, err = runTmux(ts, "-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "160", "-y", "40")
		return err == nil
	})
}

// tmux-use SOCKET points the tmux commands at a server someone else started (the demo's),
// and kills it when the script ends.
func cmdTmuxUse(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: tmux-use SOCKET")
	}
	ts.Setenv("TMUX_SOCK", args[0])
	ts.Defer(func() { killTmux(ts) })
}

// killTmux kills the script's tmux server and waits for its panes' programs to exit, so
// that what they write as they go (a shell's history) is not left behind in $WORK.
func killTmux(ts *testscript.TestScript) {
	cmd := exec.Command("tmux", tmuxArgs(ts)...)
	cmd.Env = scriptEnv(ts)
	pids := tmuxtest.PanePIDs(cmd)
	_, _ = runTmux(ts, "kill-server")
	tmuxtest.WaitExited(pids, 5*time.Second)
}

// tmux args… runs tmux against the script's server; its output is the command's stdout.
func cmdTmux(ts *testscript.TestScript, neg bool, args []string) {
	out, err := runTmux(ts, args...)
	fmt.Fprint(ts.Stdout(), out)
	if err != nil && !neg {
		ts.Fatalf("%v", err)
	}
	if err == nil && neg {
		ts.Fatalf("tmux %s succeeded unexpectedly", strings.Join(args, " "))
	}
}

// pane NAME [command…] opens a window running command (a shell by default) and sets NAME to
// its pane id.
func cmdPane(ts *testscript.TestScript, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: pane NAME [command...]")
	}
	targs := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "-c", ts.Getenv("WORK")}
	for _, kv := range scriptEnv(ts) {
		targs = append(targs, "-e", kv)
	}
	if len(args) > 1 {
		quoted := make([]string, len(args)-1)
		for i, a := range args[1:] {
			quoted[i] = hooks.ShellWord(a)
		}
		targs = append(targs, strings.Join(quoted, " "))
	}
	out, err := runTmux(ts, targs...)
	ts.Check(err)
	ts.Setenv(args[0], strings.TrimSpace(out))
}

var (
	fifoMu sync.Mutex
	fifos  = map[string]*os.File{} // client var name + script dir → the PTY's input
)

// attach NAME [SESSION] attaches a real tmux client on a PTY (script(1)) to SESSION (main by
// default) and sets NAME to the client's name. Keys are typed into it with press.
func cmdAttach(ts *testscript.TestScript, args []string) {
	if len(args) != 1 && len(args) != 2 {
		ts.Fatalf("usage: attach NAME [SESSION]")
	}
	session := "main"
	if len(args) == 2 {
		session = args[1]
	}
	before, _ := runTmux(ts, "list-clients", "-F", "#{client_name}")
	fifo := filepath.Join(ts.Getenv("WORK"), "keys-"+args[0])
	ts.Check(mkfifo(fifo))
	cmd := exec.Command("script", "-qfc", "stty cols 160 rows 40; exec tmux -u -S "+hooks.ShellWord(ts.Getenv("TMUX_SOCK"))+" attach -t "+hooks.ShellWord(session), "/dev/null")
	cmd.Env = scriptEnv(ts)
	in, err := os.OpenFile(fifo, os.O_RDWR, 0) // RDWR: opening does not wait for a reader
	ts.Check(err)
	// What the client draws goes to $WORK/screen-NAME, for checks of on-screen messages.
	screen, err := os.Create(filepath.Join(ts.Getenv("WORK"), "screen-"+args[0]))
	ts.Check(err)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, screen, screen
	ts.Check(cmd.Start())
	key := ts.Getenv("WORK") + "/" + args[0]
	fifoMu.Lock()
	fifos[key] = in
	fifoMu.Unlock()
	ts.Defer(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		in.Close()
		screen.Close()
	})
	var name string
	poll(ts, "a new tmux client", 5*time.Second, func() bool {
		// Not the daemon's control client (control mode, sent no output), which may attach
		// meanwhile.
		now, _ := runTmux(ts, "list-clients", "-F", "#{client_name} #{client_flags}")
		for _, l := range strings.Split(now, "\n") {
			c, flags, _ := strings.Cut(l, " ")
			if c != "" && !strings.Contains(flags, "no-output") && !strings.Contains(before, c) {
				name = c
				return true
			}
		}
		return false
	})
	ts.Setenv(args[0], name)
}

func mkfifo(path string) error {
	return exec.Command("mkfifo", path).Run()
}

// press CLIENTVAR key… types keys into the client's terminal, as a person would: C-b, Tab,
// Enter, Escape, or literal text.
func cmdPress(ts *testscript.TestScript, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: press CLIENTVAR key...")
	}
	fifoMu.Lock()
	in := fifos[ts.Getenv("WORK")+"/"+args[0]]
	fifoMu.Unlock()
	if in == nil {
		ts.Fatalf("no attached client %s", args[0])
	}
	var b strings.Builder
	for _, k := range args[1:] {
		switch {
		case k == "Tab":
			b.WriteByte('\t')
		case k == "Enter":
			b.WriteByte('\r')
		case k == "Escape":
			b.WriteByte(0x1b)
		case len(k) == 3 && strings.HasPrefix(k, "C-"):
			b.WriteByte(k[2] & 0x1f)
		default:
			b.WriteString(k)
		}
	}
	_, err := in.WriteString(b.String())
	ts.Check(err)
}

// bindkeys installs Trail Boss's key bindings (prefix Tab, g, S) and status segment on the
// script's tmux server: the lines `trailboss tmux-conf` prints.
func cmdBindKeys(ts *testscript.TestScript, args []string) {
	bin, err := exec.LookPath("trailboss")
	ts.Check(err)
	conf := filepath.Join(ts.Getenv("WORK"), "trailboss.tmux.conf")
	ts.Check(os.WriteFile(conf, []byte(tmuxLines(tmuxSettings{bin: hooks.ShellWord(bin)})), 0o600))
	_, err = runTmux(ts, "source-file", conf)
	ts.Check(err)
	// run-shell jobs get the server's global environment: give them the script's.
	for _, kv := range scriptEnv(ts) {
		k, v, _ := strings.Cut(kv, "=")
		_, err = runTmux(ts, "set-environment", "-g", k, v)
		ts.Check(err)
	}
}

// clientPane returns the pane that client is looking at, from list-clients. (tmux 3.3a's
// display-message -c CLIENT -p '#{pane_id}' answers for the most recently active session
// whichever client -c names: with two clients on two sessions it cannot tell them apart.)
func clientPane(ts *testscript.TestScript, client string) string {
	out, err := runTmux(ts, "list-clients", "-F", "#{client_name}\t#{pane_id}")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(out, "\n") {
		if name, pane, ok := strings.Cut(l, "\t"); ok && name == client {
			return pane
		}
	}
	return ""
}

// clientOf returns the client name an attach stored in the variable name.
func clientOf(ts *testscript.TestScript, name string) string {
	c := ts.Getenv(name)
	if c == "" {
		ts.Fatalf("no attached client in $%s", name)
	}
	return c
}

// waitpane CLIENTVAR PANE waits until the client attached as CLIENTVAR shows PANE (a pane
// id, or any tmux target such as session:window).
func cmdWaitPane(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitpane CLIENTVAR PANE")
	}
	client := clientOf(ts, args[0])
	if !strings.HasPrefix(args[1], "%") {
		out, err := runTmux(ts, "display-message", "-p", "-t", args[1], "#{pane_id}")
		ts.Check(err)
		args[1] = strings.TrimSpace(out)
	}
	var got string
	poll(ts, fmt.Sprintf("client %s on pane %s", args[0], args[1]), 5*time.Second, func() bool {
		got = clientPane(ts, client)
		return got == args[1]
	}, func() string { return "it is on " + got })
}

// stayspane CLIENTVAR PANE DURATION checks that the client does not leave PANE for
// DURATION: the daemon must never switch a client on its own.
func cmdStaysPane(ts *testscript.TestScript, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: stayspane CLIENTVAR PANE DURATION")
	}
	client := clientOf(ts, args[0])
	d, err := time.ParseDuration(args[2])
	ts.Check(err)
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got := clientPane(ts, client); got != args[1] {
			ts.Fatalf("client %s moved to %s on its own", args[0], got)
		}
	}
}

// ---- daemon -----------------------------------------------------------------------------

func daemonClient(ts *testscript.TestScript) *client.Client {
	c, err := client.New(scriptAddr(ts), ts.Getenv("TRAILBOSS_STATE_DIR"), 2*time.Second)
	ts.Check(err)
	return c
}

// scriptAddr is the daemon's TCP address as the CLI finds it (TRAILBOSS_ADDR, else the
// config file's addr), or "" for its unix socket.
func scriptAddr(ts *testscript.TestScript) string {
	return daemonAddr(ts.Getenv("TRAILBOSS_ADDR"), ts.Getenv)
}

// rawHTTP returns a plain HTTP client to the daemon, and the URL its paths go after: over
// TCP when the script asks for it, else over the unix socket, as curl --unix-socket does.
func rawHTTP(ts *testscript.TestScript) (*http.Client, string) {
	addr := scriptAddr(ts)
	if addr != "" {
		return http.DefaultClient, "http://" + addr
	}
	sock, err := statedir.SocketPath(ts.Getenv("TRAILBOSS_STATE_DIR"))
	ts.Check(err)
	return socketHTTP(sock), "http://trailboss"
}

// daemon-wait waits until the daemon answers its health check and its token exists.
func cmdDaemonWait(ts *testscript.TestScript, args []string) {
	hc, base := rawHTTP(ts)
	poll(ts, "the daemon to answer", 10*time.Second, func() bool {
		resp, err := hc.Get(base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		_, err = os.Stat(filepath.Join(ts.Getenv("TRAILBOSS_STATE_DIR"), "token"))
		return resp.StatusCode == 200 && err == nil
	})
}

// emit PANE EVENT SESSION [key=value…] runs the real `trailboss emit` as a Claude Code hook
// in PANE ("-" for none) would: the payload on stdin, TMUX and TMUX_PANE in its environment.
// Keys: msg (Stop's last_assistant_message), cmd (PermissionRequest's Bash command),
// tool (PreToolUse's tool_name), transcript (default $TRANSCRIPTS/SESSION.jsonl).
func cmdEmit(ts *testscript.TestScript, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: emit PANE EVENT SESSION [key=value...]")
	}
	pane, event, session := args[0], args[1], args[2]
	kv := map[string]string{}
	for _, a := range args[3:] {
		k, v, _ := strings.Cut(a, "=")
		kv[k] = v
	}
	payload := map[string]any{"session_id": session, "hook_event_name": event, "cwd": ts.Getenv("WORK"),
		"transcript_path": filepath.Join(ts.Getenv("TRANSCRIPTS"), session+".jsonl")}
	if t, ok := kv["transcript"]; ok {
		payload["transcript_path"] = t
	}
	switch event {
	case "Stop":
		if m, ok := kv["msg"]; ok {
			payload["last_assistant_message"] = m
		}
	case "PermissionRequest":
		payload["tool_name"] = "Bash"
		payload["tool_input"] = map[string]any{"command": kv["cmd"]}
	case "PreToolUse":
		payload["tool_name"] = kv["tool"]
		payload["tool_input"] = map[string]any{}
	case "SessionStart":
		payload["source"] = "startup"
	}
	body, _ := json.Marshal(payload)
	cmd := exec.Command("trailboss", "emit")
	cmd.Env = scriptEnv(ts)
	if pane != "-" {
		sock := ts.Getenv("TMUX_SOCK")
		cmd.Env = append(cmd.Env, "TMUX_PANE="+pane, "TMUX="+sock+",1,0")
	}
	if v, ok := kv["emitted"]; ok {
		_ = v // reserved
	}
	cmd.Stdin = bytes.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil || out.Len() > 0 {
		ts.Fatalf("emit must exit 0 and print nothing: err=%v output=%q", err, out.String())
	}
}

// transcript SESSION KIND [TEXT] appends one line to $TRANSCRIPTS/SESSION.jsonl as Claude
// Code writes it. KIND: prompt, text, interrupt, tool-use, tool-result, system, meta.
func cmdTranscript(ts *testscript.TestScript, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: transcript SESSION KIND [TEXT]")
	}
	session, kind := args[0], args[1]
	text := strings.Join(args[2:], " ")
	path := session
	if !strings.Contains(session, "/") {
		path = filepath.Join(ts.Getenv("TRANSCRIPTS"), session+".jsonl")
	}
	stamp := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	line := map[string]any{"sessionId": filepath.Base(session), "timestamp": stamp, "isSidechain": false,
		"uuid": strconv.FormatInt(time.Now().UnixNano(), 36)}
	switch kind {
	case "prompt":
		line["type"], line["message"] = "user", map[string]any{"role": "user", "content": text}
	case "text":
		line["type"], line["message"] = "assistant", map[string]any{"role": "assistant", "stop_reason": nil,
			"content": []map[string]any{{"type": "text", "text": text}}}
	case "interrupt":
		line["type"], line["message"] = "user", map[string]any{"role": "user",
			"content": []map[string]any{{"type": "text", "text": "[Request interrupted by user]"}}}
	case "tool-use":
		line["type"], line["message"] = "assistant", map[string]any{"role": "assistant", "stop_reason": nil,
			"content": []map[string]any{{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": text}}}}
	case "tool-result":
		line["type"], line["message"] = "user", map[string]any{"role": "user",
			"content": []map[string]any{{"type": "tool_result", "tool_use_id": "toolu_1", "content": text}}}
	case "system":
		line["type"], line["subtype"] = "system", "turn_duration"
	default:
		ts.Fatalf("unknown transcript line kind %q", kind)
	}
	b, _ := json.Marshal(line)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	ts.Check(err)
	_, err = f.Write(append(b, '\n'))
	ts.Check(err)
	ts.Check(f.Close())
}

// waitqueue [-within D] [ID…] waits until the queue holds exactly these sessions in this
// order; a cooling item is written ID~. No IDs: until the queue is empty.
func cmdWaitQueue(ts *testscript.TestScript, args []string) {
	timeout, args := within(ts, args, 5*time.Second)
	want := strings.Join(args, " ")
	c := daemonClient(ts)
	var got string
	poll(ts, fmt.Sprintf("queue [%s]", want), timeout, func() bool {
		items, err := c.Queue(context.Background())
		if err != nil {
			got = err.Error()
			return false
		}
		var ids []string
		for _, it := range items {
			id := it.SessionID
			if !it.Ready {
				id += "~"
			}
			ids = append(ids, id)
		}
		got = strings.Join(ids, " ")
		return got == want
	}, func() string { return "queue is [" + got + "]" })
}

// queuestays DURATION [ID…] checks that the queue stays exactly these sessions for
// DURATION: for things that must not happen (a spinner queued, an item queued twice).
func cmdQueueStays(ts *testscript.TestScript, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: queuestays DURATION [ID...]")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	want := strings.Join(args[1:], " ")
	c := daemonClient(ts)
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(25 * time.Millisecond) {
		items, err := c.Queue(context.Background())
		ts.Check(err)
		var ids []string
		for _, it := range items {
			ids = append(ids, it.SessionID)
		}
		if got := strings.Join(ids, " "); got != want {
			ts.Fatalf("the queue became [%s], want it to stay [%s]", got, want)
		}
	}
}

// queuefield [-wait] SESSION FIELD REGEXP checks one field of a queued item (its JSON
// name); with -wait it waits up to 5 s for the field to match.
func cmdQueueField(ts *testscript.TestScript, neg bool, args []string) {
	wait := len(args) == 4 && args[0] == "-wait"
	if wait {
		args = args[1:]
	}
	if len(args) != 3 {
		ts.Fatalf("usage: queuefield [-wait] SESSION FIELD REGEXP")
	}
	re := regexp.MustCompile(args[2])
	field := func() (string, bool) {
		items, err := daemonClient(ts).Queue(context.Background())
		ts.Check(err)
		for _, it := range items {
			if it.SessionID == args[0] {
				b, _ := json.Marshal(it)
				var m map[string]any
				_ = json.Unmarshal(b, &m)
				return fmt.Sprint(m[args[1]]), true
			}
		}
		return "", false
	}
	if wait && neg {
		ts.Fatalf("unsupported: ! queuefield -wait (check the field with ! queuefield once it has settled)")
	}
	if wait {
		poll(ts, args[0]+"."+args[1]+" to match "+args[2], 5*time.Second, func() bool {
			v, ok := field()
			return ok && re.MatchString(v)
		})
		return
	}
	v, queued := field()
	if !queued {
		ts.Fatalf("session %s is not queued", args[0])
	}
	if ok := re.MatchString(v); ok == neg {
		ts.Fatalf("%s.%s = %q; match %q: %v", args[0], args[1], v, args[2], ok)
	}
}

// http [-notoken] [-token T] [-H Name:Value]… METHOD PATH [BODYFILE|-size N] prints
// "status N" and the body. For probing the API with bad requests.
func cmdHTTP(ts *testscript.TestScript, args []string) {
	token := ""
	if b, err := os.ReadFile(filepath.Join(ts.Getenv("TRAILBOSS_STATE_DIR"), "token")); err == nil {
		token = strings.TrimSpace(string(b))
	}
	headers := http.Header{}
	host := ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-notoken":
			token, args = "", args[1:]
		case "-token":
			token, args = args[1], args[2:]
		case "-H":
			k, v, _ := strings.Cut(args[1], ":")
			if strings.EqualFold(k, "Host") {
				host = strings.TrimSpace(v)
			} else {
				headers.Add(k, strings.TrimSpace(v))
			}
			args = args[2:]
		default:
			ts.Fatalf("unknown flag %s", args[0])
		}
	}
	if len(args) < 2 {
		ts.Fatalf("usage: http [flags] METHOD PATH [BODYFILE|-size N]")
	}
	var body io.Reader
	if len(args) == 4 && args[2] == "-size" {
		n, err := strconv.Atoi(args[3])
		ts.Check(err)
		body = bytes.NewReader(bytes.Repeat([]byte("x"), n))
	} else if len(args) == 3 {
		b, err := os.ReadFile(ts.MkAbs(args[2]))
		ts.Check(err)
		body = bytes.NewReader(b)
	}
	hc, base := rawHTTP(ts)
	req, err := http.NewRequest(args[0], base+args[1], body)
	ts.Check(err)
	req.Header = headers
	if host != "" {
		req.Host = host
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Fprintf(ts.Stdout(), "status %d\n%s", resp.StatusCode, b)
}

// lateanswer PANE KEY DELAY SESSION is a person answering SESSION's prompt at the keyboard
// (KEY and Enter typed into PANE) while an answer to that same prompt, made from afar with
// the key, arrives DELAY later: it prints "delivered" or "refused: REASON".
func cmdLateAnswer(ts *testscript.TestScript, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: lateanswer PANE KEY DELAY SESSION")
	}
	delay, err := time.ParseDuration(args[2])
	ts.Check(err)
	c := daemonClient(ts)
	items, err := c.Queue(context.Background())
	ts.Check(err)
	id := ""
	for _, it := range items {
		if it.SessionID == args[3] && it.Prompt != nil {
			id = it.Prompt.ID
		}
	}
	if id == "" {
		ts.Fatalf("session %s has no pending prompt", args[3])
	}
	_, err = runTmux(ts, "send-keys", "-t", args[0], "-l", args[1])
	ts.Check(err)
	_, err = runTmux(ts, "send-keys", "-t", args[0], "Enter")
	ts.Check(err)
	time.Sleep(delay) // the late answer's lateness: what is tested, not a wait for something
	_, err = c.Answer(context.Background(), id, wire.Answer{Choice: args[1], Channel: "cli"})
	if err != nil {
		fmt.Fprintf(ts.Stdout(), "refused: %v\n", err)
		return
	}
	fmt.Fprintln(ts.Stdout(), "delivered")
}

// timed MAX command args… runs a program and fails if it takes longer than MAX.
func cmdTimed(ts *testscript.TestScript, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: timed MAX command [args...]")
	}
	max, err := time.ParseDuration(args[0])
	ts.Check(err)
	start := time.Now()
	err = ts.Exec(args[1], args[2:]...)
	took := time.Since(start)
	if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if took > max {
		ts.Fatalf("%s took %v, more than %v", args[1], took, max)
	}
	ts.Logf("%s took %v", args[1], took)
}

// copy-fixture NAME DEST copies a real Claude Code transcript from the adapter's testdata.
func cmdCopyFixture(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: copy-fixture NAME DEST")
	}
	b, err := os.ReadFile(filepath.Join(ts.Getenv("REPO"), "adapter", "claude", "testdata", "transcripts", args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o644))
}

// waitfile FILE REGEXP waits until FILE exists and matches REGEXP.
func cmdWaitFile(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE REGEXP")
	}
	re := regexp.MustCompile(args[1])
	poll(ts, args[0]+" to match "+args[1], 5*time.Second, func() bool {
		b, err := os.ReadFile(ts.MkAbs(args[0]))
		return err == nil && re.Match(b)
	})
}

// ansi matches terminal escape sequences (CSI, OSC, and two-byte escapes).
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78cDEHM]`)

// waitscreen CLIENTVAR REGEXP waits until what the attached client has drawn,
// with escape sequences taken out, matches REGEXP. Cursor moves become spaces, so match
// words, not layout. Each match moves a mark: the next waitscreen looks only at what was
// drawn after it, so a script can wait for a screen to change.
func cmdWaitScreen(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitscreen CLIENTVAR REGEXP")
	}
	re := regexp.MustCompile(args[1])
	path := filepath.Join(ts.Getenv("WORK"), "screen-"+args[0])
	markKey := "SCREENMARK_" + args[0]
	mark, _ := strconv.Atoi(ts.Getenv(markKey))
	var text string
	poll(ts, fmt.Sprintf("%s's screen to show %q", args[0], args[1]), 5*time.Second, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || len(b) < mark {
			return false
		}
		text = ansi.ReplaceAllString(string(b[mark:]), " ")
		loc := re.FindStringIndex(text)
		if loc == nil {
			return false
		}
		ts.Setenv(markKey, strconv.Itoa(len(b)))
		return true
	}, func() string {
		if len(text) > 2000 {
			text = "…" + text[len(text)-2000:]
		}
		return "screen (escapes removed):\n" + text
	})
}

// waitoption [-within D] NAME VALUE waits until the global tmux option NAME is VALUE.
func cmdWaitOption(ts *testscript.TestScript, args []string) {
	timeout := 5 * time.Second
	if len(args) >= 2 && args[0] == "-within" {
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		timeout, args = d, args[2:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: waitoption [-within D] NAME VALUE")
	}
	var got string
	start := time.Now()
	poll(ts, fmt.Sprintf("option %s = %q", args[0], args[1]), timeout, func() bool {
		out, err := runTmux(ts, "show-options", "-gqv", args[0])
		got = strings.TrimSuffix(out, "\n")
		return err == nil && got == args[1]
	}, func() string { return fmt.Sprintf("it is %q", got) })
	ts.Logf("option %s became %q after %v", args[0], args[1], time.Since(start).Round(time.Millisecond))
}

// poll calls cond every 10 ms until it holds or timeout passes.
// within takes a leading "-within D" off a command's args: D, or def when there is none.
func within(ts *testscript.TestScript, args []string, def time.Duration) (time.Duration, []string) {
	if len(args) < 2 || args[0] != "-within" {
		return def, args
	}
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	return d, args[2:]
}

func poll(ts *testscript.TestScript, what string, timeout time.Duration, cond func() bool, detail ...func() string) {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			msg := ""
			for _, d := range detail {
				msg += ": " + d()
			}
			ts.Fatalf("timed out after %v waiting for %s%s", timeout, what, msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// envfile VAR FILE sets VAR to FILE's contents, trimmed.
// cmdEnvMatch is `envmatch VAR FILE REGEXP`: VAR is set to REGEXP's first group in FILE
// (stdout and stderr are the last command's), as a person reads a value off a message.
func cmdEnvMatch(ts *testscript.TestScript, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: envmatch VAR FILE REGEXP")
	}
	m := regexp.MustCompile(args[2]).FindStringSubmatch(ts.ReadFile(args[1]))
	if len(m) < 2 {
		ts.Fatalf("%s has no match of %q", args[1], args[2])
	}
	ts.Setenv(args[0], m[1])
}

func cmdEnvFile(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: envfile VAR FILE")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile(args[1])))
}
