package sshtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRigIsASecondMachineAndLeavesNothingBehind: through the alias, a command runs as the
// remote user, in its home, with its PATH and XDG folders (what `ssh host trailboss …` finds);
// BatchMode with the pre-seeded host key asks nothing; and once the test is over the user,
// its processes, sshd and the folder are gone.
func TestRigIsASecondMachineAndLeavesNothingBehind(t *testing.T) {
	var h *Host
	var sshd int
	t.Run("rig", func(t *testing.T) {
		h = Start(t, Options{Programs: map[string]string{"hello": "/bin/echo"}})
		t.Logf("rig ready in %v", h.Setup)
		sshd = h.SSHDPID()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := h.Command(ctx, `id -u; pwd; echo "$PATH"; echo "$XDG_STATE_HOME"; hello from the remote side`)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ssh: %v (%s)\n%s", err, stderrOf(err), h.SSHDLog())
		}
		want := strconv.Itoa(h.UID) + "\n" + h.Home + "\n" + h.Bin + ":/usr/local/bin:/usr/bin:/bin\n" +
			filepath.Join(h.Home, ".local/state") + "\nfrom the remote side\n"
		if string(out) != want {
			t.Fatalf("the remote session printed\n%q\nwant\n%q", out, want)
		}
		// The host key was checked, not learnt: known_hosts is as the rig wrote it.
		if b, _ := os.ReadFile(filepath.Join(h.Dir, "client", "known_hosts")); strings.Count(string(b), "\n") != 1 {
			t.Fatalf("known_hosts changed:\n%s", b)
		}
	})
	if h == nil || h.User == "" {
		t.Skip("the rig did not start")
	}
	if _, err := user.Lookup(h.User); err == nil {
		t.Errorf("user %s is still there after the test", h.User)
	}
	if alive(sshd) {
		t.Errorf("sshd (pid %d) still runs after the test", sshd)
	}
	if len(processesOfUID(h.UID)) > 0 {
		t.Errorf("processes of uid %d still run after the test", h.UID)
	}
	if _, err := os.Stat(h.Dir); err == nil {
		t.Errorf("the rig's folder %s is still there", h.Dir)
	}
}

// stderrOf returns what a command that failed said on standard error.
func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}
