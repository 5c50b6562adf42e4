package deliver_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/deliver"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// Issue 18, item 5: a prompt that asks for a password takes no answer from anywhere. The
// tests here and in deliver_release_test.go and deliver_lines_test.go run a real tmux server
// and assert what must not happen by typing a marker line at the keyboard afterwards: the
// pane's program reads it first, or something else reached it before.

// stuckAs makes session, of harness, stuck in pane with ask (a permission's reason for a
// question with choices, a finished turn's for text) and returns its prompt record.
func stuckAs(t *testing.T, e *daemon.Engine, env *tmuxtest.Env, harness, session, pane string, ask *adapter.Ask) queue.Prompt {
	t.Helper()
	reason := adapter.ReasonPermission
	if ask.Kind == adapter.AskFreeText {
		reason = adapter.ReasonStopped
	}
	ev := adapter.Event{Harness: harness, SessionID: session, Kind: adapter.KindStuck, Pane: pane,
		TmuxSocket: env.Socket, Reason: reason, Summary: ask.Question, At: time.Now(), Ask: ask,
		Program: env.PaneProgram(t, pane)}
	if _, err := e.Ingest(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	p, ok := e.PendingPrompt(session)
	if !ok {
		t.Fatalf("session %s has no pending prompt after a stuck event with an ask", session)
	}
	return p
}

// screenAsk is the Ask the screen watcher makes of pane's screen now.
func screenAsk(t *testing.T, env *tmuxtest.Env, pane string) *adapter.Ask {
	t.Helper()
	ask := termprompt.AskOf(termprompt.Classify(env.Tmux(t, "capture-pane", "-p", "-t", pane)), adapter.AskFromScreen)
	if ask == nil {
		t.Fatalf("pane %s shows no prompt", pane)
	}
	return ask
}

// readFirst types marker and Enter at the pane's keyboard and checks that it is the first
// line the reader pane read: nothing Trail Boss refused reached the program before it.
func readFirst(t *testing.T, env *tmuxtest.Env, pane, out string, before ...string) {
	t.Helper()
	const marker = "typed-at-the-keyboard"
	env.Tmux(t, "send-keys", "-t", pane, "-l", marker)
	env.Tmux(t, "send-keys", "-t", pane, "Enter")
	want := append(append([]string{}, before...), marker)
	env.WaitFor(t, "the pane to read the keyboard's line", 5*time.Second, func() bool {
		return len(tmuxtest.ReadLines(t, out)) >= len(want)
	})
	if got := tmuxtest.ReadLines(t, out); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the pane's program read %q, want %q: something was typed that should not have been", got, want)
	}
}

// stored returns every byte of the store at path (the database, its WAL and journal).
func stored(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// A `[sudo] password for deploy:` prompt makes a secret record; an answer to it, from every
// channel, is refused with words saying to type it at the keyboard, nothing is typed, and the
// password is nowhere in the store or the log. The record stays pending for the keyboard.
func TestSecretPromptIsAnsweredAtTheKeyboardOnly(t *testing.T) {
	env := tmuxtest.New(t)
	e, path := newEngine(t)
	var logged bytes.Buffer
	d := deliverer(e, env)
	d.Log = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	pane, out := env.NewReaderPane(t, "main", "", "[sudo] password for deploy: ")
	p := stuckAs(t, e, env, "screen", "s1", pane, screenAsk(t, env, pane))
	if !p.Ask.Secret {
		t.Fatalf("the record of a sudo password prompt is not secret: %+v", p.Ask)
	}
	const password = "hunter2-correct-horse"
	for _, a := range []wire.Answer{
		{Text: password, Channel: deliver.ChannelAPI, Claimed: "popup"},
		{Text: password, Channel: deliver.ChannelAPI, Claimed: "cli"},
		{Text: password, Channel: "telegram", Nonce: p.Nonce},
		{Choice: "enter", Channel: "telegram"},
	} {
		_, err := d.Answer(context.Background(), p.ID, a)
		var refusal *wire.PromptRefusal
		if !errors.As(err, &refusal) || refusal.Reason != wire.RefusedSecret {
			t.Fatalf("answer %+v to a password prompt: %v, want refused as secret", a, err)
		}
		if !strings.Contains(refusal.Message, "asks for a password or secret") || !strings.Contains(refusal.Message, "type it at the keyboard") {
			t.Fatalf("the refusal says %q, want it to say to type the password at the keyboard", refusal.Message)
		}
	}
	if _, ok := e.PendingPrompt("s1"); !ok {
		t.Fatalf("the password prompt is no longer pending after the refusals")
	}
	readFirst(t, env, pane, out)

	ds, err := e.Deliveries(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 4 {
		t.Fatalf("audit log has %d entries, want the 4 refusals: %+v", len(ds), ds)
	}
	for _, dl := range ds {
		if dl.Result != "refused" || dl.Reason != wire.RefusedSecret || dl.Length != 0 || dl.Via != "" {
			t.Fatalf("audit entry %+v, want refused as secret with nothing typed", dl)
		}
	}
	if bytes.Contains(stored(t, path), []byte(password)) {
		t.Fatalf("the password is in the store")
	}
	if strings.Contains(logged.String(), password) {
		t.Fatalf("the password is in the log:\n%s", logged.String())
	}
	// The flag is kept on disk: a restarted daemon refuses it too.
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	again, found, err := st.LoadPrompt(context.Background(), p.ID)
	if err != nil || !found || !again.Ask.Secret {
		t.Fatalf("the stored record: %+v, found %v, err %v; want it secret", again.Ask, found, err)
	}
}
