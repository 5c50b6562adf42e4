package tmuxtest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/adapter"
)

// PaneProgram returns the identity of pane's first process as the asker of a prompt: its
// tmux server, the pane's process, and that same process as the agent, with its start
// time. A daemon records who asked for every prompt and types into no pane whose asker it
// does not know; a test that makes a prompt by hand for a pane of NewReaderPane (whose
// program is its first process) gives it this.
func (e *Env) PaneProgram(t testing.TB, pane string) adapter.Program {
	t.Helper()
	f := strings.Fields(e.Tmux(t, "display-message", "-p", "-t", pane, "#{pid} #{pane_pid}"))
	if len(f) != 2 {
		t.Fatalf("pane %s: no server and pane pid: %q", pane, f)
	}
	server, err1 := strconv.Atoi(f[0])
	panePID, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		t.Fatalf("pane %s: pids %q", pane, f)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", panePID))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command's closing parenthesis: starttime is the 20th of them.
	rest := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	start, err := strconv.ParseUint(rest[19], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return adapter.Program{TmuxPID: server, PanePID: panePID, AgentPID: panePID, AgentStart: start}
}
