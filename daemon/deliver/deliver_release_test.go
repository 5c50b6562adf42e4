package deliver_test

import (
	"context"
	"database/sql"
	"errors"
	"github.com/trailboss/trailboss/daemon/fault"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/deliver"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// Issue 18, item 7: a claim whose commit or typing fails leaves the prompt answerable.

// failOnce makes the store refuse to write an answered prompt, as a full disk does, until
// the returned function is called.
func failOnce(t *testing.T, path string) (heal func()) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TRIGGER disk_full BEFORE INSERT ON prompts WHEN NEW.status = 'answered'
		BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := db.Exec(`DROP TRIGGER disk_full`); err != nil {
			t.Fatal(err)
		}
	}
}

// A claim whose commit fails (the disk is full) is not in effect: nothing is typed, the
// caller is told the answer was not saved, no one waiting on the record is woken, the
// prompt is pending again; once the store takes writes, the same answer is typed once.
func TestAFailedCommitLeavesThePromptAnswerable(t *testing.T) {
	env := tmuxtest.New(t)
	e, path := newEngine(t)
	d := deliverer(e, env)
	pane, out := env.NewReaderPane(t, "main", "", "Continue? (y/n) ")
	p := stuckIn(t, e, env, "s1", pane, yesNo)
	woken, _, _ := e.PromptChanged(p.ID)
	heal := failOnce(t, path)

	_, err := d.Answer(context.Background(), p.ID, wire.Answer{Choice: "y"})
	var notSaved *fault.NotSavedError
	if !errors.As(err, &notSaved) || !strings.Contains(err.Error(), "nothing was typed and the prompt takes answers again") {
		t.Fatalf("answer while the store fails: %v, want not saved, saying nothing was typed", err)
	}
	if _, ok := e.PendingPrompt("s1"); !ok {
		t.Fatalf("after a failed commit the prompt is not pending")
	}
	select {
	case <-woken:
		t.Fatalf("a claim that was never committed woke the record's waiters (a held hook would print it)")
	default:
	}
	if lines := tmuxtest.ReadLines(t, out); len(lines) != 0 {
		t.Fatalf("the pane read %q after a failed commit, want nothing", lines)
	}

	heal()
	// The next commit (another session's event) must not carry the failed claim to disk.
	if _, err := e.Ingest(context.Background(), adapter.Event{Harness: "screen", SessionID: "s2", Kind: adapter.KindStart,
		At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, found, err := st.LoadPrompt(context.Background(), p.ID)
	st.Close()
	if err != nil || !found || onDisk.Status != queue.PromptPending {
		t.Fatalf("after the failed claim the store has %q (found %v, err %v), want it pending", onDisk.Status, found, err)
	}

	got, err := d.Answer(context.Background(), p.ID, wire.Answer{Choice: "y"})
	if err != nil || !got.Delivered {
		t.Fatalf("the retry: %+v, %v; want delivered", got, err)
	}
	env.WaitFor(t, "the pane to read the answer", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) >= 1 })
	select {
	case <-woken:
	default:
		t.Fatalf("the committed claim did not wake the record's waiters")
	}
	readFirst(t, env, pane, out, "y")
	ds, err := e.Deliveries(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[1].Result != "failed" || !strings.Contains(ds[1].Reason, "could not be saved") || ds[0].Result != "confirmed" {
		t.Fatalf("audit log = %+v, want the failure, then the delivery", ds)
	}
}

// refusingTmux returns a tmux for the Deliverer that runs env's tmux but refuses one
// send-keys, as tmux refuses a command over its size limit, while flag exists.
func refusingTmux(t *testing.T, env *tmuxtest.Env) (bin, flag string) {
	t.Helper()
	dir := t.TempDir()
	bin, flag = filepath.Join(dir, "tmux"), filepath.Join(dir, "refuse")
	script := "#!/bin/sh\nfor a in \"$@\"; do\n\tif [ \"$a\" = send-keys ] && rm \"" + flag + "\" 2>/dev/null; then\n" +
		"\t\techo 'command too long' >&2; exit 1\n\tfi\ndone\nexec '" + env.Server.Bin + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return bin, flag
}

// tmux refusing to type an answer releases the claim: the caller is told nothing was typed
// and to try again, the prompt is pending, and a retry of the same prompt is typed once.
func TestAFailedTypingThenARetryOfTheSamePrompt(t *testing.T) {
	for _, tt := range []struct {
		name, question string
		ask            *adapter.Ask
		answer         wire.Answer
		reads          string
	}{
		{"a choice", "Continue? (y/n) ", yesNo, wire.Answer{Choice: "y"}, "y"},
		{"a text", "Enter a commit message: ", &adapter.Ask{Kind: adapter.AskFreeText, Question: "Enter a commit message:",
			From: adapter.AskFromScreen}, wire.Answer{Text: "fix the flaky test"}, "fix the flaky test"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := tmuxtest.New(t)
			e, _ := newEngine(t)
			d := deliverer(e, env)
			bin, flag := refusingTmux(t, env)
			d.Tmux = func(socket string) *tmuxctl.Server {
				return &tmuxctl.Server{Bin: bin, Socket: socket, Env: env.Environ}
			}
			pane, out := env.NewReaderPane(t, "main", "", tt.question)
			p := stuckIn(t, e, env, "s1", pane, tt.ask)

			_, err := d.Answer(context.Background(), p.ID, tt.answer)
			var typing *deliver.TypingError
			if !errors.As(err, &typing) || !strings.Contains(err.Error(), "command too long") ||
				!strings.Contains(err.Error(), "nothing was typed, and the prompt takes answers again") {
				t.Fatalf("answer while tmux refuses: %v, want a typing error saying tmux's reason and that nothing was typed", err)
			}
			if _, err := os.Stat(flag); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("tmux was never asked to type")
			}
			if _, ok := e.PendingPrompt("s1"); !ok {
				t.Fatalf("after tmux refused to type, the prompt is not pending")
			}
			if lines := tmuxtest.ReadLines(t, out); len(lines) != 0 {
				t.Fatalf("the pane read %q after a refused typing, want nothing", lines)
			}

			got, err := d.Answer(context.Background(), p.ID, tt.answer)
			if err != nil || !got.Delivered {
				t.Fatalf("the retry: %+v, %v; want delivered", got, err)
			}
			env.WaitFor(t, "the pane to read the answer", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) >= 1 })
			readFirst(t, env, pane, out, tt.reads)
			if _, err := d.Answer(context.Background(), p.ID, tt.answer); refusalReason(err) != wire.RefusedAnswered {
				t.Fatalf("a third answer: %v, want refused as answered", err)
			}
		})
	}
}

// A reply as long as any reply may be is typed whole in one tmux command, even when every
// character takes four bytes; one more is refused up front, whatever MaxReply says.
func TestTheLongestReplyIsTyped(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	d := deliverer(e, env)
	d.MaxReply = 100000
	out := filepath.Join(t.TempDir(), "read")
	// Non-canonical: the terminal's 4 KiB line limit would cut the line, not tmux.
	script := `stty -icanon; printf 'Enter a note: '; IFS= read -r a; printf '%s\n' "$a" > "$1"; sleep 60`
	pane := env.NewPane(t, "main", "bash", "-c", script, "long-reader", out)
	env.WaitFor(t, "the question on screen", 5*time.Second, func() bool {
		return strings.Contains(env.Tmux(t, "capture-pane", "-p", "-t", pane), "Enter a note:")
	})
	p := stuckIn(t, e, env, "s1", pane, &adapter.Ask{Kind: adapter.AskFreeText, Question: "Enter a note:", From: adapter.AskFromScreen})

	var badAnswer *wire.BadAnswerError
	if _, err := d.Answer(context.Background(), p.ID, wire.Answer{Text: strings.Repeat("x", deliver.MaxReplyLimit+1)}); !errors.As(err, &badAnswer) {
		t.Fatalf("a reply of %d characters: %v, want refused as too long", deliver.MaxReplyLimit+1, err)
	}
	long := strings.Repeat("😀", deliver.MaxReplyLimit-1) + "!"
	if len(long) < 4*(deliver.MaxReplyLimit-1) {
		t.Fatalf("the reply is %d bytes", len(long))
	}
	if _, err := d.Answer(context.Background(), p.ID, wire.Answer{Text: long}); err != nil {
		t.Fatalf("a reply of %d characters (%d bytes): %v", deliver.MaxReplyLimit, len(long), err)
	}
	env.WaitFor(t, "the program to read the reply", 10*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) == 1 })
	if got := tmuxtest.ReadLines(t, out)[0]; got != long {
		t.Fatalf("the program read %d bytes, want the %d of the reply", len(got), len(long))
	}
}
