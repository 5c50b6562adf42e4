package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// olderTrailBoss is a remote `trailboss` of an older Trail Boss, 0.9.0, as a hub meets it
// through ssh: `version` says so, and `bridge` answers as that version's daemon would: a
// health answer without a protocol, and a queue stream with one item, old-s1, that a hub
// must not take in. Each bridge it runs adds a line to ~/bridges.
const olderTrailBoss = `#!/bin/sh
[ "$1" = bridge ] || { echo "trailboss 0.9.0"; exit 0; }
echo run >> "$HOME/bridges"
cr=$(printf '\r')
health='{"ok":true,"version":"0.9.0"}'
route=health
while IFS= read -r line; do
	case "$line" in
	"GET /v1/queue/stream"*) route=stream ;;
	"GET "*) route=health ;;
	"$cr"|"")
		if [ "$route" = stream ]; then
			printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n'
			printf '{"server_time":"%s","items":[{"session_id":"old-s1","harness":"claude","reason":"stopped","since":"%s","ready":true}]}\n' \
				"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
			exec cat >/dev/null
		fi
		printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' ${#health} "$health"
		;;
	esac
done
`

// TestHubLeavesOutAHostOfAnotherVersion: a host whose Trail Boss is another version (the
// remote command an older trailboss that answers as its daemon would) is left out, saying so
// in trailboss hosts (state, and the versions in words) and in doctor, and none of its items
// enters the hub's queue, however often the hub asks again.
func TestHubLeavesOutAHostOfAnotherVersion(t *testing.T) {
	old := filepath.Join(t.TempDir(), "trailboss-old")
	if err := os.WriteFile(old, []byte(olderTrailBoss), 0o755); err != nil {
		t.Fatal(err)
	}
	w := startRemote(t, remoteOptions{programs: map[string]string{"trailboss-old": old}})
	w.startHub(t, hostEntry("remote1", w.h, filepath.Join(w.h.Bin, "trailboss-old")))
	want := "remote1 runs Trail Boss 0.9.0, this hub runs dev: left out until both run the same version"

	bridges := func() int {
		b, _ := os.ReadFile(filepath.Join(w.h.Home, "bridges"))
		return strings.Count(string(b), "run")
	}
	// Asked twice (the second time after the slow backoff), it is never read.
	waitUntil(t, "the hub to ask remote1 twice", 30*time.Second, func() bool {
		if it, ok := findItem(w.queue(t), "old-s1"); ok {
			t.Fatalf("the older host's item is in the hub's queue: %+v", it)
		}
		h := w.host(t)
		if h.Connected || h.Items != 0 {
			t.Fatalf("the hub's state of the older host: %+v, want it not connected, no items", h)
		}
		return bridges() >= 2
	})
	h := w.host(t)
	if !h.LeftOut || h.Error != want {
		t.Fatalf("the hub's state of the older host: %+v, want left out: %q", h, want)
	}
	out, errOut, code := runTrailboss(t, w.hubEnv, "hosts", "--state-dir", w.hub.stateDir)
	if code != 0 || !strings.Contains(out, "left out") || !strings.Contains(out, want) || strings.Contains(out, "unreachable") {
		t.Fatalf("trailboss hosts: %d %q %q, want remote1 left out, saying %q", code, out, errOut, want)
	}
	if st, err := w.client.Status(t.Context()); err != nil || st.Stuck != 0 {
		t.Fatalf("the hub's status: %+v %v, want nothing stuck", st, err)
	}
	out, _, code = runTrailboss(t, w.hubEnv, "doctor", "--state-dir", w.hub.stateDir)
	if code == 0 || !strings.Contains(out, "Trail Boss 0.9.0 there") || !strings.Contains(out, want) {
		t.Fatalf("trailboss doctor: exit %d\n%s\nwant it to fail saying %q", code, out, want)
	}
}
