package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/daemon"
)

// TestWatchHelpNamesTheProgramsFoundWithoutAsking: `trailboss watch --help` lists the
// programs whose panes the daemon finds by itself, and that list is the registry's
// (daemon.ScreenCommands), written by hand here: a harness added there must be added to
// the help too, and the help must name no program the daemon does not look for.
func TestWatchHelpNamesTheProgramsFoundWithoutAsking(t *testing.T) {
	about := strings.Join(strings.Fields(watchHelp.About), " ")
	m := regexp.MustCompile(`Panes running (.+?) are found`).FindStringSubmatch(about)
	if m == nil {
		t.Fatalf("watch's help no longer says which panes are found without asking:\n%s", watchHelp.About)
	}
	listed := map[string]bool{}
	for _, name := range regexp.MustCompile(`, | or `).Split(m[1], -1) {
		listed[name] = true
	}
	commands := daemon.ScreenCommands()
	for command := range commands {
		if !listed[command] {
			t.Errorf("the daemon finds panes running %s, but watch's help does not say so", command)
		}
	}
	for name := range listed {
		if _, ok := commands[name]; !ok {
			t.Errorf("watch's help says panes running %s are found, but the daemon does not look for them", name)
		}
	}
}
