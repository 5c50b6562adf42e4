package main

// Script commands for the setup scripts (testscripts/setup_*.txtar).

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/trailboss/trailboss/hooks/install"
)

func init() {
	scriptCommands["runhook"] = cmdRunHook
	scriptCommands["which-trailboss"] = cmdWhichTrailboss
}

// runhook SETTINGS EVENT PANE SESSION runs, as Claude Code would, the Trail Boss hook that
// SETTINGS (a settings.json) installs for EVENT: its command through sh, a hook payload on
// stdin, TMUX and TMUX_PANE of PANE in its environment. It fails unless there is exactly
// one such hook, and unless it exits 0 and prints nothing.
func cmdRunHook(ts *testscript.TestScript, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: runhook SETTINGS EVENT PANE SESSION")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	event, pane, session := args[1], args[2], args[3]
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	ts.Check(json.Unmarshal(b, &s))
	var commands []string
	for _, g := range s.Hooks[event] {
		for _, h := range g.Hooks {
			if h.Type == "command" && install.IsTrailbossEmit(h.Command) {
				commands = append(commands, h.Command)
			}
		}
	}
	if len(commands) != 1 {
		ts.Fatalf("want one Trail Boss hook for %s, found %q", event, commands)
	}
	ts.Logf("running the %s hook: %s", event, commands[0])
	payload, _ := json.Marshal(map[string]any{"session_id": session, "hook_event_name": event,
		"cwd": ts.Getenv("WORK"), "transcript_path": filepath.Join(ts.Getenv("TRANSCRIPTS"), session+".jsonl"),
		"permission_mode": "default", "stop_hook_active": false, "last_assistant_message": "Done. Shall I push?"})
	cmd := exec.Command("sh", "-c", commands[0])
	cmd.Env = append(scriptEnv(ts), "TMUX_PANE="+pane, "TMUX="+ts.Getenv("TMUX_SOCK")+",1,0", "CLAUDECODE=1")
	cmd.Stdin = bytes.NewReader(payload)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if err != nil || out.Len() > 0 {
		ts.Fatalf("the hook must exit 0 and print nothing: err=%v output=%q", err, out.String())
	}
}

// which-trailboss VAR sets VAR to the absolute path of the trailboss on PATH.
func cmdWhichTrailboss(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: which-trailboss VAR")
	}
	p, err := exec.LookPath("trailboss")
	ts.Check(err)
	abs, err := filepath.Abs(p)
	ts.Check(err)
	ts.Setenv(args[0], strings.TrimSpace(abs))
}
