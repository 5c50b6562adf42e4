package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/tmuxstatus"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// BenchmarkTmuxProcesses counts the tmux processes the daemon starts while 200 sessions,
// each in its own pane of a real tmux server, work and stop: each iteration, every session
// stops (Stop) and the test waits until the status options on the tmux server say 200 are
// stuck, then every one works again (UserPromptSubmit) until they say 0. The status pushes,
// liveness checks and the rest of what the daemon asks of tmux go through its control client:
// the target is no process (tmux-processes, per iteration); control-commands is what the
// control client ran instead.
func BenchmarkTmuxProcesses(b *testing.B) {
	const sessions = 200
	tm := tmuxtest.New(b)
	d := startBenchDaemon(b, tm.Environ)
	tmuxEnv := tmuxEnvValue(b, tm)
	panes := newPanes(b, tm, "agents", sessions, func(int) string { return "exec cat" })
	work := b.TempDir()
	id := func(i int) string { return fmt.Sprintf("busy-%03d", i) }
	all := func(event string, extra map[string]any) {
		d.hookAll(b, sessions, func(i int) (map[string]any, string, string) {
			return hookPayload(event, id(i), work, "", extra), panes[i], tmuxEnv
		})
	}
	stuck := func(n int) {
		want := fmt.Sprint(n)
		waitUntil(b, want+" stuck on the tmux server's status option", 30*time.Second, func() bool {
			return strings.TrimSpace(tm.Tmux(b, "show-options", "-gqv", tmuxstatus.OptionStuck)) == want
		})
	}
	stopped := map[string]any{"last_assistant_message": "Done?"}
	working := map[string]any{"prompt": "go on"}
	// Once, before counting: the control client starts with the first status push.
	all("Stop", stopped)
	stuck(sessions)
	all("UserPromptSubmit", working)
	stuck(0)

	before := d.tmuxCounts(b)
	for b.Loop() {
		all("Stop", stopped)
		stuck(sessions)
		all("UserPromptSubmit", working)
		stuck(0)
	}
	after := d.tmuxCounts(b)
	b.ReportMetric(float64(after.Processes-before.Processes)/float64(b.N), "tmux-processes")
	b.ReportMetric(float64(after.ControlCommands-before.ControlCommands)/float64(b.N), "control-commands")
	b.ReportMetric(float64(after.ControlClients-before.ControlClients), "control-starts")
}
