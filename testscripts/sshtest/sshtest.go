// Package sshtest gives a test a second machine reached through real OpenSSH, as the operator
// reaches theirs (issue 30): a Unix user of its own with a home in a temporary folder, an sshd
// of its own on a free loopback port with a host key and a client key made for the test, and
// an ssh_config whose alias (Host remote1) reaches it with the host key pre-seeded,
// StrictHostKeyChecking and BatchMode, so that a test runs `ssh -F h.Config remote1 …`.
// Nothing of the machine's own ssh setup is read or changed: not /etc/ssh, not root's ~/.ssh,
// not a running sshd.
//
// It needs root (useradd, sshd) and OpenSSH's server: without them a test is skipped saying
// why, unless CI=true or TRAILBOSS_REQUIRE_SSH=1, when it fails instead (.ci/run sets it, so
// that a missing sshd cannot pass as green).
//
// The user is removed when the test ends, with every process it runs. A run killed before its
// cleanup leaves it behind; the next rig removes such users (marked in their comment field
// with the pid that made them, which is gone) before it makes its own.
package sshtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/procnet"
)

// SSHD is the OpenSSH server the rig runs.
const SSHD = "/usr/sbin/sshd"

// userMark opens the comment field of every user the rig makes; the pid that made it follows.
const userMark = "trailboss sshtest pid="

// setupTimeout bounds each step of the set-up that waits (sshd listening, a lock on
// /etc/passwd), on a machine whose two cores other tests share.
const setupTimeout = 20 * time.Second

// Options choose how the remote machine is set up.
type Options struct {
	// Alias is the Host of the ssh_config; "remote1" when empty.
	Alias string
	// StreamLocalForwarding is sshd's AllowStreamLocalForwarding: whether `ssh -L` may forward
	// a unix socket. Where it may not, the hub runs `trailboss bridge` instead.
	StreamLocalForwarding bool
	// Programs are copied into a folder first on the remote user's PATH (Host.Bin): the
	// program's name there → the file to copy, e.g. "trailboss" → the binary to run as it.
	Programs map[string]string
	// Env is more of the user's environment (KEY=value), in its ssh sessions and AsUser's
	// commands alike: what sets that machine apart, such as a test's clock skew.
	Env []string
}

// Host is the remote machine: a user reached through sshd on a loopback port.
type Host struct {
	Alias  string // the ssh_config's Host: ssh -F Config Alias …
	Config string // the ssh_config
	Port   int    // sshd's, on 127.0.0.1
	User   string
	UID    int
	GID    int
	Home   string // the user's home, in Dir
	Bin    string // Options.Programs, first on the user's PATH
	Dir    string // the rig's folder: the home, sshd's and the client's files
	// Setup is how long the rig took to be ready: the user, the keys, sshd listening.
	Setup time.Duration

	sshd    *exec.Cmd
	sshdLog string
	hostKey string   // sshd's, kept for RestartSSHD
	stream  bool     // Options.StreamLocalForwarding
	env     []string // the user's environment, as sshd gives it and AsUser too
}

// Require skips t, saying why, when this machine cannot run the rig; under CI=true or
// TRAILBOSS_REQUIRE_SSH=1 it fails t instead.
func Require(t testing.TB) {
	t.Helper()
	why := ""
	switch {
	case os.Geteuid() != 0:
		why = "the several-machine tests need root, to add a Unix user and run sshd"
	default:
		if _, err := os.Stat(SSHD); err != nil {
			why = "OpenSSH's server is not installed (" + SSHD + "): apt-get install openssh-server"
		}
		for _, tool := range []string{"ssh", "ssh-keygen", "useradd", "userdel"} {
			if _, err := exec.LookPath(tool); err != nil && why == "" {
				why = tool + " is not installed: apt-get install openssh-client passwd"
			}
		}
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" || os.Getenv("TRAILBOSS_REQUIRE_SSH") == "1" {
		t.Fatalf("%s (CI=true or TRAILBOSS_REQUIRE_SSH=1: these tests must run here)", why)
	}
	t.Skip(why)
}

// Start makes the remote machine, and takes it all down when t ends: sshd, every process of
// the user, the user, the folder. It skips or fails t as Require does.
func Start(t testing.TB, o Options) *Host {
	t.Helper()
	Require(t)
	began := time.Now()
	if o.Alias == "" {
		o.Alias = "remote1"
	}
	dir, err := os.MkdirTemp("", "tbssh")
	if err != nil {
		t.Fatal(err)
	}
	h := &Host{Alias: o.Alias, Dir: dir, Home: filepath.Join(dir, "home"), Bin: filepath.Join(dir, "bin")}
	t.Cleanup(func() { h.takeDown(t) })
	// The user must reach its home and programs through the folder: others may enter it.
	must(t, os.Chmod(dir, 0o755))
	if err := traversable(dir); err != nil {
		t.Fatalf("the remote user could not reach its home: %v (set TMPDIR to a folder others may enter, such as /tmp)", err)
	}
	removeStaleUsers(t)
	h.addUser(t)
	h.installPrograms(t, o.Programs)
	h.env = append(h.userEnv(), o.Env...)

	clientKey := filepath.Join(dir, "client", "id_ed25519")
	hostKey := filepath.Join(dir, "sshd", "host_ed25519")
	must(t, os.MkdirAll(filepath.Dir(clientKey), 0o700))
	must(t, os.MkdirAll(filepath.Dir(hostKey), 0o700))
	keygen(t, clientKey)
	keygen(t, hostKey)
	h.authorize(t, clientKey+".pub")

	h.hostKey, h.stream = hostKey, o.StreamLocalForwarding
	h.startSSHD(t, 0)
	h.writeClientConfig(t, clientKey, hostKey+".pub")
	h.Setup = time.Since(began)
	return h
}

// must fails t on err.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// traversable returns an error naming the first folder from / down to dir that others may
// not enter.
func traversable(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("%s is mode %v", d, fi.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// run runs a set-up command, failing t with its output when it fails.
func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// keygen makes an ed25519 key pair at path and path.pub, with no passphrase.
func keygen(t testing.TB, path string) {
	t.Helper()
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "trailboss sshtest", "-f", path)
}

// addUser makes the remote user: a name of its own, its home in the rig's folder, /bin/sh,
// and a password field of "*" (no password, but not locked: sshd without PAM refuses a
// locked account even its keys).
func (h *Host) addUser(t testing.TB) {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	h.User = "tbssh" + hex.EncodeToString(b[:])
	must(t, os.Mkdir(h.Home, 0o700))
	args := []string{"-M", "-d", h.Home, "-s", "/bin/sh", "-p", "*", "-U",
		"-c", userMark + strconv.Itoa(os.Getpid()), h.User}
	retryLocked(t, "useradd", args...)
	u, err := user.Lookup(h.User)
	if err != nil {
		t.Fatalf("look up the user just made: %v", err)
	}
	h.UID, _ = strconv.Atoi(u.Uid)
	h.GID, _ = strconv.Atoi(u.Gid)
	for _, d := range []string{"", ".ssh", ".config", ".local/state", ".local/share", ".cache", "run", "tmp", "tmux"} {
		p := filepath.Join(h.Home, d)
		must(t, os.MkdirAll(p, 0o700))
		must(t, os.Chown(p, h.UID, h.GID))
	}
	must(t, os.Chown(filepath.Join(h.Home, ".local"), h.UID, h.GID))
}

// retryLocked runs useradd or userdel, again while another one (another test, another
// engineer's run) holds /etc/passwd's lock.
func retryLocked(t testing.TB, name string, args ...string) {
	t.Helper()
	deadline := time.Now().Add(setupTimeout)
	for {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err == nil {
			return
		}
		if !bytes.Contains(out, []byte("lock")) || time.Now().After(deadline) {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// removeStaleUsers removes the users an earlier rig made whose test process is gone (it was
// killed before its cleanup), with their processes.
func removeStaleUsers(t testing.TB) {
	t.Helper()
	f, err := os.Open("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 5 || !strings.HasPrefix(fields[4], userMark) {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimPrefix(fields[4], userMark))
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) == nil {
			continue // its test still runs
		}
		uid, err := strconv.Atoi(fields[2])
		if err != nil || uid == 0 {
			continue
		}
		killAll(processesOfUID(uid))
		t.Logf("removing user %s, left behind by an earlier run (pid %d)", fields[0], pid)
		retryLocked(t, "userdel", fields[0])
	}
}

// installPrograms copies programs into h.Bin, readable and runnable by the user.
func (h *Host) installPrograms(t testing.TB, programs map[string]string) {
	t.Helper()
	must(t, os.Mkdir(h.Bin, 0o755))
	for name, src := range programs {
		in, err := os.Open(src)
		if err != nil {
			t.Fatalf("program %s: %v", name, err)
		}
		out, err := os.OpenFile(filepath.Join(h.Bin, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
		if err == nil {
			_, err = io.Copy(out, in)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		in.Close()
		if err != nil {
			t.Fatalf("copy program %s: %v", name, err)
		}
	}
}

// userEnv returns the user's environment: its home, its own XDG folders, tmux and temporary
// folders, and h.Bin first on PATH. sshd sets it for every session (SetEnv); AsUser too.
func (h *Host) userEnv() []string {
	return []string{
		"HOME=" + h.Home,
		"USER=" + h.User,
		"LOGNAME=" + h.User,
		"SHELL=/bin/sh",
		"PATH=" + h.Bin + ":/usr/local/bin:/usr/bin:/bin",
		"XDG_CONFIG_HOME=" + filepath.Join(h.Home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(h.Home, ".local/state"),
		"XDG_DATA_HOME=" + filepath.Join(h.Home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(h.Home, ".cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(h.Home, "run"),
		"TMUX_TMPDIR=" + filepath.Join(h.Home, "tmux"),
		"TMPDIR=" + filepath.Join(h.Home, "tmp"),
		"NO_COLOR=1",
	}
}

// sessionEnv returns what sshd's SetEnv adds to the environment it makes for a session:
// the user's environment but what sshd sets itself from the password file.
func (h *Host) sessionEnv() []string {
	var out []string
	for _, kv := range h.env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "USER", "LOGNAME", "SHELL":
		default:
			out = append(out, kv)
		}
	}
	return out
}

// StateDir is where the user's Trail Boss keeps its state and socket: the default, from
// XDG_STATE_HOME, which its environment sets.
func (h *Host) StateDir() string { return filepath.Join(h.Home, ".local", "state", "trailboss") }

// authorize lets the client key in: ~/.ssh/authorized_keys, the user's, with the modes
// StrictModes asks for.
func (h *Host) authorize(t testing.TB, pub string) {
	t.Helper()
	key, err := os.ReadFile(pub)
	must(t, err)
	p := filepath.Join(h.Home, ".ssh", "authorized_keys")
	must(t, os.WriteFile(p, key, 0o600))
	must(t, os.Chown(p, h.UID, h.GID))
}

// StopSSHD stops sshd and every connection it serves, as a machine that went away: its
// users' own processes (a daemon started with AsUser) go on. RestartSSHD brings it back.
func (h *Host) StopSSHD(t testing.TB) {
	t.Helper()
	killAll(append(descendants(h.sshd.Process.Pid), h.sshd.Process.Pid))
}

// RestartSSHD starts sshd again on its port, and returns once it answers there.
func (h *Host) RestartSSHD(t testing.TB) {
	t.Helper()
	h.startSSHD(t, h.Port)
}

// startSSHD writes sshd_config and starts sshd on port (0: a free loopback port, another
// one when the one found free was taken meanwhile), and returns once it answers there.
func (h *Host) startSSHD(t testing.TB, port int) {
	t.Helper()
	// sshd's privilege separation needs its folder, which the package makes at boot.
	must(t, os.MkdirAll("/run/sshd", 0o755))
	for attempt := 0; ; attempt++ {
		h.Port = port
		if port == 0 {
			h.Port = freePort(t)
		}
		cfg := filepath.Join(h.Dir, "sshd", "sshd_config")
		must(t, os.WriteFile(cfg, []byte(h.sshdConfig(h.hostKey, h.stream)), 0o600))
		h.sshdLog = filepath.Join(h.Dir, "sshd", "sshd.log")
		log, err := os.OpenFile(h.sshdLog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		must(t, err)
		cmd := exec.Command(SSHD, "-D", "-e", "-f", cfg)
		cmd.Stdout, cmd.Stderr = log, log
		err = cmd.Start()
		log.Close()
		if err != nil {
			t.Fatalf("start sshd: %v", err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		h.sshd = cmd
		err = waitBanner(h.Port, exited)
		if err == nil {
			return
		}
		out, _ := os.ReadFile(h.sshdLog)
		if attempt < 3 && bytes.Contains(out, []byte("Address already in use")) {
			if port != 0 {
				time.Sleep(100 * time.Millisecond) // the last sshd's socket is still going
			}
			continue // another test took the port between freePort and sshd's bind
		}
		t.Fatalf("sshd on 127.0.0.1:%d: %v\nits log:\n%s", h.Port, err, out)
	}
}

// sshdConfig returns the server's configuration: loopback only, keys only, this user only,
// the test's own host key, authorized keys and pid file, and no PAM (which would read the
// machine's own login rules).
func (h *Host) sshdConfig(hostKey string, streamLocal bool) string {
	yesNo := map[bool]string{true: "yes", false: "no"}
	return strings.Join([]string{
		"ListenAddress 127.0.0.1",
		"Port " + strconv.Itoa(h.Port),
		"HostKey " + hostKey,
		"PidFile " + filepath.Join(h.Dir, "sshd", "sshd.pid"),
		"AuthorizedKeysFile " + filepath.Join(h.Home, ".ssh", "authorized_keys"),
		"AllowUsers " + h.User,
		"StrictModes yes",
		"UsePAM no",
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin no",
		"AllowStreamLocalForwarding " + yesNo[streamLocal],
		// OpenSSH checks `ssh -L` of a unix socket against AllowTcpForwarding's local
		// permission too: "no" refuses it whatever AllowStreamLocalForwarding says. "local"
		// lets sshd connect out for the client, and still listens nowhere for it (-R).
		"AllowTcpForwarding " + map[bool]string{true: "local", false: "no"}[streamLocal],
		"AllowAgentForwarding no",
		"X11Forwarding no",
		"PermitTunnel no",
		"GatewayPorts no",
		"PrintMotd no",
		"LogLevel VERBOSE",
		"SetEnv " + strings.Join(h.sessionEnv(), " "),
		"",
	}, "\n")
}

// freePort returns a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitBanner returns nil once an SSH server answers at port with its banner, an error when
// sshd exited first or setupTimeout passed.
func waitBanner(port int, exited <-chan struct{}) error {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(setupTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("sshd exited")
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "SSH-2.0-") {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no SSH banner within %v", setupTimeout)
}

// writeClientConfig writes the ssh_config of the alias and its known_hosts, which holds the
// host key already: StrictHostKeyChecking yes, nothing learnt, nothing asked.
func (h *Host) writeClientConfig(t testing.TB, clientKey, hostPub string) {
	t.Helper()
	pub, err := os.ReadFile(hostPub)
	must(t, err)
	f := strings.Fields(string(pub))
	knownHosts := filepath.Join(h.Dir, "client", "known_hosts")
	line := fmt.Sprintf("[127.0.0.1]:%d %s %s\n", h.Port, f[0], f[1])
	must(t, os.WriteFile(knownHosts, []byte(line), 0o600))
	h.Config = filepath.Join(h.Dir, "client", "ssh_config")
	cfg := strings.Join([]string{
		"Host " + h.Alias,
		"  HostName 127.0.0.1",
		"  Port " + strconv.Itoa(h.Port),
		"  User " + h.User,
		"  IdentityFile " + clientKey,
		"  IdentitiesOnly yes",
		"  IdentityAgent none",
		"  UserKnownHostsFile " + knownHosts,
		"  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes",
		"  UpdateHostKeys no",
		"  BatchMode yes",
		"  ConnectTimeout 10",
		"  LogLevel ERROR",
		"",
	}, "\n")
	must(t, os.WriteFile(h.Config, []byte(cfg), 0o600))
}

// SSHArgs returns ssh's arguments to run args on the host (none: a session), options first:
// ssh -F Config [options…] Alias [args…]. Split options from args with "--".
func (h *Host) SSHArgs(args ...string) []string {
	opts, rest := []string(nil), args
	if i := slices.Index(args, "--"); i >= 0 {
		opts, rest = args[:i], args[i+1:]
	}
	return slices.Concat([]string{"-F", h.Config}, opts, []string{h.Alias}, rest)
}

// Command returns `ssh -F Config [options…] Alias [args…]` (args as SSHArgs takes them), run
// by the test's own user: the operator.
func (h *Host) Command(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ssh", h.SSHArgs(args...)...)
}

// AsUser returns a command run directly as the remote user (not through ssh), with its
// environment and in its home: a program of Host.Bin by its name, or any path.
func (h *Host) AsUser(ctx context.Context, name string, args ...string) *exec.Cmd {
	if !strings.Contains(name, "/") {
		if p := filepath.Join(h.Bin, name); fileExists(p) {
			name = p
		}
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = slices.Clone(h.env)
	cmd.Dir = h.Home
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: uint32(h.UID), Gid: uint32(h.GID), Groups: []uint32{}},
		Setsid:     true,
	}
	return cmd
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// SSHDPID is the pid of the listening sshd.
func (h *Host) SSHDPID() int { return h.sshd.Process.Pid }

// SSHDLog returns what sshd logged so far (LogLevel VERBOSE): whom it let in, what it refused.
func (h *Host) SSHDLog() string {
	b, _ := os.ReadFile(h.sshdLog)
	return string(b)
}

// Processes returns the pids of the remote side: sshd, the processes it forked for each
// connection, and every process of the user.
func (h *Host) Processes() []int {
	pids := []int{}
	if h.sshd != nil && h.sshd.Process != nil {
		pids = append(descendants(h.sshd.Process.Pid), h.sshd.Process.Pid)
	}
	for _, p := range processesOfUID(h.UID) {
		if !slices.Contains(pids, p) {
			pids = append(pids, p)
		}
	}
	return pids
}

// takeDown stops sshd and every process of the user, removes the user and the folder. Each
// step is tried whatever the others did; what fails is reported.
func (h *Host) takeDown(t testing.TB) {
	if t.Failed() && h.sshdLog != "" {
		t.Logf("sshd's log:\n%s", h.SSHDLog())
	}
	if h.sshd != nil && h.sshd.Process != nil {
		procs := append(descendants(h.sshd.Process.Pid), h.sshd.Process.Pid)
		killAll(procs)
	}
	if h.User != "" {
		killAll(processesOfUID(h.UID))
		out, err := exec.Command("userdel", h.User).CombinedOutput()
		for deadline := time.Now().Add(setupTimeout); err != nil && bytes.Contains(out, []byte("lock")) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			out, err = exec.Command("userdel", h.User).CombinedOutput()
		}
		if err != nil {
			t.Errorf("remove the test's user %s: %v\n%s", h.User, err, out)
		}
	}
	if err := os.RemoveAll(h.Dir); err != nil {
		t.Errorf("remove the rig's folder: %v", err)
	}
}

// killAll kills pids and waits (up to setupTimeout) until each is gone or a zombie.
func killAll(pids []int) {
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	deadline := time.Now().Add(setupTimeout)
	for _, p := range pids {
		for alive(p) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// alive says whether pid runs (a zombie does not: its parent has yet to wait for it).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// procStatus returns a process's parent pid and real uid, from /proc/PID/status.
func procStatus(pid int) (ppid, uid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, false
	}
	gotP, gotU := false, false
	for _, line := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(line, "PPid:"); found {
			ppid, _ = strconv.Atoi(strings.TrimSpace(v))
			gotP = true
		}
		if v, found := strings.CutPrefix(line, "Uid:"); found {
			if f := strings.Fields(v); len(f) > 0 {
				uid, _ = strconv.Atoi(f[0])
				gotU = true
			}
		}
	}
	return ppid, uid, gotP && gotU
}

// allPIDs returns every process's pid.
func allPIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

// processesOfUID returns the pids of every process whose real uid is uid, but zombies.
func processesOfUID(uid int) []int {
	var out []int
	for _, p := range allPIDs() {
		if _, u, ok := procStatus(p); ok && u == uid && alive(p) {
			out = append(out, p)
		}
	}
	return out
}

// descendants returns the pids of root's children, theirs, and so on.
func descendants(root int) []int {
	children := map[int][]int{}
	for _, p := range allPIDs() {
		if pp, _, ok := procStatus(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// Listener is a TCP socket listening on this host and the processes that hold it.
type Listener struct {
	procnet.Listener
	PIDs []int
}

// TCPListenersOf returns the TCP sockets in the LISTEN state (/proc/net/tcp and tcp6) that
// any of pids holds open, for a test that proves nothing of its own listens on TCP.
func TCPListenersOf(pids []int) ([]Listener, error) {
	all, err := procnet.Listeners()
	if err != nil {
		return nil, err
	}
	byInode := map[uint64]int{}
	for i, l := range all {
		byInode[l.Inode] = i
	}
	held := map[int][]int{} // index in all → pids
	for _, p := range pids {
		fds, err := os.ReadDir("/proc/" + strconv.Itoa(p) + "/fd")
		if err != nil {
			continue // gone meanwhile
		}
		for _, fd := range fds {
			link, err := os.Readlink("/proc/" + strconv.Itoa(p) + "/fd/" + fd.Name())
			if err != nil {
				continue
			}
			ino, ok := strings.CutPrefix(link, "socket:[")
			if !ok {
				continue
			}
			n, err := strconv.ParseUint(strings.TrimSuffix(ino, "]"), 10, 64)
			if err != nil {
				continue
			}
			if i, ok := byInode[n]; ok && !slices.Contains(held[i], p) {
				held[i] = append(held[i], p)
			}
		}
	}
	var out []Listener
	for i, l := range all {
		if ps, ok := held[i]; ok {
			out = append(out, Listener{Listener: l, PIDs: ps})
		}
	}
	return out, nil
}
