package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/lineage"
)

func init() {
	scriptCommands["livestate"] = cmdLiveState
	scriptCommands["waitsession"] = cmdWaitSession
}

// waitsession [-within D] SESSION PANE waits (2 s by default) until the daemon has session
// SESSION bound to PANE; PANE "-" waits until it has no such session.
func cmdWaitSession(ts *testscript.TestScript, args []string) {
	timeout, args := within(ts, args, 2*time.Second)
	if len(args) != 2 {
		ts.Fatalf("usage: waitsession [-within D] SESSION PANE|-")
	}
	got := "no such session"
	poll(ts, "session "+args[0]+" in pane "+args[1], timeout, func() bool {
		ss, err := daemonClient(ts).Sessions(context.Background())
		if err != nil {
			got = err.Error()
			return false
		}
		got = "no such session"
		for _, s := range ss {
			if s.SessionID == args[0] {
				got = "in pane " + s.Pane
				return s.Pane == args[1]
			}
		}
		return args[1] == "-"
	}, func() string { return got })
}

// livestate [-no-tmux] [-pane OTHER] PANE SESSION STATUS [WAITING FOR…] writes the state file
// a Claude Code 2.1.332 running as PANE's first process keeps (in $HOME/.claude/sessions,
// named by its pid), as it rewrites it on every change: its pid and start time, its session,
// the folder $WORK, the status and what it waits for, and where it runs ("main:@N.PANE";
// with -pane, another pane's id instead, as a lying file would; with -no-tmux none, as when
// it started without TMUX_PANE). It sets LIVE_FILE to the file and LIVE_TRANSCRIPT to where
// that Claude Code keeps its transcript.
func cmdLiveState(ts *testscript.TestScript, args []string) {
	named, tmux := "", true
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-no-tmux":
			tmux, args = false, args[1:]
		case "-pane":
			if len(args) < 2 {
				ts.Fatalf("-pane needs a pane")
			}
			named, args = args[1], args[2:]
		default:
			ts.Fatalf("unknown flag %s", args[0])
		}
	}
	if len(args) < 3 {
		ts.Fatalf("usage: livestate [-no-tmux] [-pane OTHER] PANE SESSION STATUS [WAITING FOR...]")
	}
	pane, session, status := args[0], args[1], args[2]
	out, err := runTmux(ts, "display-message", "-p", "-t", pane, "#{pane_pid} #{window_id}")
	ts.Check(err)
	f := strings.Fields(out)
	if len(f) != 2 {
		ts.Fatalf("display-message printed %q", out)
	}
	pid, err := strconv.Atoi(f[0])
	ts.Check(err)
	proc, err := lineage.Read(pid)
	ts.Check(err)
	if named == "" {
		named = pane
	}
	now := time.Now().UnixMilli()
	state := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":%q,"startedAt":%d,"procStart":"%d","version":"2.1.332","kind":"interactive","entrypoint":"cli"`,
		pid, session, ts.Getenv("WORK"), now, proc.Start)
	if tmux {
		state += fmt.Sprintf(`,"tmux":%q`, "main:"+f[1]+"."+named)
	}
	state += fmt.Sprintf(`,"status":%q,"updatedAt":%d,"statusUpdatedAt":%d`, status, now, now)
	if len(args) > 3 {
		state += fmt.Sprintf(`,"waitingFor":%q`, strings.Join(args[3:], " "))
	}
	config := filepath.Join(ts.Getenv("HOME"), ".claude")
	dir := claude.LiveStateDir(config)
	ts.Check(os.MkdirAll(dir, 0o700))
	path := filepath.Join(dir, fmt.Sprintf("%d.json", pid))
	// Whole, as Claude Code writes it: a reader never sees half of it.
	tmp := path + ".tmp"
	ts.Check(os.WriteFile(tmp, []byte(state+"}"), 0o600))
	ts.Check(os.Rename(tmp, path))
	ts.Setenv("LIVE_FILE", path)
	transcript := claude.TranscriptPath(config, ts.Getenv("WORK"), session)
	ts.Check(os.MkdirAll(filepath.Dir(transcript), 0o700))
	ts.Setenv("LIVE_TRANSCRIPT", transcript)
}
