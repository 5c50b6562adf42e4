package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestHotBinaryLinksNothingHeavy: trailboss-hot, built as make build builds it
// (CGO_ENABLED=0), links no cgo, no SQLite, no TUI and no regexp package. Each would cost
// every hook and key press at start: a dynamic cgo binary's loading, Bubble Tea's and the
// clipboard's package init, and a package-level regexp compiled at init (match by hand on
// this path, as hooks.ShellWord and config.Load do). Nor net/http, crypto/tls or
// crypto/x509: their init was half of its start (package daemon/client/hot speaks HTTP
// without them).
func TestHotBinaryLinksNothingHeavy(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	for _, p := range deps {
		for _, heavy := range []string{"runtime/cgo", "sqlite", "bubbletea", "bubbles", "lipgloss", "termenv",
			"clipboard", "fsnotify", "regexp", "trailboss/daemon/store", "trailboss/popup"} {
			if strings.Contains(p, heavy) {
				t.Errorf("trailboss-hot links %s", p)
			}
		}
		switch p {
		case "net/http", "crypto/tls", "crypto/x509", "github.com/trailboss/trailboss/daemon/client":
			t.Errorf("trailboss-hot links %s", p)
		}
		if p == "github.com/trailboss/trailboss/daemon" {
			t.Errorf("trailboss-hot links the daemon package (and with it SQLite)")
		}
	}
}
