package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mountTmpfs mounts a tmpfs of the given size at a temp dir, or skips when this process
// may not mount (not root). It is unmounted when the test ends.
func mountTmpfs(t *testing.T, size string, readOnly bool) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root (CI runs as root)")
	}
	dir := t.TempDir()
	opts := "size=" + size
	if readOnly {
		opts += ",ro"
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs as root: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestDiskFullAnswers503AndRecovers fills the state directory's disk under the running
// daemon: ingest answers 503 saying so, reads keep working, nothing acknowledged is lost,
// and once space is back the next event is stored with no restart.
func TestDiskFullAnswers503AndRecovers(t *testing.T) {
	disk := mountTmpfs(t, "4m", false)
	d := startDaemonIn(t, filepath.Join(disk, "state"))
	if code, msg := d.post(t, stopPayload("before-full", nil), nil); code != 200 {
		t.Fatalf("%d %s", code, msg)
	}
	filler := filepath.Join(disk, "filler")
	fill(t, filler)

	var code int
	var msg string
	for i := 0; i < 50 && code != 503; i++ { // SQLite may still fit a few rows in its WAL pages
		code, msg = d.post(t, stopPayload("while-full-"+strings.Repeat("x", i), map[string]any{
			"last_assistant_message": strings.Repeat("words ", 300)}), nil)
	}
	if code != 503 || !strings.Contains(msg, "no space left") {
		t.Fatalf("while full: %d %q, want 503 saying there is no space left", code, msg)
	}
	q := d.queue(t) // reads keep working
	if !strings.Contains(q, `"session_id":"before-full"`) {
		t.Fatalf("an acknowledged item is missing while the disk is full: %s", q)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "ingest to work again", 5*time.Second, func() bool {
		code, _ := d.post(t, stopPayload("after-full", nil), nil)
		return code == 200
	})
	if q := d.queue(t); !strings.Contains(q, `"session_id":"after-full"`) || !strings.Contains(q, `"session_id":"before-full"`) {
		t.Fatalf("after recovery: %s", q)
	}
}

func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, os.ErrNotExist) && !strings.Contains(err.Error(), "no space") {
				t.Fatalf("filling the disk: %v", err)
			}
			return
		}
	}
}

// TestReadOnlyStateDirAtStart: a daemon whose state directory is on a read-only disk
// refuses to start with a message that says so.
func TestReadOnlyStateDirAtStart(t *testing.T) {
	disk := mountTmpfs(t, "1m", true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "trailboss", "daemon", "--addr", "127.0.0.1:0", "--state-dir", filepath.Join(disk, "state"))
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "read-only file system") {
		t.Fatalf("daemon on a read-only disk: err=%v output=%q", err, out)
	}
}
