package hosts

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os/exec"
	"strings"
	"time"
)

// While a host's ssh cannot even reach its server (refused, no route), every attempt is a
// new ssh process: retried slowly it costs little but leaves the host away for up to the
// wait after its server is back; retried fast it costs a process every few hundred
// milliseconds per host for as long as the machine is away. Instead the hub asks ssh once
// where it connects (`ssh -G`: the operator's ssh_config read as ssh reads it) and, when
// that is a plain TCP address, knocks there itself every probeEvery: a connect refused
// costs no process, and is nothing the server logs; the moment one is taken (closed at
// once, which the server logs once), ssh runs again. Through a ProxyJump or a ProxyCommand the hub does not know the address, and
// waits out the backoff instead.
const (
	probeEvery   = 50 * time.Millisecond
	probeTimeout = time.Second // one connect to a host that drops packets
)

// sshAddress returns the host:port that ssh connects to for c, or "" when it connects
// through a proxy or ssh -G cannot say.
func sshAddress(ctx context.Context, ssh string, c Config, ctl string) string {
	args := sshArgs(c, ctl)
	args = append(args[:len(args)-3:len(args)-3], "-G", "--", c.SSH)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, ssh, args...).Output()
	if err != nil {
		return ""
	}
	return addressOf(out)
}

// addressOf reads ssh -G's output: host:port, or "" through a proxy.
func addressOf(g []byte) string {
	host, port := "", ""
	sc := bufio.NewScanner(bytes.NewReader(g))
	for sc.Scan() {
		key, value, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		value = strings.TrimSpace(value)
		switch strings.ToLower(key) {
		case "hostname":
			host = value
		case "port":
			port = value
		case "proxycommand", "proxyjump":
			if value != "" && value != "none" {
				return ""
			}
		}
	}
	if host == "" || port == "" {
		return ""
	}
	return net.JoinHostPort(host, port)
}

// cannotReach says whether ssh's last line is a failure to reach the server at all, which a
// probe of its address can see mended.
func cannotReach(why string) bool {
	for _, s := range []string{"Connection refused", "No route to host", "Network is unreachable", "Connection timed out",
		"Connection reset"} {
		if strings.Contains(why, s) {
			return true
		}
	}
	return false
}

// waitReachable returns once addr accepts a TCP connection, or after limit, or when ctx ends.
func waitReachable(ctx context.Context, addr string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	d := net.Dialer{Timeout: probeTimeout}
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		if conn, err := d.DialContext(ctx, "tcp", addr); err == nil {
			conn.Close()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
