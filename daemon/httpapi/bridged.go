package httpapi

// A request that came through `trailboss bridge` (another machine's hub, over the
// operator's own ssh) is served without the bearer token: the hub never holds this
// machine's token (SECURITY.md). It is told apart by the kernel, not by anything it says:
// the unix socket's peer (SO_PEERCRED) runs as the daemon's own user, is this very
// program (the same executable file as the daemon's), and was started as `trailboss
// bridge`. Any other caller, of this user too, still sends the token.

import (
	"bytes"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/hosts"
)

// bridged reports whether r came over the unix socket from a `trailboss bridge` process of
// the daemon's own user. It looks once per connection: the peer is the process that
// connected, and a bridge carries many requests.
func bridged(r *http.Request) bool {
	p, _ := r.Context().Value(peerKey{}).(*peer)
	if p == nil || !p.unix || p.cred == nil {
		return false
	}
	p.bridgeOnce.Do(func() {
		p.bridge = int(p.cred.Uid) == os.Getuid() && isBridgeProcess(int(p.cred.Pid))
	})
	return p.bridge
}

// isBridgeProcess reports whether process pid runs the daemon's own executable file as
// `… bridge [flags]`.
func isBridgeProcess(pid int) bool {
	if pid <= 0 {
		return false
	}
	proc := "/proc/" + strconv.Itoa(pid)
	self, err := os.Stat("/proc/self/exe")
	if err != nil {
		return false
	}
	exe, err := os.Stat(proc + "/exe")
	if err != nil || !os.SameFile(self, exe) {
		return false
	}
	cmdline, err := os.ReadFile(proc + "/cmdline")
	if err != nil {
		return false
	}
	args := bytes.Split(bytes.TrimSuffix(cmdline, []byte{0}), []byte{0})
	return len(args) >= 2 && string(args[1]) == "bridge"
}

// fromHub says, after actorOf, which hub a bridged request came from: the ssh client's
// address as sshd gave it to the bridge (SSH_CONNECTION in its environment, which the
// daemon reads from /proc, not from the request), and the name the hub gives itself
// (hosts.HeaderHub, its word only).
func fromHub(r *http.Request, pid int) string {
	out := " via bridge"
	if name := r.Header.Get(hosts.HeaderHub); name != "" {
		out += " from hub " + adapter.CleanText(name, 32) + " (its word)"
	}
	if from := sshClientOf(pid); from != "" {
		return out + ", ssh " + from
	}
	return out
}

// sshClientOf returns "ADDRESS:PORT" of the ssh client that started process pid,
// from its SSH_CONNECTION; "" when it has none or it cannot be read.
func sshClientOf(pid int) string {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		v, ok := bytes.CutPrefix(kv, []byte("SSH_CONNECTION="))
		if !ok {
			continue
		}
		f := strings.Fields(string(v))
		if len(f) < 2 {
			return ""
		}
		return adapter.CleanText(f[0], 46) + ":" + adapter.CleanText(f[1], 6)
	}
	return ""
}
