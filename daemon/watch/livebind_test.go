package watch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/lineage"
	"github.com/trailboss/trailboss/daemon/watch"
	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// panePID returns the pid of pane's first process.
func panePID(t *testing.T, env *tmuxtest.Env, pane string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(env.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// childOf waits for process pid's first child and returns it.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		if f := strings.Fields(string(b)); len(f) > 0 {
			child, err := strconv.Atoi(f[0])
			if err == nil {
				return child
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d started no child", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stateFile writes a 2.1.332 state file for pid naming session, in dir, and returns its path.
func stateFile(t *testing.T, dir string, pid int, start uint64, session, tmux, status string) string {
	t.Helper()
	now := time.Now().UnixMilli()
	tmuxField := ""
	if tmux != "" {
		tmuxField = fmt.Sprintf(`"tmux":%q,`, tmux)
	}
	body := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/w","procStart":"%d","version":"2.1.332","kind":"interactive",%s"status":%q,"updatedAt":%d,"statusUpdatedAt":%d}`,
		pid, session, start, tmuxField, status, now, now)
	path := filepath.Join(dir, fmt.Sprintf("%d-%s.json", pid, session))
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStateFileBindsOnlyAVerifiedPane: a session is bound to a pane from its state file
// only where its process really runs, in a tmux server the daemon talks to. A file that
// names another program's pane, a process outside tmux, a reused pid, a session a live
// program already holds, another user's file, garbage: nothing is bound wrongly, and the
// daemon goes on.
func TestStateFileBindsOnlyAVerifiedPane(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	l := &watch.LiveStates{Engine: e, Harness: adapter.HarnessClaude, Source: claudeLive, Transcripts: claudeTranscripts, Log: discard, Servers: func() []string { return []string{env.Socket} },
		Tmux: func(socket string) *tmuxctl.Server {
			return &tmuxctl.Server{Bin: env.Server.Bin, Socket: socket, Env: env.Environ}
		}}
	dir := t.TempDir()
	other := env.NewPane(t, "main", "sleep", "300")          // another program
	agent := env.NewPane(t, "main", "sleep", "301")          // plays Claude Code, as the pane's own process
	nested := env.NewPane(t, "main", "sh -c 'sleep 302; :'") // plays Claude Code under the pane's shell
	otherPID, agentPID := panePID(t, env, other), panePID(t, env, agent)
	nestedPID := childOf(t, panePID(t, env, nested))
	start := func(pid int) uint64 {
		p, err := lineage.Read(pid)
		if err != nil {
			t.Fatal(err)
		}
		return p.Start
	}
	ctx := context.Background()
	read := func(path string) { t.Helper(); l.ReadNow(ctx, path) }
	bound := func(id string) (string, bool) {
		s, ok := e.Session(id)
		return s.Pane, ok
	}

	// The file names the other program's pane: its process runs in its own, which is taken.
	read(stateFile(t, dir, agentPID, start(agentPID), "liar", "main:@1."+other, "idle"))
	if pane, ok := bound("liar"); !ok || pane != agent {
		t.Fatalf("a file naming %s for a process in %s: bound to %q (%v)", other, agent, pane, ok)
	}
	if s, _ := e.Session("liar"); s.Program.AgentPID != agentPID || s.Program.PanePID != agentPID || s.Program.TmuxPID == 0 || s.TmuxSocket != env.Socket {
		t.Fatalf("the program of a bound session: %+v", s)
	}
	// No tmux field (started with env -u TMUX_PANE): found from the process.
	read(stateFile(t, dir, nestedPID, start(nestedPID), "nested", "", "idle"))
	if pane, ok := bound("nested"); !ok || pane != nested {
		t.Fatalf("a process under a pane's shell: bound to %q (%v), want %s", pane, ok, nested)
	}
	// A process in no pane; a pid whose start is not the file's (reused): nothing.
	read(stateFile(t, dir, os.Getpid(), start(os.Getpid()), "outside", "main:@1."+agent, "idle"))
	read(stateFile(t, dir, agentPID, start(agentPID)+1, "reused", "main:@1."+agent, "idle"))
	for _, id := range []string{"outside", "reused"} {
		if pane, ok := bound(id); ok {
			t.Fatalf("%s: bound to %q", id, pane)
		}
	}
	// A session a hook bound to the other pane, whose program still runs there: a file
	// from another process claiming it does not move it. Once that program is gone, it does.
	hooked := event("held", adapter.KindStart, time.Now().Add(-time.Second), other)
	hooked.TmuxSocket, hooked.Program = env.Socket, adapter.Program{AgentPID: otherPID, AgentStart: start(otherPID)}
	ingest(t, e, hooked)
	read(stateFile(t, dir, agentPID, start(agentPID), "held", "main:@1."+agent, "idle"))
	if pane, _ := bound("held"); pane != other {
		t.Fatalf("a session held by a live program was moved to %q", pane)
	}
	gone := event("moved", adapter.KindStart, time.Now().Add(-time.Second), other)
	gone.TmuxSocket, gone.Program = env.Socket, adapter.Program{AgentPID: otherPID, AgentStart: start(otherPID) + 7}
	ingest(t, e, gone)
	read(stateFile(t, dir, agentPID, start(agentPID), "moved", "main:@1."+agent, "idle"))
	if pane, _ := bound("moved"); pane != agent {
		t.Fatalf("a session whose program is gone was not bound to its process's pane: %q", pane)
	}
	// Garbage, a huge file, a FIFO, another user's file: nothing, and the loop goes on.
	for name, body := range map[string]string{"garbage.json": "{\x00not json", "huge.json": `{"pid":1,"x":"` + strings.Repeat("a", 1<<20) + `"}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		read(filepath.Join(dir, name))
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { read(fifo); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO named like a state file hangs")
	}
	if os.Getuid() == 0 {
		theirs := stateFile(t, dir, agentPID, start(agentPID), "theirs", "main:@1."+agent, "waiting")
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		read(theirs)
		if pane, ok := bound("theirs"); ok {
			t.Fatalf("another user's state file bound a session to %q", pane)
		}
	}
	read(stateFile(t, dir, agentPID, start(agentPID), "after", "", "idle"))
	if pane, _ := bound("after"); pane != agent {
		t.Fatalf("after the bad files, a good one was not taken: %q", pane)
	}
}
