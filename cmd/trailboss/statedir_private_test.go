package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// openFiles returns what under dir a group or other user could read: every path with a
// group or other bit, the directory itself included.
func openFiles(t *testing.T, dir string) []string {
	t.Helper()
	var open []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			open = append(open, path+" "+fi.Mode().Perm().String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return open
}

// TestDaemonMakesAnOpenStateDirPrivate: a state directory left at 0755 with a 0644
// state.db and WAL (what an older Trail Boss, or a copy, leaves) is private once the real
// daemon has started on it — the directory 0700, no file readable by group or other — and
// the daemon says so once in its log. A hook run with umask 022 spools privately too.
func TestDaemonMakesAnOpenStateDirPrivate(t *testing.T) {
	old := syscall.Umask(0o022) // as a login shell has it; the daemon must not rely on it
	t.Cleanup(func() { syscall.Umask(old) })
	stateDir := t.TempDir()
	d := startDaemonIn(t, stateDir)
	d.post(t, stopPayload("private-1", nil), nil)
	if open := openFiles(t, stateDir); len(open) > 0 {
		t.Fatalf("a daemon started with umask 022 made files others can read: %v", open)
	}
	_ = d.cmd.Process.Signal(syscall.SIGINT)
	_ = d.cmd.Wait()

	for _, p := range []string{stateDir, filepath.Join(stateDir, "state.db"), filepath.Join(stateDir, "token")} {
		mode := os.FileMode(0o644)
		if p == stateDir {
			mode = 0o755
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(stateDir, "state.db-wal"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(openFiles(t, stateDir)) < 3 {
		t.Fatal("the set-up did not open the state directory")
	}
	d = startDaemonIn(t, stateDir)
	if open := openFiles(t, stateDir); len(open) > 0 {
		t.Fatalf("after the daemon started, others can still read: %v", open)
	}
	if !strings.Contains(d.queue(t), `"session_id":"private-1"`) {
		t.Fatalf("the queue was lost on the way: %s", d.queue(t))
	}
	if n := strings.Count(d.log.String(), "was readable by other users; it is now private (mode 0700)"); n != 1 {
		t.Fatalf("the daemon said %d times that it made the directory private, want once; log:\n%s", n, d.log)
	}

	// A hook with the daemon down, run from a shell with umask 022.
	_ = d.cmd.Process.Signal(syscall.SIGINT)
	_ = d.cmd.Wait()
	emit := exec.Command("trailboss", "emit")
	emit.Env = append(os.Environ(), "TRAILBOSS_STATE_DIR="+stateDir, "TRAILBOSS_ADDR="+d.addr, "TMUX=", "TMUX_PANE=")
	emit.Stdin = strings.NewReader(string(stopPayload("private-2", nil)))
	if out, err := emit.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("emit: %v %q", err, out)
	}
	if entries, _ := os.ReadDir(filepath.Join(stateDir, "spool")); len(entries) != 1 {
		t.Fatalf("the event was not spooled: %v", entries)
	}
	if open := openFiles(t, stateDir); len(open) > 0 {
		t.Fatalf("emit made files others can read: %v", open)
	}
}

// TestDaemonRefusesAStateDirOfAnotherUser: a state directory owned by another user (or a
// symlink to one) is refused with a message that says what to do, and nothing is written
// in it.
func TestDaemonRefusesAStateDirOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root (CI runs as root); not checked here")
	}
	theirs := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "state")
	if err := os.Symlink(theirs, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{theirs, link} {
		for _, args := range [][]string{{"daemon", "--addr", "127.0.0.1:1", "--state-dir", dir}, {"emit"}} {
			cmd := exec.Command("trailboss", args...)
			cmd.Env = append(os.Environ(), "TRAILBOSS_STATE_DIR="+dir, "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(),
				"TRAILBOSS_ADDR=127.0.0.1:1", "TMUX=", "TMUX_PANE=")
			cmd.Stdin = strings.NewReader(string(stopPayload("theirs", nil)))
			out, err := cmd.CombinedOutput()
			if args[0] == "daemon" && (err == nil || !strings.Contains(string(out), "belongs to user id 65534, not to you (0)") ||
				!strings.Contains(string(out), "set TRAILBOSS_STATE_DIR to a directory of your own")) {
				t.Fatalf("daemon on %s: %v\n%s", dir, err, out)
			}
			if entries, _ := os.ReadDir(theirs); len(entries) > 0 {
				t.Fatalf("%s wrote into another user's directory: %v", args[0], entries)
			}
		}
	}
}
