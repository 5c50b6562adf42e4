package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/spool"
	"github.com/trailboss/trailboss/hooks/emit"
)

// TestSpoolKeepsTheStopUnderItsCapAndDrainsFlat: with the daemon down, 1,020 PostToolUse
// events whose tool_response is a megabyte each (1,000 through the emit package, 20 through
// the real `trailboss emit`), then a Stop through the binary. The spool never holds more
// than its bounds, the Stop (the newest) is kept, and the real daemon, started on that
// spool, queues the Stop while its peak RSS (VmHWM) stays under 100 MB.
func TestSpoolKeepsTheStopUnderItsCapAndDrainsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("a gigabyte of hook payloads through the spool (about a minute on a busy machine): not in -short")
	}
	stateDir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String() // nobody listens here once closed: the daemon is down
	ln.Close()
	response := strings.Repeat("x", 1_000_000)
	payload := func(i int) []byte {
		b, _ := json.Marshal(map[string]any{"session_id": fmt.Sprintf("busy-%d", i%10), "hook_event_name": "PostToolUse",
			"cwd": "/src", "transcript_path": "", "tool_name": "Bash", "tool_input": map[string]any{"command": "cat big.log"},
			"tool_response": map[string]any{"stdout": response}})
		return b
	}
	noEnv := func(string) string { return "" }
	peakBytes, peakFiles := int64(0), 0
	checkBounds := func(after string) {
		t.Helper()
		entries, _ := os.ReadDir(filepath.Join(stateDir, spool.Dir))
		var size int64
		for _, e := range entries {
			if fi, err := e.Info(); err == nil {
				size += fi.Size()
			}
		}
		peakBytes, peakFiles = max(peakBytes, size), max(peakFiles, len(entries))
		if size > spool.MaxBytes || len(entries) > spool.MaxFiles {
			t.Fatalf("after %s the spool holds %d files, %d bytes: over its bounds (%d, %d)",
				after, len(entries), size, spool.MaxFiles, spool.MaxBytes)
		}
	}
	hookEnv := append(os.Environ(), "TRAILBOSS_STATE_DIR="+stateDir, "TRAILBOSS_ADDR="+down, "TMUX=", "TMUX_PANE=",
		"HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	runEmit := func(body []byte) {
		t.Helper()
		cmd := exec.Command("trailboss", "emit")
		cmd.Env, cmd.Stdin = hookEnv, bytes.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("trailboss emit: %v %q", err, out)
		}
	}
	for i := range 1000 {
		e := &emit.Emitter{Addr: down, StateDir: stateDir, Getenv: noEnv, Stdin: bytes.NewReader(payload(i)),
			Timeout: emit.EmitTimeout, Now: time.Now}
		if err := e.Emit(context.Background()); err == nil || !strings.Contains(err.Error(), emit.SpooledNote) {
			t.Fatalf("event %d: %v, want it spooled", i, err)
		}
		if i%50 == 0 {
			checkBounds("event " + strconv.Itoa(i))
		}
	}
	for i := 1000; i < 1020; i++ {
		runEmit(payload(i))
		checkBounds("event " + strconv.Itoa(i) + " (the binary)")
	}
	runEmit(stopPayload("spool-stop", map[string]any{"last_assistant_message": "the one that matters"}))
	checkBounds("the Stop")
	if peakFiles < spool.MaxFiles {
		t.Fatalf("the spool never held its %d events (%d files at most): payloads not slimmed to what the adapter reads, or dropped too soon",
			spool.MaxFiles, peakFiles)
	}
	t.Logf("spool at most %d files, %.1f MiB (bounds %d files, %d MiB)", peakFiles, float64(peakBytes)/(1<<20),
		spool.MaxFiles, spool.MaxBytes>>20)

	d := startDaemonIn(t, stateDir)
	waitUntil(t, "the spool to drain", 120*time.Second, func() bool {
		paths, err := spool.List(stateDir)
		return err == nil && len(paths) == 0
	})
	if q := d.queue(t); !strings.Contains(q, `"session_id":"spool-stop"`) || !strings.Contains(q, "the one that matters") {
		t.Fatalf("the Stop is not queued after the drain: %s\ndaemon log:\n%s", q, d.log)
	}
	hwm := statusKB(t, d.cmd.Process.Pid, "VmHWM:")
	t.Logf("daemon peak RSS (VmHWM) through the drain: %d KB", hwm)
	if hwm > 100_000 {
		t.Fatalf("daemon peak RSS %d KB through the drain, want under 100 MB", hwm)
	}
}
