package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// nobody is the uid (and gid) another local user's programs run as in these tests.
const nobody = 65534

// asUser is one of this test binary's commands (TestMain) running as another user.
type asUser struct {
	cmd    *exec.Cmd
	dir    string       // a folder the command may read and write: its files go there
	stderr bytes.Buffer // what it said
}

// startAsUser runs the test binary's command name as uid (and gid uid), with the arguments
// args makes of its folder, from a copy of the binary in that folder (which uid can read and
// write), and stops it when the test ends. As this process's own uid it runs as it is.
func startAsUser(t *testing.T, uid int, name string, args func(dir string) []string) *asUser {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tbuser")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	p := &asUser{dir: dir}
	p.cmd = exec.Command(bin, args(dir)...)
	p.cmd.Stderr = &p.stderr
	if uid != os.Getuid() {
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}}
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	})
	return p
}
