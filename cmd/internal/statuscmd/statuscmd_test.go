package statuscmd

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
)

// fakeDaemon makes a state directory with a token and a unix socket that answers every
// connection with answer (after reading the request); "" reads and never answers. It
// returns the directory and the requests it read.
func fakeDaemon(t *testing.T, answer string) (string, <-chan string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "tbs") // short: a socket's path is limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if _, err := statedir.EnsureToken(dir); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, statedir.SocketFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 4)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				buf := make([]byte, 4096)
				n, _ := conn.Read(buf)
				got <- string(buf[:n])
				if answer == "" {
					time.Sleep(5 * time.Second) // a daemon that took the request and hangs
					return
				}
				conn.Write([]byte(answer))
			}()
		}
	}()
	return dir, got
}

func answer(code, contentType, body string) string {
	return "HTTP/1.1 " + code + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\nDate: x\r\n\r\n" + body
}

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestItPrintsTheCountsTheDaemonGives(t *testing.T) {
	for body, want := range map[string]string{
		`{"stuck":3,"cooling":0,"ready":3,"events":9}` + "\n":  "⚠ 3 stuck\n",
		`{"stuck":3,"cooling":1,"ready":2,"events":9}` + "\n":  "⚠ 2 stuck · 1 cooling\n",
		`{ "cooling" : 0 , "stuck" : 12 }`:                     "⚠ 12 stuck\n",
		`{"stuck":0,"cooling":0,"ready":0,"events":0}` + "\n":  "",
		`{"stuck":2,"cooling":2,"ready":0,"events":40}` + "\n": "",
		// A hub's: every host's items counted, the hosts it cannot reach named.
		`{"stuck":3,"cooling":0,"ready":3,"events":9,"remote":2,"unreachable":["devbox"]}` + "\n":  "⚠ 3 stuck · devbox ✗\n",
		`{"stuck":0,"cooling":0,"ready":0,"events":9,"unreachable":["devbox","gpu-1"]}` + "\n":     "devbox ✗ · gpu-1 ✗\n",
		`{"stuck":1,"cooling":0,"ready":1,"events":9,"unreachable":["dev\u001b[31m","ok"]}` + "\n": "⚠ 1 stuck · ok ✗\n",
	} {
		dir, got := fakeDaemon(t, answer("200 OK", "application/json", body))
		code, out, errOut := run(t, "--state-dir", dir)
		if code != 0 || out != want || errOut != "" {
			t.Errorf("answer %s: exit %d, stdout %q, stderr %q; want %q", body, code, out, errOut, want)
		}
		req := <-got
		tok, _ := statedir.ReadToken(dir)
		if !strings.HasPrefix(req, "GET /v1/status HTTP/1.1\r\n") || !strings.Contains(req, "Authorization: Bearer "+tok+"\r\n") {
			t.Errorf("the request was %q", req)
		}
	}
}

func TestWhatIsNotTheCountsIsAnError(t *testing.T) {
	for _, tc := range []struct{ answer, want string }{
		{answer("401 Unauthorized", "application/json", `{"error":"missing or wrong token"}`),
			"trailboss: GET /v1/status: 401 Unauthorized: missing or wrong token\n"},
		{answer("200 OK", "text/html", "<html>hello</html>"),
			"trailboss: another program, not Trail Boss, answers at "},
		{answer("200 OK", "application/json", `{"events":1}`),
			"trailboss: GET /v1/status: the daemon's answer has no counts"},
		{"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 90\r\n\r\n{\"stuck\":1,",
			"trailboss: GET /v1/status: the daemon's answer was cut short\n"},
		{"SSH-2.0-OpenSSH_9.6\r\n", "trailboss: the daemon is not running"},
	} {
		dir, _ := fakeDaemon(t, tc.answer)
		code, out, errOut := run(t, "--state-dir", dir)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, tc.want) {
			t.Errorf("answer %.40q: exit %d, stdout %q, stderr %q; want exit 1 and %q", tc.answer, code, out, errOut, tc.want)
		}
	}
}

// TestADaemonThatDoesNotAnswerIsBusyWithinTheTimeout: a daemon that takes the connection
// and never answers may well be running: it is said to be busy or unreachable, not down.
func TestADaemonThatDoesNotAnswerIsBusyWithinTheTimeout(t *testing.T) {
	dir, _ := fakeDaemon(t, "")
	start := time.Now()
	code, out, errOut := run(t, "--state-dir", dir)
	if took := time.Since(start); took > timeout+2*time.Second {
		t.Errorf("it waited %v for a daemon that never answers; the timeout is %v", took, timeout)
	}
	sock, _ := statedir.SocketPath(dir)
	want := "trailboss: the daemon at " + sock + " did not answer within 1s: it is busy or unreachable — try again"
	if code != 1 || out != "" || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
}

func TestNoDaemon(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil { // private, as the daemon makes it: clients refuse an open one
		t.Fatal(err)
	}
	code, out, errOut := run(t, "--state-dir", dir) // no token: never started
	if code != 1 || out != "" || errOut != "trailboss: the daemon is not running — start it with: trailboss start\n" {
		t.Errorf("never started: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := statedir.EnsureToken(dir); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, "--state-dir", dir) // a token, and no socket: stopped
	if code != 1 || errOut != "trailboss: the daemon is not running — start it with: trailboss start\n" {
		t.Errorf("stopped: exit %d, stderr %q", code, errOut)
	}
}

// TestATokenThatWouldBreakTheRequestIsNotSent: a token file with a line break in it (a hand
// that edited it) would add a header of its own to the request: nothing is sent.
func TestATokenThatWouldBreakTheRequestIsNotSent(t *testing.T) {
	dir, got := fakeDaemon(t, answer("200 OK", "application/json", `{"stuck":1,"cooling":0}`))
	if err := os.WriteFile(filepath.Join(dir, statedir.TokenFile), []byte("abc\r\nX-Evil: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "--state-dir", dir)
	if code != 1 || out != "" || !strings.Contains(errOut, "holds a control character") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	select {
	case req := <-got:
		t.Fatalf("the daemon got a request: %q", req)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestCommandLine(t *testing.T) {
	if code, out, _ := run(t, "-h"); code != 0 || !strings.HasPrefix(out, "Usage: trailboss-status [--state-dir DIR]\n") ||
		!strings.Contains(out, "#{@trailboss_status}") {
		t.Errorf("-h: exit %d, %q", code, out)
	}
	if code, out, errOut := run(t, "extra"); code != 2 || out != "" || !strings.Contains(errOut, "takes no arguments") {
		t.Errorf("an argument: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut := run(t, "--bogus"); code != 2 || !strings.Contains(errOut, "flag provided but not defined: -bogus") {
		t.Errorf("an unknown flag: exit %d, stderr %q", code, errOut)
	}
}
