package main

// Issue 29: with TCP switched on, another local user must not be able to starve the
// operator's clients by holding connections to the daemon's address. Real parts: the real
// daemon on a loopback port, a flood that is a real process of another uid, and the real
// `trailboss emit`, `trailboss-hot emit`, `ls` and `status`.

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// floodConns is how many idle connections the flood holds: many more than the daemon's
// slots (httpapi.MaxConns).
const floodConns = 3000

// floodMain is the "flood" command (TestMain): flood ADDR N READY opens N TCP connections to
// ADDR, sends nothing on them and holds them; it writes how many it opened to READY, then
// waits to be killed. A connection the daemon reset before the dial returned was opened
// too (the handshake was done).
func floodMain() {
	n, _ := strconv.Atoi(os.Args[2])
	opened := 0
	for range n {
		c, err := net.DialTimeout("tcp", os.Args[1], 2*time.Second)
		if errors.Is(err, syscall.ECONNRESET) {
			opened++
		}
		if err != nil {
			continue
		}
		floodHeld = append(floodHeld, c)
		opened++
	}
	if err := os.WriteFile(os.Args[3], []byte(strconv.Itoa(opened)), 0o644); err != nil {
		os.Exit(1)
	}
	select {}
}

// floodHeld keeps the flood's connections reachable, and so open (a net.Conn no longer
// referenced is closed when collected).
var floodHeld []net.Conn

// While another user holds 3,000 idle connections to the daemon's TCP address, the
// operator's hooks (`trailboss emit`, `trailboss-hot emit`) are acknowledged in their usual
// time — nothing spooled, the sessions in the queue —, `ls` and `status` answer, and the
// operator's own TCP client is served; the daemon logs the refusals in a line or two.
func TestAnotherUsersFloodStarvesNoClient(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("SKIPPED: the flood runs as another user (uid 65534), which needs root; run the suite as root (CI does)")
	}
	addr := freeAddr(t)
	w := newTransportWorld(t, fmt.Sprintf("addr = %q\n", addr))
	d := launchDaemon(t, "trailboss", w.stateDir, w.env)

	dir := startAsUser(t, nobody, "flood", func(dir string) []string {
		return []string{addr, strconv.Itoa(floodConns), filepath.Join(dir, "ready")}
	}).dir
	var opened []byte
	waitUntil(t, "the flood to open its connections", 60*time.Second, func() bool {
		opened, _ = os.ReadFile(filepath.Join(dir, "ready"))
		return len(opened) > 0
	})
	if n, _ := strconv.Atoi(string(opened)); n < floodConns {
		t.Fatalf("the flood opened %s connections of %d: no flood to test against", opened, floodConns)
	}

	for i, bin := range []string{"trailboss", "trailboss-hot"} {
		session := fmt.Sprintf("flood-%d", i)
		stop := `{"session_id":"` + session + `","cwd":"/src","hook_event_name":"Stop","last_assistant_message":"Done. Push it?"}`
		cmd := exec.Command(bin, "emit")
		cmd.Env, cmd.Stdin = w.env, strings.NewReader(stop)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil || out.Len() > 0 {
			t.Fatalf("%s emit: %v, output %q", bin, err, out.String())
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s emit took %v", bin, took)
		}
	}
	if spooled, _ := filepath.Glob(filepath.Join(w.stateDir, "spool", "*")); len(spooled) > 0 {
		logged, _ := os.ReadFile(filepath.Join(w.stateDir, "emit.log"))
		t.Errorf("spooled %v: the daemon did not take the hooks in time; emit.log:\n%s", spooled, logged)
	}
	out, errOut, code := w.trailboss(t, "", "ls")
	if code != 0 || !strings.Contains(out, "flood-0") || !strings.Contains(out, "flood-1") {
		t.Errorf("ls: exit %d, stdout %q, stderr %q; want both sessions listed", code, out, errOut)
	}
	if out, errOut, code := w.trailboss(t, "", "status"); code != 0 || errOut != "" || out == "" {
		t.Errorf("status: exit %d, stdout %q, stderr %q; want the counts", code, out, errOut)
	}

	// The operator's own TCP client, whose connection waits behind the flood's.
	req, err := http.NewRequest("GET", "http://"+addr+"/v1/status", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := (&http.Client{Timeout: 3 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("an own-uid TCP client: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("an own-uid TCP client: %s", resp.Status)
	}

	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = d.cmd.Wait()
	refusals := strings.Count(d.log.String(), "refused a TCP connection of another user")
	if refusals == 0 || refusals > 2 || !strings.Contains(d.log.String(), "uid 65534") {
		t.Errorf("the daemon logged %d refusals (want one or two lines, naming uid 65534):\n%.3000s", refusals, d.log.String())
	}
}
