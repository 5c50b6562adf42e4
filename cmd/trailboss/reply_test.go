package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// readerWindow opens a window whose shell asks a numbered yes/no question, appends every
// line it reads to a file, and asks again, as tmuxtest.NewReaderPane's does but typed into
// a shell of the world; it returns the pane and the file (tmuxtest.ReadLines reads it).
func (w *agentWorld) readerWindow() (string, string) {
	w.t.Helper()
	out := filepath.Join(w.t.TempDir(), "read")
	pane := w.pane()
	w.typeLine(pane, `n=1; clear; while :; do printf '(#%d) Continue? (y/n) ' $n; IFS= read -r a || exit; printf '%s\n' "$a" >> `+
		out+`; n=$((n+1)); done`)
	w.waitScreen(pane, `\(#1\) Continue\? \(y/n\)`, 5*time.Second)
	return pane, out
}

func hasPrompt(kind string) func(client.Item) bool {
	return func(it client.Item) bool { return it.Prompt != nil && it.Prompt.Kind == kind }
}

// A plain tmux pane, watched by the screen adapter, gets a yes/no prompt record; the real
// daemon types `trailboss reply`'s answer into it exactly once; the same answer again is
// refused with 409 and types nothing; once another session has taken the pane, an answer
// to the prompt it showed is refused and types nothing; `trailboss log` lists every attempt.
func TestReplyReachesAPlainPaneOnce(t *testing.T) {
	w := newAgentWorld(t)
	pane, out := w.readerWindow()
	tmuxEnv := "TMUX=" + tmuxEnvValue(t, w.tm)
	w.env = append(w.env, tmuxEnv)
	w.run("trailboss", "watch", pane)

	it, _ := w.waitItem(pane, "a yes/no prompt", 10*time.Second, hasPrompt(wire.KindYesNo))
	if it.Prompt.Question != "(#1) Continue? (y/n)" || len(it.Prompt.Choices) != 2 || it.Prompt.Choices[0].Key != "y" {
		t.Fatalf("prompt = %+v", it.Prompt)
	}
	said := w.run("trailboss", "reply", pane, "--choice", "y")
	if !strings.Contains(said, "answered session") || !strings.Contains(said, "by typing into pane "+pane) {
		t.Fatalf("reply said %q", said)
	}
	waitUntil(t, "the pane to read the answer", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) == 1 })
	if got := tmuxtest.ReadLines(t, out); got[0] != "y" {
		t.Fatalf("the pane read %q, want y", got)
	}

	c, err := client.New(w.daemon.addr, w.daemon.stateDir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// This test process answers, claiming to be the Telegram relay.
	_, err = c.Answer(context.Background(), it.Prompt.ID, wire.Answer{Choice: "y", Channel: "telegram"})
	var refused *client.AnswerRefusedError
	if !errors.As(err, &refused) || refused.Reason != wire.RefusedAnswered {
		t.Fatalf("the same answer again: %v, want 409 answered", err)
	}

	// The shell asks again: a new prompt. Then a Claude Code session starts in that pane.
	second, _ := w.waitItem(pane, "the second prompt", 10*time.Second, func(it client.Item) bool {
		return it.Prompt != nil && it.Prompt.Question == "(#2) Continue? (y/n)"
	})
	emit := exec.Command("trailboss", "emit")
	emit.Env = append(slices.Clone(w.env), "TMUX_PANE="+pane)
	emit.Stdin = strings.NewReader(`{"session_id":"taker","hook_event_name":"SessionStart","source":"startup","cwd":"/w"}`)
	if b, err := emit.CombinedOutput(); err != nil {
		t.Fatalf("emit: %v %s", err, b)
	}
	_, err = c.Answer(context.Background(), second.Prompt.ID, wire.Answer{Choice: "y"})
	if !errors.As(err, &refused) || refused.Reason != wire.RefusedPaneMoved {
		t.Fatalf("answer after the pane was taken: %v, want 409 pane_moved", err)
	}
	if got := tmuxtest.ReadLines(t, out); len(got) != 1 {
		t.Fatalf("the pane read %q, want the first answer only", got)
	}

	log := w.run("trailboss", "log")
	for _, want := range []string{"api (said cli)", "keys", "confirmed", "refused: answered", "refused: pane_moved"} {
		if !strings.Contains(log, want) {
			t.Errorf("trailboss log lacks %q:\n%s", want, log)
		}
	}
	checkAuditActors(t, c, it.Prompt.ID)
}

// checkAuditActors checks who the audit log says answered prompt id: first `trailboss
// reply` (a process of this user, named by the socket's peer credentials, that said it was
// the CLI), then this test process, which claimed to be Telegram and is recorded as the API.
func checkAuditActors(t *testing.T, c *client.Client, id string) {
	t.Helper()
	ds, err := c.Deliveries(context.Background(), 50)
	if err != nil {
		t.Fatal(err)
	}
	var got []wire.Delivery
	for _, d := range ds {
		if d.PromptID == id {
			got = append([]wire.Delivery{d}, got...) // oldest first
		}
	}
	if len(got) != 2 {
		t.Fatalf("audit entries for %s: %+v; want the reply and the claimed-Telegram answer", id, got)
	}
	reply := regexp.MustCompile(fmt.Sprintf(`^uid %d pid [0-9]+ trailboss$`, os.Getuid()))
	if d := got[0]; d.Channel != "api" || d.Claimed != "cli" || !reply.MatchString(d.Actor) || d.Result != "confirmed" {
		t.Errorf("trailboss reply's entry: channel %q claimed %q actor %q result %q; want api, cli, %s, confirmed",
			d.Channel, d.Claimed, d.Actor, d.Result, reply)
	}
	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	self := fmt.Sprintf("uid %d pid %d %s", os.Getuid(), os.Getpid(), strings.TrimSpace(string(comm)))
	if d := got[1]; d.Channel != "api" || d.Claimed != "telegram" || d.Actor != self || d.Result != "refused" {
		t.Errorf("the claimed-Telegram entry: channel %q claimed %q actor %q result %q; want api, telegram, %q, refused",
			d.Channel, d.Claimed, d.Actor, d.Result, self)
	}
}
