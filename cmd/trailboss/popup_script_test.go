package main

// Script commands for the popup's end-to-end scripts (testscripts/popup_*.txtar).

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["session"] = cmdSession
	scriptCommands["waitnopopup"] = cmdWaitNoPopup
	scriptCommands["waitcapture"] = cmdWaitCapture
	scriptCommands["waitnoproc"] = cmdWaitNoProc
}

// waitnoproc REGEXP waits until no process's command line (its words joined by spaces)
// matches REGEXP: what must not outlive what started it.
func cmdWaitNoProc(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitnoproc REGEXP")
	}
	re := regexp.MustCompile(args[0])
	var left string
	poll(ts, "no process matching "+args[0], 5*time.Second, func() bool {
		left = ""
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			b, err := os.ReadFile(filepath.Join(d, "cmdline"))
			if err != nil || len(b) == 0 {
				continue
			}
			if line := strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))); re.MatchString(line) {
				left = filepath.Base(d) + ": " + line
				return false
			}
		}
		return true
	}, func() string { return "still running: " + left })
}

// waitcapture PANE REGEXP waits until PANE's screen and history (capture-pane, lines
// joined) match REGEXP: what an answer typed into a pane did there.
func cmdWaitCapture(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitcapture PANE REGEXP")
	}
	re := regexp.MustCompile(args[1])
	var got string
	poll(ts, fmt.Sprintf("pane %s to show %q", args[0], args[1]), 5*time.Second, func() bool {
		out, err := runTmux(ts, "capture-pane", "-p", "-J", "-S", "-", "-t", args[0])
		got = out
		return err == nil && re.MatchString(out)
	}, func() string { return "it shows:\n" + got })
}

// session NAME SESSION opens a window running a shell in $WORK, with the script's
// environment, in tmux session SESSION (created when missing), and sets NAME to its pane.
func cmdSession(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: session NAME SESSION")
	}
	targs := []string{"new-window", "-d", "-t", "=" + args[1] + ":"}
	if _, err := runTmux(ts, "has-session", "-t", "="+args[1]); err != nil {
		targs = []string{"new-session", "-d", "-s", args[1]}
	}
	targs = append(targs, "-P", "-F", "#{pane_id}", "-c", ts.Getenv("WORK"))
	for _, kv := range scriptEnv(ts) {
		targs = append(targs, "-e", kv)
	}
	out, err := runTmux(ts, targs...)
	ts.Check(err)
	ts.Setenv(args[0], strings.TrimSpace(out))
}

// waitnopopup waits until no popup is open on the script's tmux server: no process under
// the server is a trailboss (a popup's program, zombies included) or a tmux client still
// waiting on its display-popup, and the server has let go of the popup's terminal. A key pressed before then goes to the closing popup and is
// lost, as it would be for a person.
func cmdWaitNoPopup(ts *testscript.TestScript, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: waitnopopup")
	}
	out, err := runTmux(ts, "display-message", "-p", "#{pid}")
	ts.Check(err)
	server, err := strconv.Atoi(strings.TrimSpace(out))
	ts.Check(err)
	var open string
	poll(ts, "no open popup", 5*time.Second, func() bool {
		if open = popupProcess(server); open != "" {
			return false
		}
		// The program gone is not the popup gone: tmux clears the overlay when it has both
		// reaped the program and read the end of its terminal, and closes that terminal in
		// the same step. Until then a key goes to the dying popup, and its last frame is
		// still drawn on a redraw (a waitscreen would match it). So: the server holds no
		// terminal beyond its panes'.
		panes, err := runTmux(ts, "list-panes", "-a", "-F", "#{pane_id}")
		if err != nil {
			open = "list-panes: " + err.Error()
			return false
		}
		if n, want := ptyMasters(server), len(strings.Fields(panes)); n > want {
			open = fmt.Sprintf("the tmux server still holds %d terminals for %d panes", n, want)
			return false
		}
		return true
	}, func() string { return "still open: " + open })
	// What the clients were shown until now includes the closed popup's frames: a waitscreen
	// after this one reads only what comes next.
	screens, _ := filepath.Glob(filepath.Join(ts.Getenv("WORK"), "screen-*"))
	for _, path := range screens {
		if fi, err := os.Stat(path); err == nil {
			ts.Setenv("SCREENMARK_"+strings.TrimPrefix(filepath.Base(path), "screen-"), strconv.FormatInt(fi.Size(), 10))
		}
	}
}

// ptyMasters counts the pseudo-terminal masters process pid holds open: a tmux server holds
// one per pane and one per open popup.
func ptyMasters(pid int) int {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && (target == "/dev/ptmx" || strings.HasPrefix(target, "/dev/pts/ptmx")) {
			n++
		}
	}
	return n
}

// popupProcess returns a process under server that keeps a popup open, or "".
func popupProcess(server int) string {
	type proc struct {
		ppid  int
		comm  string
		state string
	}
	procs := map[int]proc{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(string(b[j+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		procs[pid] = proc{ppid: ppid, comm: string(b[i+1 : j]), state: f[0]}
	}
	under := func(pid int) bool {
		for n := 0; n < 64 && pid > 1; n++ {
			pid = procs[pid].ppid
			if pid == server {
				return true
			}
		}
		return false
	}
	for pid, p := range procs {
		if !under(pid) {
			continue
		}
		if p.comm == "trailboss" {
			return fmt.Sprintf("pid %d %s (%s)", pid, p.comm, p.state)
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if bytes.Contains(cmdline, []byte("display-popup")) {
			return fmt.Sprintf("pid %d %q", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
	return ""
}
