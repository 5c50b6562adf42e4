package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSmallBinariesLinkNothingHeavy: trailboss-hot, built as make build builds it (CGO_ENABLED=0), link no cgo, no SQLite, no TUI and no regexp package. Each
// would cost every hook, key press or prompt at start: a dynamic cgo binary's loading, Bubble
// Tea's and the clipboard's package init, and a package-level regexp compiled at init (match
// by hand on this path, as hooks.ShellWord and config.Load do). Nor net/http, crypto/tls or
// crypto/x509: their init was half of trailboss-hot's start (package daemon/client/hot speaks
// HTTP without them), nor package net at all (hot.Target.Connect dials with syscalls).
func TestSmallBinariesLinkNothingHeavy(t *testing.T) {
	heavy := []string{"runtime/cgo", "sqlite", "bubbletea", "bubbles", "lipgloss", "termenv", "clipboard", "fsnotify",
		"regexp", "trailboss/daemon/store", "trailboss/popup"}
	forbidden := []string{"net", "net/http", "crypto/tls", "crypto/x509", "github.com/trailboss/trailboss/daemon/client",
		"github.com/trailboss/trailboss/daemon"}
	for _, bin := range []struct {
		dir              string
		heavy, forbidden []string
	}{
		{".", heavy, forbidden},
	} {
		cmd := exec.Command("go", "list", "-deps", bin.dir)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", bin.dir, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s listed %d packages: %q", bin.dir, len(deps), deps)
		}
		for _, p := range deps {
			for _, h := range bin.heavy {
				if strings.Contains(p, h) {
					t.Errorf("%s links %s", deps[len(deps)-1], p)
				}
			}
			for _, f := range bin.forbidden {
				if p == f {
					t.Errorf("%s links %s", deps[len(deps)-1], p)
				}
			}
		}
	}
}
