package main

// Script commands of the focus view's testscripts (testscripts/focus_*.txtar).

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/trailboss/trailboss/focus"
)

func init() {
	scriptCommands["focussession"] = cmdFocusSession
	scriptCommands["waitclientsession"] = cmdWaitClientSession
	scriptCommands["waitsessionopt"] = cmdWaitSessionOpt
	scriptCommands["waitnosession"] = cmdWaitNoSession
	scriptCommands["nextsecond"] = cmdNextSecond
}

// focussession CLIENTVAR NAME sets NAME to the focus session of the client attached as
// CLIENTVAR.
func cmdFocusSession(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: focussession CLIENTVAR NAME")
	}
	ts.Setenv(args[1], focus.SessionName(clientOf(ts, args[0])))
}

// waitclientsession CLIENTVAR SESSION waits until the client is attached to SESSION.
func cmdWaitClientSession(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitclientsession CLIENTVAR SESSION")
	}
	client := clientOf(ts, args[0])
	var got string
	poll(ts, fmt.Sprintf("client %s in session %s", args[0], args[1]), 5*time.Second, func() bool {
		out, _ := runTmux(ts, "list-clients", "-F", "#{client_name}\t#{client_session}")
		for l := range strings.SplitSeq(out, "\n") {
			if name, s, ok := strings.Cut(l, "\t"); ok && name == client {
				got = s
			}
		}
		return got == args[1]
	}, func() string { return "it is in " + got })
}

// waitsessionopt [-within D] SESSION OPTION REGEXP waits until the session's option
// matches REGEXP.
func cmdWaitSessionOpt(ts *testscript.TestScript, args []string) {
	timeout, args := within(ts, args, 5*time.Second)
	if len(args) != 3 {
		ts.Fatalf("usage: waitsessionopt [-within D] SESSION OPTION REGEXP")
	}
	re, err := regexp.Compile(args[2])
	ts.Check(err)
	var got string
	poll(ts, fmt.Sprintf("option %s of %s to match %q", args[1], args[0], args[2]), timeout, func() bool {
		out, err := runTmux(ts, "show-options", "-qv", "-t", "="+args[0]+":", args[1])
		got = strings.TrimSuffix(out, "\n")
		return err == nil && re.MatchString(got)
	}, func() string { return fmt.Sprintf("it is %q", got) })
}

// waitnosession SESSION waits until the session is gone.
func cmdWaitNoSession(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitnosession SESSION")
	}
	poll(ts, "session "+args[0]+" to end", 5*time.Second, func() bool {
		_, err := runTmux(ts, "has-session", "-t", "="+args[0])
		return err != nil
	})
}

// nextsecond waits until the wall clock is in a later second than when it was called:
// tmux counts a client's activity in whole seconds, so a key typed after it is seen as
// new by anything that looked before.
func cmdNextSecond(ts *testscript.TestScript, args []string) {
	start := time.Now().Unix()
	poll(ts, "the next second", 2*time.Second, func() bool { return time.Now().Unix() > start })
}
