package tmuxctl_test

import (
	"slices"
	"testing"

	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// A pane's foreground command and what it started, as the screen adapter looks one level
// below an interpreter: here a shell (the pane's current command) that runs sleep.
func TestForegroundOfAPane(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	pane := e.NewPane(t, "main", "sh", "-c", "sleep 1000; true")
	var st tmuxctl.PaneProcess
	e.WaitFor(t, "the pane's sleep", waitLong, func() bool {
		states, err := e.Server.PaneProcesses(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if s.ID == pane {
				st = s
			}
		}
		pgid, err := tmuxctl.ForegroundGroup(st.PID)
		if err != nil || pgid == 0 {
			return false
		}
		names, err := tmuxctl.ChildCommands(pgid)
		return err == nil && slices.Contains(names, "sleep")
	})
	pgid, _ := tmuxctl.ForegroundGroup(st.PID)
	if st.Command != "sh" || pgid != st.PID {
		t.Errorf("pane %+v: foreground group %d, want the pane's sh %d", st, pgid, st.PID)
	}
}
