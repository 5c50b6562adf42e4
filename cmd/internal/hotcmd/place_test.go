package hotcmd

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/trailboss/trailboss/daemon/statedir"
)

// TestResolveClientSkipsTheConfigWhenTheSocketIsThere: a navigating client (prefix Tab's)
// reaches the daemon through its socket whatever config.toml's addr says (hot.Find), so
// with the socket there it does not read the file; without it, the file's addr is used as
// Resolve uses it.
func TestResolveClientSkipsTheConfigWhenTheSocketIsThere(t *testing.T) {
	cfgDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfgDir, "trailboss"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "trailboss", "config.toml"), []byte("addr = \"127.0.0.1:7777\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	state, err := os.MkdirTemp("/tmp", "tbplace")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	getenv := func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": cfgDir}[k]
	}

	p := Place{StateDir: state}
	if err := p.ResolveClient(getenv); err != nil {
		t.Fatal(err)
	}
	if p.Addr != "127.0.0.1:7777" || p.AddrFrom != "config" {
		t.Errorf("no socket: Addr %q from %q, want config.toml's", p.Addr, p.AddrFrom)
	}

	sock, err := statedir.SocketPath(state)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p = Place{StateDir: state}
	if err := p.ResolveClient(getenv); err != nil {
		t.Fatal(err)
	}
	if p.Addr != "" || p.AddrFrom != "socket" {
		t.Errorf("socket there: Addr %q from %q, want the socket and config.toml unread", p.Addr, p.AddrFrom)
	}
	p = Place{StateDir: state}
	if err := p.ResolveClient(func(k string) string {
		if k == "TRAILBOSS_ADDR" {
			return "127.0.0.1:8888"
		}
		return getenv(k)
	}); err != nil || p.Addr != "127.0.0.1:8888" || p.AddrFrom != "env" {
		t.Errorf("TRAILBOSS_ADDR: Addr %q from %q (%v), want the environment's", p.Addr, p.AddrFrom, err)
	}
}
