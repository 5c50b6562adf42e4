package main

// `trailboss bridge` and the several-machine transport under it (issue 30): a hub reaches
// another machine's daemon through the operator's own ssh, by a forwarded unix socket or,
// where sshd forbids that, by `ssh host trailboss bridge`. Real parts: the real daemon and
// bridge (this test binary run as trailboss), a real sshd as a second Unix user
// (testscripts/sshtest), the real ssh client.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/procnet"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/testscripts/sshtest"
)

// healthzRequest is what a hub sends first through a bridge.
const healthzRequest = "GET /healthz HTTP/1.1\r\nHost: trailboss\r\n\r\n"

// TestBridgeWithTheDaemonDownSaysSoAndPrintsNothing: no daemon behind the socket, so the
// bridge exits 1 with the plain message on stderr, and stdout, which a hub reads as the
// daemon's bytes, stays empty.
func TestBridgeWithTheDaemonDownSaysSoAndPrintsNothing(t *testing.T) {
	// A state directory no daemon has made yet (an existing one must be private: clients
	// refuse what others could have put in an open one).
	env := withEnv(isolatedEnv(t), "TRAILBOSS_STATE_DIR="+filepath.Join(t.TempDir(), "state"), "TRAILBOSS_ADDR=")
	cmd := exec.Command("trailboss", "bridge")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(healthzRequest)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("bridge with no daemon: %v, want exit status 1", err)
	}
	if stdout.Len() != 0 {
		t.Fatalf("bridge printed %q on stdout with no daemon", stdout.String())
	}
	if want := "trailboss: the daemon is not running — start it with: trailboss start\n"; stderr.String() != want {
		t.Fatalf("bridge said %q, want %q", stderr.String(), want)
	}
}

// TestBridgeSendsNothingToASocketOfAnotherUser: a program of another user (uid 65534)
// listening behind the daemon's socket gets no byte from the bridge, which says whose it is
// and exits 1, with nothing on stdout. The socket file is made to look the operator's (as a
// swap between the checks and connect() would leave it), so that only the peer check tells.
func TestBridgeSendsNothingToASocketOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to run a listener as another user (uid 65534)")
	}
	theirs, err := os.MkdirTemp("", "tbtheirs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(theirs) })
	if err := os.Chmod(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	bound := filepath.Join(theirs, "s.sock")
	imp := startImpostor(t, bound, nobody)
	stateDir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(bound, os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bound, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(bound, filepath.Join(stateDir, statedir.SocketFile)); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("trailboss", "bridge")
	cmd.Env = withEnv(isolatedEnv(t), "TRAILBOSS_STATE_DIR="+stateDir, "TRAILBOSS_ADDR=")
	cmd.Stdin = strings.NewReader(healthzRequest)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("bridge to another user's socket: %v (%s), want exit status 1", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Fatalf("bridge printed %q on stdout", stdout.String())
	}
	if !strings.Contains(stderr.String(), "another user's program (uid 65534) listens on") {
		t.Fatalf("bridge said %q, want it to name the other user", stderr.String())
	}
	// The listener records as it reads, and the bridge has exited: whatever it sent is
	// there now (nothing, it must be).
	if got := imp.received(t); got != "" {
		t.Fatalf("the other user's program received %q from the bridge", got)
	}
}

// TestBridgeOverSSH is issue 30's transport, end to end, against a remote user's daemon:
//   - `ssh remote1 trailboss bridge` with the remote daemon down exits non-zero, says so,
//     prints nothing on stdout;
//   - the remote daemon serves the bridge, a process of its own user, without a token;
//   - with sshd refusing socket forwarding, `ssh -L` gets the hub no byte of the daemon, and
//     the bridge carries HTTP both ways, several requests on one connection, until the hub
//     closes its end (then ssh exits 0);
//   - with forwarding allowed, `ssh -N -L` forwards the remote daemon's socket;
//   - nothing of either side listens on TCP but sshd itself.
func TestBridgeOverSSH(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, forwarding := range []bool{false, true} {
		t.Run(fmt.Sprintf("AllowStreamLocalForwarding=%v", forwarding), func(t *testing.T) {
			h := sshtest.Start(t, sshtest.Options{
				StreamLocalForwarding: forwarding,
				// The test binary runs as trailboss under that name (TestMain).
				Programs: map[string]string{"trailboss": self},
			})
			t.Logf("rig ready in %v", h.Setup)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()

			// The remote daemon is down: the bridge says so, through ssh, and sends nothing.
			down := h.Command(ctx, "trailboss", "bridge")
			down.Stdin = strings.NewReader(healthzRequest)
			var out, errOut bytes.Buffer
			down.Stdout, down.Stderr = &out, &errOut
			err := down.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("ssh remote1 trailboss bridge with the remote daemon down: %v (%s), want exit status 1", err, errOut.String())
			}
			if out.Len() != 0 {
				t.Fatalf("the bridge printed %q on stdout with the daemon down", out.String())
			}
			if !strings.Contains(errOut.String(), "the daemon is not running") {
				t.Fatalf("the bridge said %q with the daemon down", errOut.String())
			}

			startRemoteDaemon(t, ctx, h)
			sock := filepath.Join(h.StateDir(), statedir.SocketFile)

			bridge := startBridge(t, ctx, h)
			forward := startForward(t, ctx, h, sock)

			// Whatever runs now (sshd, its sessions, the remote daemon and bridge, the ssh
			// clients), nothing listens on TCP but sshd on its own port.
			assertOnlySSHDListens(t, h, bridge.cmd.Process.Pid, forward.cmd.Process.Pid)

			// The bridge: two requests on one connection, then the hub hangs up.
			bridge.healthz(t)
			bridge.send(t, "GET /v1/queue HTTP/1.1\r\nHost: trailboss\r\n\r\n")
			resp := bridge.read(t)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /v1/queue through the bridge without a token: %s, want 200 (the hub holds no remote token: "+
					"the remote daemon serves a bridge of its own user without one)", resp.Status)
			}
			bridge.hangUp(t)

			// The forwarded socket.
			got, err := forward.get()
			if forwarding {
				if err != nil || !strings.HasPrefix(got, "HTTP/1.1 200 OK") || !strings.Contains(got, `"ok":true`) {
					t.Fatalf("GET /healthz through ssh -L with forwarding allowed: %v\n%q\nssh said: %s", err, got, forward.stderr.String())
				}
			} else {
				if got != "" {
					t.Fatalf("sshd forbids socket forwarding, yet the hub received %q through ssh -L", got)
				}
				waitUntil(t, "sshd to log the refused forward", 10*time.Second, func() bool {
					return strings.Contains(h.SSHDLog(), "refused streamlocal port forward") &&
						strings.Contains(h.SSHDLog(), "target "+sock)
				})
			}
		})
	}
}

// startRemoteDaemon runs `trailboss daemon` as the remote user, in its environment (its own
// HOME, XDG folders and so state directory), and waits until it listens on its socket.
func startRemoteDaemon(t testing.TB, ctx context.Context, h *sshtest.Host) {
	t.Helper()
	var log bytes.Buffer
	d := h.AsUser(context.Background(), "trailboss", "daemon")
	d.Stdout, d.Stderr = &log, &log
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = d.Process.Signal(syscall.SIGTERM)
		_ = d.Wait()
		if t.Failed() {
			t.Logf("the remote daemon's output:\n%s", log.String())
		}
	})
	sock := filepath.Join(h.StateDir(), statedir.SocketFile)
	waitUntil(t, "the remote daemon to listen on "+sock, 20*time.Second, func() bool {
		fi, err := os.Stat(sock)
		return err == nil && fi.Mode()&os.ModeSocket != 0 && ctx.Err() == nil
	})
}

// sshBridge is `ssh remote1 trailboss bridge` as a hub runs it: its stdin and stdout are the
// stream.
type sshBridge struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
}

func startBridge(t *testing.T, ctx context.Context, h *sshtest.Host) *sshBridge {
	t.Helper()
	b := &sshBridge{cmd: h.Command(ctx, "trailboss", "bridge"), stderr: &bytes.Buffer{}}
	b.cmd.Stderr = b.stderr
	var err error
	if b.in, err = b.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	b.out = bufio.NewReader(stdout)
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b.cmd.ProcessState == nil {
			_ = b.cmd.Process.Kill()
			_ = b.cmd.Wait()
		}
	})
	return b
}

func (b *sshBridge) send(t *testing.T, req string) {
	t.Helper()
	if _, err := io.WriteString(b.in, req); err != nil {
		t.Fatalf("write to the bridge: %v (%s)", err, b.stderr.String())
	}
}

// read returns the next answer on the stream, its body read.
func (b *sshBridge) read(t *testing.T) *http.Response {
	t.Helper()
	resp, err := http.ReadResponse(b.out, nil)
	if err != nil {
		t.Fatalf("read an answer from the bridge: %v (ssh said %q)", err, b.stderr.String())
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp
}

// healthz asks the remote daemon's health through the bridge and fails t unless it is well.
func (b *sshBridge) healthz(t *testing.T) {
	t.Helper()
	b.send(t, healthzRequest)
	resp := b.read(t)
	var h wire.Health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != 200 || !h.OK {
		t.Fatalf("GET /healthz through the bridge: %s, %+v, %v", resp.Status, h, err)
	}
}

// hangUp closes the hub's end: the bridge ends the stream at once, prints nothing more, and
// ssh exits 0 with nothing said on stderr. At once: within hangUpWithin, well before the
// daemon would close an idle connection itself (its ReadTimeout, 30 s).
func (b *sshBridge) hangUp(t *testing.T) {
	t.Helper()
	const hangUpWithin = 10 * time.Second
	b.in.Close()
	type result struct {
		rest []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		rest, err := io.ReadAll(b.out)
		done <- result{rest, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(hangUpWithin):
		t.Fatalf("the bridge still ran %v after the hub hung up: the daemon was not told the stream ended", hangUpWithin)
	}
	if r.err != nil || len(r.rest) != 0 {
		t.Fatalf("after the hub hung up the bridge printed %q (%v)", r.rest, r.err)
	}
	if err := b.cmd.Wait(); err != nil {
		t.Fatalf("ssh remote1 trailboss bridge, once the hub hung up: %v (%s), want exit status 0", err, b.stderr.String())
	}
	if b.stderr.Len() != 0 {
		t.Fatalf("the bridge said %q on stderr", b.stderr.String())
	}
}

// sshForward is `ssh -N -L LOCAL:REMOTE remote1`: the remote daemon's socket at a local path.
type sshForward struct {
	cmd    *exec.Cmd
	local  string
	stderr *bytes.Buffer
}

func startForward(t *testing.T, ctx context.Context, h *sshtest.Host, remoteSock string) *sshForward {
	t.Helper()
	dir, err := os.MkdirTemp("", "tbfw") // short: a unix socket's path is at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f := &sshForward{local: filepath.Join(dir, "remote1.sock"), stderr: &bytes.Buffer{}}
	f.cmd = h.Command(ctx, "-N", "-o", "ExitOnForwardFailure=yes", "-L", f.local+":"+remoteSock, "--")
	f.cmd.Stderr = f.stderr
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = f.cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = f.cmd.Process.Kill(); <-exited })
	waitUntil(t, "ssh -L to make "+f.local, 20*time.Second, func() bool {
		select {
		case <-exited:
			t.Fatalf("ssh -N -L exited: %s", f.stderr.String())
		default:
		}
		_, err := os.Stat(f.local)
		return err == nil
	})
	return f
}

// get sends GET /healthz through the forwarded socket and returns everything that came back
// before the daemon (or sshd) closed the stream.
func (f *sshForward) get() (string, error) {
	c, err := net.DialTimeout("unix", f.local, 10*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: trailboss\r\nConnection: close\r\n\r\n"); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	return string(b), err
}

// assertOnlySSHDListens fails t when a TCP socket in the LISTEN state is held by any process
// of the remote side (sshd and its sessions, every process of the remote user) or of the
// hub's ssh clients, but sshd's own on 127.0.0.1; and when the remote user owns any.
func assertOnlySSHDListens(t *testing.T, h *sshtest.Host, clients ...int) {
	t.Helper()
	pids := append(h.Processes(), clients...)
	ls, err := sshtest.TCPListenersOf(pids)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 1 || ls[0].Addr.String() != fmt.Sprintf("127.0.0.1:%d", h.Port) || !slices.Equal(ls[0].PIDs, []int{h.SSHDPID()}) {
		t.Fatalf("TCP listeners of the two sides: %+v; want only sshd's (pid %d) at 127.0.0.1:%d", ls, h.SSHDPID(), h.Port)
	}
	all, err := procnet.Listeners()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		if l.UID == h.UID {
			t.Fatalf("the remote user (uid %d) listens on TCP at %s", h.UID, l.Addr)
		}
	}
}
