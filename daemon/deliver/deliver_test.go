package deliver_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/deliver"
	"github.com/trailboss/trailboss/daemon/ptyhub"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// deliverer returns a Deliverer over env's tmux server with a short pause before Enter.
func deliverer(e *daemon.Engine, env *tmuxtest.Env) *deliver.Deliverer {
	return &deliver.Deliverer{Engine: e, Log: discard, Holds: &daemon.Holds{}, PTY: &ptyhub.PTYHub{}, EnterPause: 50 * time.Millisecond,
		Typing: daemon.TypingRules(),
		Tmux: func(socket string) *tmuxctl.Server {
			return &tmuxctl.Server{Bin: env.Server.Bin, Socket: socket, Env: env.Environ}
		}}
}

func stuckIn(t *testing.T, e *daemon.Engine, env *tmuxtest.Env, session, pane string, ask *adapter.Ask) queue.Prompt {
	t.Helper()
	if q := termprompt.Classify(env.Tmux(t, "capture-pane", "-p", "-J", "-t", pane)).Question; ask.From == adapter.AskFromScreen &&
		q != ask.Question && strings.Contains(q, ask.Question) {
		// As the screen watcher makes it: in the screen's own words ("(#1) Continue?").
		shown := *ask
		shown.Question = q
		ask = &shown
	}
	return stuckAs(t, e, env, "screen", session, pane, ask)
}

var yesNo = &adapter.Ask{Kind: adapter.AskYesNo, Question: "Continue? (y/n)", From: adapter.AskFromScreen,
	Choices: []adapter.AskChoice{{Key: "y", Label: "yes"}, {Key: "n", Label: "no"}}}

// An answer reaches a plain tmux pane exactly once; the same answer again is refused with
// "answered" and types nothing; the audit log has both attempts.
func TestAnswerReachesAPaneOnceAndASecondIsRefused(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	d := deliverer(e, env)
	pane, out := env.NewReaderPane(t, "main", "", "Continue? (y/n) ")
	p := stuckIn(t, e, env, "s1", pane, yesNo)

	got, err := d.Answer(context.Background(), p.ID, wire.Answer{Choice: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Delivered || got.Via != wire.ViaKeys {
		t.Fatalf("answer = %+v, want delivered by keys", got)
	}
	env.WaitFor(t, "the pane to read the answer", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) == 1 })
	if lines := tmuxtest.ReadLines(t, out); lines[0] != "y" {
		t.Fatalf("the pane read %q, want y", lines)
	}
	if !got.Confirmed {
		t.Errorf("the prompt left the screen, but the answer is not confirmed")
	}

	_, err = d.Answer(context.Background(), p.ID, wire.Answer{Choice: "y"})
	if refusalReason(err) != wire.RefusedAnswered {
		t.Fatalf("second answer: %v, want refused as answered", err)
	}
	// The shell asks again at once; had anything been typed, it would have read it.
	time.Sleep(300 * time.Millisecond)
	if lines := tmuxtest.ReadLines(t, out); len(lines) != 1 {
		t.Fatalf("after the refused answer the pane read %q, want only the first answer", lines)
	}
	ds, err := e.Deliveries(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Result != "refused" || ds[0].Reason != wire.RefusedAnswered || ds[1].Result != "confirmed" ||
		ds[1].Via != wire.ViaKeys || ds[1].Length != 2 || ds[1].Pane != pane {
		t.Fatalf("audit log = %+v", ds)
	}
}

// A pane taken by another session refuses an answer to the old session's prompt, and
// types nothing.
func TestAnswerAfterThePaneWasTakenIsRefused(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	d := deliverer(e, env)
	pane, out := env.NewReaderPane(t, "main", "", "Continue? (y/n) ")
	p := stuckIn(t, e, env, "old", pane, yesNo)
	if _, err := e.Ingest(context.Background(), adapter.Event{Harness: "claude", SessionID: "new", Kind: adapter.KindStart,
		Pane: pane, TmuxSocket: env.Socket, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	_, err := d.Answer(context.Background(), p.ID, wire.Answer{Choice: "y"})
	if refusalReason(err) != wire.RefusedPaneMoved {
		t.Fatalf("answer after the pane was taken: %v, want refused as pane_moved", err)
	}
	time.Sleep(300 * time.Millisecond)
	if lines := tmuxtest.ReadLines(t, out); len(lines) != 0 {
		t.Fatalf("the pane read %q, want nothing", lines)
	}
}

// A pane that no longer shows the prompt refuses the answer ("changed") and the record
// stays pending for the keyboard.
func TestAnswerToAPromptNoLongerOnScreenIsRefused(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	d := deliverer(e, env)
	pane, out := env.NewReaderPane(t, "main", "", "Enter your name: ")
	p := stuckIn(t, e, env, "s1", pane, yesNo) // the record asks yes/no; the screen asks for a name
	_, err := d.Answer(context.Background(), p.ID, wire.Answer{Choice: "y"})
	if refusalReason(err) != wire.RefusedChanged {
		t.Fatalf("answer to a prompt not on screen: %v, want refused as changed", err)
	}
	if _, ok := e.PendingPrompt("s1"); !ok {
		t.Fatalf("the record is no longer pending after a refusal")
	}
	if lines := tmuxtest.ReadLines(t, out); len(lines) != 0 {
		t.Fatalf("the pane read %q, want nothing", lines)
	}
}

// Text goes in literally: key names, a trailing semicolon and quotes are just characters;
// several lines go in as one bracketed paste.
func TestFreeTextIsTypedLiterally(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	d := deliverer(e, env)
	pane, out := env.NewReaderPane(t, "main", "", "Enter your name: ")
	ask := &adapter.Ask{Kind: adapter.AskFreeText, Question: "Enter your name:", From: adapter.AskFromScreen}
	p := stuckIn(t, e, env, "s1", pane, ask)
	text := `Enter C-c "quoted" $HOME;`
	if _, err := d.Answer(context.Background(), p.ID, wire.Answer{Text: text}); err != nil {
		t.Fatal(err)
	}
	env.WaitFor(t, "the pane to read the text", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) == 1 })
	if got := tmuxtest.ReadLines(t, out)[0]; got != text {
		t.Fatalf("the pane read %q, want %q", got, text)
	}
}

// Answers that do not fit their prompt are refused before anything is checked or typed.
func TestAnswersThatDoNotFitAreRefused(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	d := deliverer(e, env)
	d.MaxReply = 10
	pane, _ := env.NewReaderPane(t, "main", "", "Continue? (y/n) ")
	p := stuckIn(t, e, env, "s1", pane, yesNo)
	var badAnswer *wire.BadAnswerError
	for _, a := range []wire.Answer{{Choice: "maybe"}, {Text: "y"}} {
		if _, err := d.Answer(context.Background(), p.ID, a); !errors.As(err, &badAnswer) {
			t.Errorf("answer %+v: %v, want a bad answer", a, err)
		}
	}
	textPane, _ := env.NewReaderPane(t, "main", "", "Name: ")
	tp := stuckIn(t, e, env, "s2", textPane, &adapter.Ask{Kind: adapter.AskFreeText, Question: "Name:"})
	for _, a := range []wire.Answer{{Text: strings.Repeat("x", 11)}, {Text: "\x1bb"}, {Text: "  "}, {Choice: "y"}} {
		if _, err := d.Answer(context.Background(), tp.ID, a); !errors.As(err, &badAnswer) {
			t.Errorf("answer %+v: %v, want a bad answer", a, err)
		}
	}
	if _, err := d.Answer(context.Background(), "p0000000000000000", wire.Answer{Choice: "y"}); !errors.Is(err, wire.ErrUnknownPrompt) {
		t.Errorf("unknown prompt: %v", err)
	}
}

// A program that draws typed text late (a TUI starved of CPU) gets Enter only after the text
// is on its screen: an Enter that arrives with the text is what Codex makes a newline of.
func TestEnterWaitsForTheTextOnScreen(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	d := deliverer(e, env)
	out := t.TempDir() + "/read"
	// It reads keys without echo, draws them only 500 ms after the first (ten times the
	// pause), and notes whether Enter came before it had drawn them.
	script := `stty -echo -icanon; printf 'Enter your name: '
IFS= read -r -n1 first; sleep 0.5; got=$first; early=no
while IFS= read -r -n1 -t 0.05 c; do [ -z "$c" ] && early=yes && break; got=$got$c; done
printf '%s' "$got"
[ $early = yes ] || IFS= read -r rest
printf '%s early=%s\n' "$got" $early > "$1"; sleep 60`
	pane := env.NewPane(t, "main", "bash", "-c", script, "late-echo", out)
	env.WaitFor(t, "the question on screen", 5*time.Second, func() bool {
		return strings.Contains(env.Tmux(t, "capture-pane", "-p", "-t", pane), "Enter your name:")
	})
	ask := &adapter.Ask{Kind: adapter.AskFreeText, Question: "Enter your name:", From: adapter.AskFromScreen}
	p := stuckIn(t, e, env, "s1", pane, ask)
	if _, err := d.Answer(context.Background(), p.ID, wire.Answer{Text: "Ada Lovelace"}); err != nil {
		t.Fatal(err)
	}
	env.WaitFor(t, "the program to read the answer", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) == 1 })
	if got := tmuxtest.ReadLines(t, out)[0]; got != "Ada Lovelace early=no" {
		t.Fatalf("the program read %q: Enter came before the text was on screen", got)
	}
}

// An answer that comes while its prompt is still being drawn waits for it, briefly: a
// program that draws its question 400 ms after the record was made gets the answer once;
// one that never draws it gets nothing, and the refusal comes after the bounded wait.
func TestAnswerWaitsBrieflyForItsPromptToBeDrawn(t *testing.T) {
	env := tmuxtest.New(t)
	e, _ := newEngine(t)
	d := deliverer(e, env)
	out := t.TempDir() + "/read"
	// The question, erased at once and drawn again when the lab file appears.
	script := `printf 'Continue? (y/n) '; printf '\r\033[K'
while [ ! -e "$1.go" ]; do sleep 0.05; done; sleep 0.4; printf 'Continue? (y/n) '
IFS= read -r a; printf '%s\n' "$a" >> "$1"; sleep 60`
	pane := env.NewPane(t, "main", "sh", "-c", script, "late-draw", out)
	ask := &adapter.Ask{Kind: adapter.AskYesNo, Question: "Continue? (y/n)", From: adapter.AskFromScreen,
		Choices: []adapter.AskChoice{{Key: "y", Label: "yes"}, {Key: "n", Label: "no"}}}
	p := stuckIn(t, e, env, "s1", pane, ask)
	if err := os.WriteFile(out+".go", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Answer(context.Background(), p.ID, wire.Answer{Choice: "y"}); err != nil {
		t.Fatalf("an answer to a prompt drawn 400 ms later: %v", err)
	}
	env.WaitFor(t, "the program to read the answer", 5*time.Second, func() bool { return len(tmuxtest.ReadLines(t, out)) == 1 })
	if got := tmuxtest.ReadLines(t, out); got[0] != "y" {
		t.Fatalf("the program read %q, want y", got)
	}

	// Never drawn: refused once the wait is over, nothing typed.
	blank, blankOut := env.NewReaderPane(t, "main", "", "Your name: ")
	q := stuckIn(t, e, env, "s2", blank, ask)
	start := time.Now()
	_, err := d.Answer(context.Background(), q.ID, wire.Answer{Choice: "y"})
	if refusalReason(err) != wire.RefusedChanged {
		t.Fatalf("an answer to a prompt never drawn: %v, want refused as changed", err)
	}
	if took := time.Since(start); took < deliver.MaxAwaitPrompt {
		t.Errorf("refused after %v, before the %v wait for the prompt to be drawn", took, deliver.MaxAwaitPrompt)
	}
	if lines := tmuxtest.ReadLines(t, blankOut); len(lines) != 0 {
		t.Fatalf("the pane read %q, want nothing", lines)
	}
}
