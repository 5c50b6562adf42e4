package pty

// The supervisor against AtlasBridge's failure catalogue (QA-001 … QA-019): real children
// (sh) on real PTYs, the daemon faked by fakeLink.

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	settle = 300 * time.Millisecond
	stall  = 600 * time.Millisecond
)

func yesNo(q, keyYes, keyNo string) *Prompt {
	return &Prompt{Kind: KindYesNo, Question: q, Choices: []Choice{{keyYes, "Yes"}, {keyNo, "No"}}}
}

func checkPrompt(t *testing.T, got *Prompt, want *Prompt) {
	t.Helper()
	if got == nil {
		t.Fatal("a prompt report without a prompt")
	}
	if !samePrompt(got, want) || got.LowConfidence != want.LowConfidence {
		t.Fatalf("prompt %+v, want %+v", *got, *want)
	}
}

// QA-001: a prompt with no newline is read within the settle time; the answer reaches the
// child once; the exit is reported with the child's code.
func TestPartialLinePrompt(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`printf 'Do you want to continue? (y/n)'; read a; echo "got:$a"; exit 4`),
		Settle: settle, Stall: stall, Link: link, Name: "qa1"})
	start := link.reportOf(t, StateStart, 5*time.Second)
	if !strings.HasPrefix(start.SessionID, "pty-") || len(start.SessionID) != 20 || start.Name != "qa1" || start.PID == 0 || start.Cwd == "" {
		t.Fatalf("start report %+v", start)
	}
	r.out.waitFor(t, "(y/n)", 5*time.Second)
	shown := time.Now()
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	if took := time.Since(shown); took > settle+500*time.Millisecond {
		t.Errorf("the prompt was reported %v after it showed, want at most settle + 0.5 s", took)
	}
	checkPrompt(t, rep.Prompt, yesNo("Do you want to continue? (y/n)", "y", "n"))
	if rep.Prompt.Excerpt != "Do you want to continue? (y/n)" {
		t.Errorf("excerpt %q", rep.Prompt.Excerpt)
	}
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "y\r"})
	if w := link.writtenOne(t); !w.OK || w.AnswerID != "a1" || w.SessionID != start.SessionID {
		t.Fatalf("written %+v", w)
	}
	r.out.waitFor(t, "got:y", 5*time.Second)
	if code := r.wait(t, 5*time.Second); code != 4 {
		t.Fatalf("exit status %d, want the child's 4", code)
	}
	ex := link.reportOf(t, StateExit, 2*time.Second)
	if ex.ExitCode != 4 {
		t.Fatalf("exit report %+v", ex)
	}
	if n := strings.Count(r.out.String(), "got:"); n != 1 {
		t.Fatalf("the child read %d answers, want 1", n)
	}
}

// QA-002: a spinner redrawn on one line, whose frames read as prompts themselves, makes
// one report: the settled final prompt.
func TestRedrawMakesOnePrompt(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`for i in 1 2 3 4 5 6; do printf 'Step %s? (y/n) \r' $i; sleep 0.05; done
printf 'Loading... \r'; sleep 0.05; printf 'Loading... \r'; sleep 0.05; printf 'Loading. Done!\r\n'
printf 'Proceed? (y/n) '; read a`), Settle: settle, Stall: stall, Link: link})
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	checkPrompt(t, rep.Prompt, yesNo("Proceed? (y/n)", "y", "n"))
	link.noReport(t, 2*stall)
	r.stdin.Write([]byte("n\r"))
	r.wait(t, 5*time.Second)
}

// QA-003: a prompt erased before the child blocks is still reported, marked low
// confidence, with the erased text in its excerpt.
func TestErasedPrompt(t *testing.T) {
	link := newFakeLink()
	// The prompt is erased 0.1 s after it is drawn: well inside the settle time even when a
	// loaded machine takes a few hundred ms to start the sleep (seen under stress -c 2 with
	// the 300 ms settle of the other tests).
	r := startRun(t, Config{Args: sh(`echo building; printf 'Delete file? (y/n) '; sleep 0.1; printf '\r                  \r'; read a`),
		Settle: 4 * settle, Stall: 4 * stall, Link: link})
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	want := yesNo("Delete file? (y/n)", "y", "n")
	want.LowConfidence = true
	checkPrompt(t, rep.Prompt, want)
	if rep.Prompt.Excerpt != "building\nDelete file? (y/n)" {
		t.Fatalf("excerpt %q", rep.Prompt.Excerpt)
	}
	link.noReport(t, 2*stall)
	r.stdin.Write([]byte("\r"))
	r.wait(t, 5*time.Second)
}

// QA-004: a child that blocks with no output at all is stuck after the stall time, not
// before, with the made-up question.
func TestSilentBlock(t *testing.T) {
	link := newFakeLink()
	began := time.Now()
	r := startRun(t, Config{Args: sh(`read a; echo "got:$a"`), Settle: settle, Stall: stall, Link: link})
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	if took := time.Since(began); took < stall {
		t.Errorf("reported after %v, before the stall time %v", took, stall)
	}
	checkPrompt(t, rep.Prompt, &Prompt{Kind: KindFreeText, Question: QuestionNoPrompt, LowConfidence: true})
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "hello\r"})
	if w := link.writtenOne(t); !w.OK {
		t.Fatalf("written %+v", w)
	}
	r.out.waitFor(t, "got:hello", 5*time.Second)
	r.wait(t, 5*time.Second)
}

// QA-004's other side: a child that is quiet because it computes is not stalled; once it
// asks, it is stuck on its question.
func TestQuietButBusyIsNotStalled(t *testing.T) {
	link := newFakeLink()
	began := time.Now()
	args, env := helper("spin")
	r := startRun(t, Config{Args: args, Env: env, Settle: settle, Stall: stall, Link: link})
	rep := link.reportOf(t, StatePrompt, 10*time.Second)
	if took := time.Since(began); took < 1500*time.Millisecond {
		t.Fatalf("a computing child was reported stuck after %v", took)
	}
	checkPrompt(t, rep.Prompt, yesNo("Proceed? (y/n)", "y", "n"))
	r.stdin.Write([]byte("y\r"))
	r.out.waitFor(t, "got:y", 5*time.Second)
	r.wait(t, 5*time.Second)
}

// A shell loop that computes through short-lived children (its CPU time grows while no
// process of it may be running at the moment of a look) is not stalled either.
func TestQuietShellLoopIsNotStalled(t *testing.T) {
	link := newFakeLink()
	began := time.Now()
	r := startRun(t, Config{Args: sh(`end=$(( $(date +%s%N) + 1500000000 )); while [ $(date +%s%N) -lt $end ]; do :; done; read a`),
		Settle: settle, Stall: stall, Link: link})
	rep := link.reportOf(t, StatePrompt, 10*time.Second)
	if took := time.Since(began); took < 1500*time.Millisecond {
		t.Fatalf("a computing child was reported stuck after %v", took)
	}
	checkPrompt(t, rep.Prompt, &Prompt{Kind: KindFreeText, Question: QuestionNoPrompt, LowConfidence: true})
	r.stdin.Write([]byte("\r"))
	r.wait(t, 5*time.Second)
}

// Quiet output alone is not waiting: a child that sleeps (a shell waiting on its sleep,
// no process of it reading the terminal) is never stuck, however long it is quiet.
func TestQuietSleepIsNotStalled(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`echo 'compiling…'; sleep 30`), Settle: settle, Stall: stall, Link: link})
	link.reportOf(t, StateStart, 5*time.Second)
	r.out.waitFor(t, "compiling", 5*time.Second)
	link.noReport(t, 4*stall)
}

// A child that sleeps, then reads its terminal with no prompt, is stuck soon after it
// starts reading: the watchdog keeps looking while it sleeps.
func TestReadAfterSleepStalls(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`echo 'compiling…'; sleep 1.5; read a; echo "got:$a"`),
		Settle: settle, Stall: stall, Link: link})
	r.out.waitFor(t, "compiling", 5*time.Second)
	began := time.Now()
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	if took := time.Since(began); took < 1400*time.Millisecond {
		t.Fatalf("reported stuck after %v, while it slept for 1.5 s", took)
	}
	checkPrompt(t, rep.Prompt, &Prompt{Kind: KindFreeText, Question: QuestionNoPrompt, LowConfidence: true})
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "hello\r"})
	if w := link.writtenOne(t); !w.OK {
		t.Fatalf("written %+v", w)
	}
	r.out.waitFor(t, "got:hello", 5*time.Second)
	r.wait(t, 5*time.Second)
}

// A prompt that comes after the child was first found quiet and not reading (it was still
// starting, as on a loaded machine) is reported within the settle time, not at the stall
// time the watchdog had set itself for: its output wakes the watchdog.
func TestLatePromptAfterAQuietStartIsSeenAtOnce(t *testing.T) {
	link := newFakeLink()
	const longStall = 20 * time.Second
	r := startRun(t, Config{Args: sh(`sleep 1; printf 'Proceed? (y/n) '; read a; echo "got:$a"`),
		Settle: settle, Stall: longStall, Link: link})
	r.out.waitFor(t, "(y/n)", 5*time.Second)
	shown := time.Now()
	rep := link.reportOf(t, StatePrompt, 10*time.Second)
	if took := time.Since(shown); took > settle+time.Second {
		t.Fatalf("the prompt was reported %v after it showed, want within the settle time (%v), not near the stall time (%v)", took, settle, longStall)
	}
	checkPrompt(t, rep.Prompt, yesNo("Proceed? (y/n)", "y", "n"))
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "y\r"})
	r.out.waitFor(t, "got:y", 5*time.Second)
	r.wait(t, 5*time.Second)
}

// QA-005 and QA-019: two questions in a row, each its own report; each answer reaches its
// own question; the echo of the first answer is not read as a prompt.
func TestSequentialPrompts(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`printf 'Overwrite existing file? (y/n) '; read a; printf 'Enter new filename: '; read b; echo "got:$a,$b"`),
		Settle: settle, Stall: stall, Link: link})
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	checkPrompt(t, rep.Prompt, yesNo("Overwrite existing file? (y/n)", "y", "n"))
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "y\r"})
	if w := link.writtenOne(t); !w.OK {
		t.Fatalf("written %+v", w)
	}
	rep = link.reportOf(t, StatePrompt, 5*time.Second)
	checkPrompt(t, rep.Prompt, &Prompt{Kind: KindFreeText, Question: "Enter new filename:"})
	if rep.Prompt.Excerpt != "Overwrite existing file? (y/n)\nEnter new filename:" {
		t.Errorf("excerpt %q: the echo of the answer should be gone, its line end kept", rep.Prompt.Excerpt)
	}
	// The first prompt's answer again: that prompt is gone.
	link.answer(t, Answer{AnswerID: "a2", PromptID: "p1", Data: "y\r"})
	if w := link.writtenOne(t); w.OK || w.Reason != ReasonChanged {
		t.Fatalf("a stale answer: written %+v, want refused as changed", w)
	}
	link.answer(t, Answer{AnswerID: "a3", PromptID: "p2", Data: "new.txt\r"})
	if w := link.writtenOne(t); !w.OK {
		t.Fatalf("written %+v", w)
	}
	r.out.waitFor(t, "got:y,new.txt", 5*time.Second)
	r.wait(t, 5*time.Second)
	link.reportOf(t, StateExit, 2*time.Second)
}

// QA-019: after an answer the echo is not a prompt, even while the child says nothing;
// a genuine later prompt still is.
func TestEchoIsNotAPrompt(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`printf 'Proceed? (y/n) '; read a; sleep 1.5; printf 'Proceed again? (y/n) '; read b; echo "got:$a,$b"`),
		Settle: settle, Stall: stall, Link: link})
	link.reportOf(t, StatePrompt, 5*time.Second)
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "y\r"})
	link.writtenOne(t)
	link.noReport(t, time.Second) // the child sleeps: no prompt, no stall
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	checkPrompt(t, rep.Prompt, yesNo("Proceed again? (y/n)", "y", "n"))
	link.answer(t, Answer{AnswerID: "a2", PromptID: "p2", Data: "n\r"})
	r.out.waitFor(t, "got:y,n", 5*time.Second)
	r.wait(t, 5*time.Second)
}

// QA-019 for a child that reads keys one by one with echo on and CR kept (stty -icanon
// -icrnl: the Prompt Lab's children, many key readers): its terminal shows the answer's
// Enter as ^M. That is the echo too, not a question "Proceed? (y/n) ^M" to report again
// while the child works on.
func TestKeyByKeyEchoIsNotAPrompt(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`stty -icanon -icrnl min 1; printf 'Proceed? (y/n) '; a=$(dd bs=1 count=2 2>/dev/null); sleep 1.5; printf '\ngot:%s\n' "$a" | tr '\r' R`),
		Settle: settle, Stall: stall, Link: link})
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	checkPrompt(t, rep.Prompt, yesNo("Proceed? (y/n)", "y", "n"))
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "y\r"})
	link.writtenOne(t)
	link.noReport(t, time.Second) // the child works: no second prompt
	r.out.waitFor(t, "got:yR", 5*time.Second)
	r.wait(t, 5*time.Second)
}

// An answer for the prompt reported last, when output has changed what the screen asks
// since, is refused and not written.
func TestAnswerToAChangedScreenIsRefused(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`printf 'Continue? (y/n) '; read a; echo "got:$a"`),
		Settle: 2 * time.Second, Stall: 3 * time.Second, Link: link})
	link.reportOf(t, StatePrompt, 5*time.Second)
	r.stdin.Write([]byte("x")) // the person types at the terminal: the screen changes
	r.out.waitFor(t, "(y/n) x", 5*time.Second)
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p1", Data: "y\r"})
	if w := link.writtenOne(t); w.OK || w.Reason != ReasonChanged {
		t.Fatalf("written %+v, want refused as changed", w)
	}
	r.stdin.Write([]byte("\r"))
	r.out.waitFor(t, "got:x", 5*time.Second)
	r.wait(t, 5*time.Second)
}

// When output moves on after a prompt, the session is working again.
func TestWorkingAfterThePersonAnswers(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`printf 'Continue? (y/n) '; read a; for i in 1 2 3 4 5 6 7 8 9 10; do echo "step $i"; sleep 0.05; done; sleep 5`),
		Settle: settle, Stall: 10 * time.Second, Link: link})
	link.reportOf(t, StatePrompt, 5*time.Second)
	r.stdin.Write([]byte("y\r"))
	link.reportOf(t, StateWorking, 5*time.Second)
}

// QA-016: with the daemon down the child runs untouched; when it comes up the supervisor
// says start, then the pending prompt. After a restart (the stream breaks) it says both
// again, and an answer with the new id reaches the child.
func TestDaemonDownAndRestart(t *testing.T) {
	link := newFakeLink()
	link.setUp(false)
	r := startRun(t, Config{Args: sh(`printf 'Continue? (y/n) '; read a; echo "got:$a"`),
		Settle: settle, Stall: stall, Link: link})
	r.out.waitFor(t, "Continue? (y/n)", 5*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for r.sup.phase() != phasePrompt { // the prompt is read while the daemon is down
		if time.Now().After(deadline) {
			t.Fatal("the prompt was not read")
		}
		time.Sleep(10 * time.Millisecond)
	}
	link.setUp(true)
	if rep := link.report(t, 5*time.Second); rep.State != StateStart {
		t.Fatalf("first report after the daemon came up: %s, want start", rep.State)
	}
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	checkPrompt(t, rep.Prompt, yesNo("Continue? (y/n)", "y", "n"))

	<-link.opened
	link.restart()
	if rep := link.report(t, 5*time.Second); rep.State != StateStart {
		t.Fatalf("first report after the restart: %s, want start", rep.State)
	}
	rep = link.reportOf(t, StatePrompt, 5*time.Second)
	checkPrompt(t, rep.Prompt, yesNo("Continue? (y/n)", "y", "n"))
	link.answer(t, Answer{AnswerID: "a1", PromptID: "p2", Data: "y\r"})
	if w := link.writtenOne(t); !w.OK {
		t.Fatalf("written %+v", w)
	}
	r.out.waitFor(t, "got:y", 5*time.Second)
	r.wait(t, 5*time.Second)
}

// QA-017: a child killed at a prompt ends the run with 128 + the signal, reported as its
// exit; an answer after that is refused.
func TestChildKilledAtPrompt(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`printf 'Continue? (y/n) '; read a`), Settle: settle, Stall: stall, Link: link})
	rep := link.reportOf(t, StatePrompt, 5*time.Second)
	if err := syscall.Kill(rep.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t, 5*time.Second); code != 128+9 {
		t.Fatalf("exit status %d, want 137", code)
	}
	if ex := link.reportOf(t, StateExit, 2*time.Second); ex.ExitCode != 137 {
		t.Fatalf("exit report %+v", ex)
	}
}

// QA-018: a flood of output then a prompt: the buffer stays bounded, it dropped the
// flood, and the prompt is read.
func TestFloodThenPrompt(t *testing.T) {
	link := newFakeLink()
	r := startRun(t, Config{Args: sh(`i=0; while [ $i -lt 20000 ]; do echo "compiling module $i of 20000 ... ok"; i=$((i+1)); done; printf 'Continue? (y/n) '; read a`),
		Settle: settle, Stall: stall, Link: link})
	rep := link.reportOf(t, StatePrompt, 30*time.Second)
	checkPrompt(t, rep.Prompt, yesNo("Continue? (y/n)", "y", "n"))
	st := r.sup.Stats()
	if st.Output < 600_000 || st.Evicted == 0 || st.Evicted != st.Output-uint64(st.BufferSize) {
		t.Fatalf("stats %+v: the buffer should hold its size and have dropped the rest", st)
	}
	r.stdin.Write([]byte("y\r"))
	r.wait(t, 5*time.Second)
}

// Without a terminal the child's window is 80x24; the person's keys reach it; its exit
// code is passed through.
func TestPassThrough(t *testing.T) {
	r := startRun(t, Config{Args: sh(`stty size; read a; echo "typed:$a"; exit 3`), Settle: settle})
	r.out.waitFor(t, "24 80", 5*time.Second)
	r.stdin.Write([]byte("hello\r"))
	r.out.waitFor(t, "typed:hello", 5*time.Second)
	if code := r.wait(t, 5*time.Second); code != 3 {
		t.Fatalf("exit status %d, want 3", code)
	}
}

// A missing command is an error of Run, not an exit status.
func TestMissingCommand(t *testing.T) {
	sup, err := New(Config{Args: []string{"/nonexistent/trailboss-test-command"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sup.Run(t.Context()); err == nil || !os.IsNotExist(err) {
		t.Fatalf("err %v, want does not exist", err)
	}
}
