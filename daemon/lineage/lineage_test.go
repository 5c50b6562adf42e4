package lineage

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/trailboss/trailboss/adapter"
)

// fakeProc writes a /proc of processes pid → (comm, ppid, start) under a temp Root.
func fakeProc(t *testing.T, procs map[int]Proc) {
	t.Helper()
	root := t.TempDir()
	for pid, p := range procs {
		dir := filepath.Join(root, fmt.Sprint(pid))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
		// utime stime cutime cstime priority nice threads itrealvalue starttime …
		stat := fmt.Sprintf("%d (%s) S %d 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0\n", pid, p.Comm, p.PPID, p.Start)
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := Root
	Root = root
	t.Cleanup(func() { Root = old })
}

// A Claude Code hook: trailboss ← sh ← claude ← bash (the pane) ← tmux: server.
var claudeTree = map[int]Proc{
	500: {Comm: "trailboss", PPID: 400, Start: 50},
	400: {Comm: "sh", PPID: 300, Start: 40},
	300: {Comm: "claude", PPID: 200, Start: 30},
	200: {Comm: "bash", PPID: 100, Start: 20},
	100: {Comm: "tmux: server", PPID: 1, Start: 10},
	700: {Comm: "sleep", PPID: 1, Start: 70},
}

func TestOfFindsThePaneAndTheAgent(t *testing.T) {
	fakeProc(t, claudeTree)
	want := adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 300, AgentStart: 30}
	if got := Of(500, 100); got != want {
		t.Fatalf("Of(hook) = %+v, want %+v", got, want)
	}
	// TMUX names a process that is no tmux server, or the hook is not under it: nothing is
	// kept, for TMUX is the hook's word, not proof.
	for _, c := range []struct{ hook, tmux int }{{500, 200}, {700, 100}, {500, 1}, {500, 0}, {999, 100}} {
		if got := Of(c.hook, c.tmux); got != (adapter.Program{}) {
			t.Errorf("Of(%d, %d) = %+v, want nothing known", c.hook, c.tmux, got)
		}
	}
}

func TestAgentGoneAndWithin(t *testing.T) {
	fakeProc(t, claudeTree)
	prog := adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 300, AgentStart: 30}
	if why := AgentGone(prog); why != "" {
		t.Errorf("a running agent is gone: %s", why)
	}
	if why := AgentGone(adapter.Program{AgentPID: 300, AgentStart: 31}); why == "" {
		t.Error("a pid now of another program (another start time) is taken for the agent")
	}
	if why := AgentGone(adapter.Program{AgentPID: 321, AgentStart: 30}); why != "its process ended" {
		t.Errorf("an ended agent: %q", why)
	}
	if AgentGone(adapter.Program{}) != "" {
		t.Error("an unknown agent is said to be gone")
	}
	if !Within(300, 200) || !Within(200, 200) || Within(700, 200) {
		t.Error("Within is wrong about the pane's descendants")
	}
}

func TestParseStatTakesANameWithParentheses(t *testing.T) {
	p, err := parseStat(42, []byte("42 (a) b (c) S 7 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0\n"))
	if err != nil || p.Comm != "a) b (c" || p.PPID != 7 || p.Start != 99 {
		t.Fatalf("parseStat = %+v, %v", p, err)
	}
	if _, err := parseStat(42, []byte("42 no name")); err == nil {
		t.Fatal("a stat line without a name was taken")
	}
}

func TestTmuxServerOf(t *testing.T) {
	fakeProc(t, map[int]Proc{
		800: {Comm: "trailboss", PPID: 810, Start: 80}, // a popup: sh -c under the server
		810: {Comm: "sh", PPID: 100, Start: 79},
		100: {Comm: "tmux: server", PPID: 1, Start: 10},
		900: {Comm: "trailboss", PPID: 1, Start: 90}, // outside tmux
	})
	for pid, want := range map[int]int{800: 100, 900: 0, 100: 0, 999: 0} {
		if got := TmuxServerOf(pid); got != want {
			t.Errorf("TmuxServerOf(%d) = %d, want %d", pid, got, want)
		}
	}
}
