package main

// Script commands for the Codex CLI scripts (testscripts/codex_*.txtar): they run what a
// config.toml that setup wrote tells Codex to run, the way Codex runs it.

import (
	"bytes"
	"os"
	"os/exec"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["codex-notify"] = cmdCodexNotify
	scriptCommands["codex-hook"] = cmdCodexHook
}

// codexConfig reads the notify program and the hooks of a Codex config.toml.
type codexConfig struct {
	Notify []string       `toml:"notify"`
	Hooks  map[string]any `toml:"hooks"`
}

func readCodexConfig(ts *testscript.TestScript, path string) codexConfig {
	b, err := os.ReadFile(ts.MkAbs(path))
	ts.Check(err)
	var c codexConfig
	ts.Check(toml.Unmarshal(b, &c))
	return c
}

// codexEnv is the environment of a program Codex runs in PANE: Codex's own, which is the
// pane's (TMUX, TMUX_PANE).
func codexEnv(ts *testscript.TestScript, pane string) []string {
	return append(scriptEnv(ts), "TMUX_PANE="+pane, "TMUX="+ts.Getenv("TMUX_SOCK")+",1,0")
}

// runQuiet runs cmd and fails unless it exits 0 and prints nothing, as a notify program or
// hook that never disturbs Codex must.
func runQuiet(ts *testscript.TestScript, cmd *exec.Cmd) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil || out.Len() > 0 {
		ts.Fatalf("%s must exit 0 and print nothing: err=%v output=%q", strings.Join(cmd.Args, " "), err, out.String())
	}
}

// codex-notify CONFIG PANE PAYLOADFILE runs the notify program of CONFIG as Codex runs it
// when a turn ends in PANE: its argv with the payload appended as one more argument, no
// shell, stdin empty.
func cmdCodexNotify(ts *testscript.TestScript, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: codex-notify CONFIG PANE PAYLOADFILE")
	}
	c := readCodexConfig(ts, args[0])
	if len(c.Notify) == 0 {
		ts.Fatalf("%s sets no notify program", args[0])
	}
	payload, err := os.ReadFile(ts.MkAbs(args[2]))
	ts.Check(err)
	ts.Logf("notify: %q + payload", c.Notify)
	cmd := exec.Command(c.Notify[0], append(c.Notify[1:], strings.TrimSpace(string(payload)))...)
	cmd.Env = codexEnv(ts, args[1])
	runQuiet(ts, cmd)
}

// codex-hook CONFIG EVENT PANE PAYLOADFILE runs the one Trail Boss hook CONFIG installs for
// EVENT as Codex runs a command hook: its command through a shell, the payload on stdin.
func cmdCodexHook(ts *testscript.TestScript, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: codex-hook CONFIG EVENT PANE PAYLOADFILE")
	}
	c := readCodexConfig(ts, args[0])
	groups, _ := c.Hooks[args[1]].([]any)
	var commands []string
	for _, g := range groups {
		handlers, _ := g.(map[string]any)["hooks"].([]any)
		for _, h := range handlers {
			hm, _ := h.(map[string]any)
			if cmd, _ := hm["command"].(string); hm["type"] == "command" && strings.Contains(cmd, "emit --codex") {
				commands = append(commands, cmd)
			}
		}
	}
	if len(commands) != 1 {
		ts.Fatalf("want one Trail Boss hook for %s in %s, found %q", args[1], args[0], commands)
	}
	payload, err := os.ReadFile(ts.MkAbs(args[3]))
	ts.Check(err)
	ts.Logf("hook %s: %s", args[1], commands[0])
	cmd := exec.Command("sh", "-c", commands[0])
	cmd.Env = codexEnv(ts, args[2])
	cmd.Stdin = bytes.NewReader(payload)
	runQuiet(ts, cmd)
}
