package telegram_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The relay sees the daemon through the interfaces of Host only: it must not import its
// parent package (nor, through it, the whole daemon).
func TestRelayDoesNotImportDaemon(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the imports with")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/trailboss/trailboss/daemon" {
			t.Fatal("daemon/telegram imports package daemon; give the relay what it needs through telegram.Host")
		}
	}
}
