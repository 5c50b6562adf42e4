package pty

// The supervisor's pure rules, table-tested: the rolling buffer, the echo filter, what a
// tail of output shows, and the watchdog's decisions over time.

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestRingKeepsTheLastBytes(t *testing.T) {
	for _, tt := range []struct {
		name    string
		writes  []string
		want    string
		evicted uint64
	}{
		{"empty", nil, "", 0},
		{"under the size", []string{"abc", "de"}, "abcde", 0},
		{"exactly the size", []string{"abcdefgh"}, "abcdefgh", 0},
		{"wraps", []string{"abcdef", "ghij"}, "cdefghij", 2},
		{"wraps twice", []string{"abcdef", "ghij", "klmnop"}, "ijklmnop", 8},
		{"one write over the size", []string{"ab", "0123456789"}, "23456789", 4},
		{"many small writes", strings.Split("the quick brown fox", ""), "rown fox", 11},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRing(8)
			total := 0
			for _, w := range tt.writes {
				r.write([]byte(w))
				total += len(w)
			}
			if got := string(r.bytes()); got != tt.want || r.evicted != tt.evicted || r.written != uint64(total) {
				t.Fatalf("bytes %q evicted %d written %d, want %q %d %d", got, r.evicted, r.written, tt.want, tt.evicted, total)
			}
		})
	}
}

// keysEcho is a terminal read key by key (ICANON and ICRNL off) with echo left on.
var keysEcho = echoMode{echo: true, echoctl: true, onlcr: true}

func TestEchoFilter(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer string
		chunks []string
		want   string // what the buffer gets
		done   bool
		mode   echoMode
	}{
		{"echo then output", "y\r", []string{"y\r\nEnter new filename: "}, "\nEnter new filename: ", true, cooked},
		{"echo in pieces", "y\r", []string{"y", "\r", "\nDone"}, "\nDone", true, cooked},
		{"echo alone", "yes\r", []string{"yes\r\n"}, "\n", true, cooked},
		{"no echo (raw mode)", "y\r", []string{"Deleted.\r\n"}, "Deleted.\r\n", true, cooked},
		{"echo cut short", "yes\r", []string{"ye", "p!"}, "p!", true, cooked},
		{"echo still awaited", "hello\r", []string{"hel"}, "", false, cooked},
		{"press enter", "\r", []string{"\r\nok"}, "\nok", true, cooked},
		// Keys read one by one with echo left on and CR kept (QA-002's child): a CR shows
		// as ^M, and nothing of the answer is left to read as a question.
		{"keys, CR shown as ^M", "y\r", []string{"y^M", "\n"}, "\n", true, keysEcho},
		{"keys, echo then output", "y\r", []string{"y^MDeleted.\r\n"}, "Deleted.\r\n", true, keysEcho},
		{"echo off", "secret\r", []string{"\r\nok"}, "\r\nok", true, echoMode{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newEchoFilter(tt.answer, tt.mode)
			var got bytes.Buffer
			done := false
			for _, c := range tt.chunks {
				if done {
					got.WriteString(c)
					continue
				}
				keep, _, d := f.filter([]byte(c))
				got.Write(keep)
				done = d
			}
			if got.String() != tt.want || done != tt.done {
				t.Fatalf("buffer got %q (done %v), want %q (done %v)", got.String(), done, tt.want, tt.done)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	yn := []Choice{{"y", "Yes"}, {"n", "No"}}
	for _, tt := range []struct {
		name    string
		tail    string
		want    *Prompt // nil: no prompt
		busy    bool
		excerpt string
	}{
		{"QA-001 partial line", "Do you want to continue? (y/n)",
			&Prompt{Kind: KindYesNo, Question: "Do you want to continue? (y/n)", Choices: yn}, false, "Do you want to continue? (y/n)"},
		{"QA-002 redraws", "Loading... \rLoading... \rLoading... \rLoading. Done!\r\nProceed? (y/n) ",
			&Prompt{Kind: KindYesNo, Question: "Proceed? (y/n)", Choices: yn}, false, "Loading. Done!\nProceed? (y/n)"},
		{"QA-003 erased by spaces", "Delete file? (y/n) \r                  \r",
			&Prompt{Kind: KindYesNo, Question: "Delete file? (y/n)", Choices: yn, LowConfidence: true}, false, "Delete file? (y/n)"},
		{"QA-003 erased by an escape", "build ok\r\nOverwrite? [y/N] \x1b[2K\r",
			&Prompt{Kind: KindYesNo, Question: "Overwrite? [y/N]", Choices: yn, LowConfidence: true}, false, "build ok\nOverwrite? [y/N]"},
		{"an erased status line is no prompt", "Downloading 45%\r\x1b[K", nil, false, "Downloading 45%"},
		{"a finished line is not erased", "Done.\r\n", nil, false, "Done."},
		{"menu", "Select an option:\n1) Deploy to staging\n2) Deploy to production\n3) Cancel\nEnter choice [1-3]: ",
			&Prompt{Kind: KindChoice, Question: "Select an option:",
				Choices: []Choice{{"1", "Deploy to staging"}, {"2", "Deploy to production"}, {"3", "Cancel"}}}, false, ""},
		{"press enter", "Press Enter to continue",
			&Prompt{Kind: KindPressEnter, Question: "Press Enter to continue", Choices: []Choice{{KeyEnter, "Press Enter"}}}, false, "Press Enter to continue"},
		{"free text", "Enter new filename: ", &Prompt{Kind: KindFreeText, Question: "Enter new filename:"}, false, "Enter new filename:"},
		{"a bare question is a guess", "What next?", &Prompt{Kind: KindFreeText, Question: "What next?", LowConfidence: true}, false, "What next?"},
		{"sudo's password prompt is secret", "$ sudo systemctl restart app\r\n[sudo] password for deploy: ",
			&Prompt{Kind: KindFreeText, Question: "[sudo] password for deploy:", Secret: true}, false, ""},
		{"a passphrase prompt is secret", "Enter passphrase for key '/home/deploy/.ssh/id_ed25519': ",
			&Prompt{Kind: KindFreeText, Question: "Enter passphrase for key '/home/deploy/.ssh/id_ed25519':", Secret: true}, false, ""},
		{"spinner", "Continue? (y/n) y\r\n✻ Thinking… (esc to interrupt)", nil, true, ""},
		{"plain output", "ok  \tgithub.com/x\t0.4s\nPASS", nil, false, "ok      github.com/x    0.4s\nPASS"},
		// Chosen by moving its highlight, which writing a key to the child cannot do.
		{"an unnumbered menu is no prompt", "Bash command\n\nDo you want to proceed?\n ❯ No\n   Yes\n\n Esc to cancel · Tab to amend\n",
			nil, false, ""},
		{"nothing", "", nil, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := detect([]byte(tt.tail))
			if d.busy != tt.busy {
				t.Fatalf("busy %v, want %v", d.busy, tt.busy)
			}
			if tt.want == nil {
				if d.prompt != nil {
					t.Fatalf("prompt %+v, want none", *d.prompt)
				}
			} else if d.prompt == nil || !samePrompt(d.prompt, tt.want) || d.prompt.LowConfidence != tt.want.LowConfidence {
				t.Fatalf("prompt %+v, want %+v", d.prompt, *tt.want)
			}
			if tt.excerpt != "" && d.excerpt != tt.excerpt {
				t.Fatalf("excerpt %q, want %q", d.excerpt, tt.excerpt)
			}
			if d.prompt != nil && d.prompt.Excerpt != d.excerpt {
				t.Fatalf("the prompt's excerpt %q is not the screen's %q", d.prompt.Excerpt, d.excerpt)
			}
		})
	}
}

func TestExcerptIsTheLastLinesWithinBounds(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		b.WriteString(strings.Repeat("x", 10) + string(rune('a'+i)) + "\n\n")
	}
	got := excerpt(b.String())
	if lines := strings.Split(got, "\n"); len(lines) != excerptLines || lines[0] != "xxxxxxxxxxm" || lines[7] != "xxxxxxxxxxt" {
		t.Fatalf("excerpt %q: want the last %d non-blank lines", got, excerptLines)
	}
	long := excerpt(strings.Repeat("é", 1000))
	if len(long) > excerptBytes || !strings.HasPrefix(long, "é") {
		t.Fatalf("a long line: %d bytes starting %q, want at most %d on a character boundary", len(long), long[:2], excerptBytes)
	}
}

// watchStep is one event of a watcher test: output at an offset, or a look.
type watchStep struct {
	at     time.Duration
	output string // appended to the tail; "" with look: the watchdog looks
	echo   bool
	look   bool
	// notWaiting: at this look the child does not wait on its terminal (it sleeps, waits
	// on a child or computes).
	notWaiting bool
	want       []State       // the states it reports at a look
	next       time.Duration // when set, how soon it must ask to look again
}

func runWatcher(t *testing.T, steps []watchStep) *watcher {
	t.Helper()
	t0 := time.Unix(1000, 0)
	w := newWatcher(300*time.Millisecond, 600*time.Millisecond, 500*time.Millisecond, t0)
	var tail []byte
	for i, s := range steps {
		now := t0.Add(s.at)
		if !s.look {
			tail = append(tail, s.output...)
			w.output(now, s.echo)
			continue
		}
		changes, next := w.step(now, func() []byte { return tail }, !s.notWaiting, false)
		var got []State
		for _, c := range changes {
			got = append(got, c.state)
		}
		if strings.Join(states(got), ",") != strings.Join(states(s.want), ",") {
			t.Fatalf("step %d at %v: reported %v, want %v", i, s.at, got, s.want)
		}
		if s.next != 0 && next != s.next {
			t.Fatalf("step %d at %v: look again in %v, want %v", i, s.at, next, s.next)
		}
	}
	return w
}

func states(ss []State) []string {
	var out []string
	for _, s := range ss {
		out = append(out, string(s))
	}
	return out
}

func TestWatcherDecisions(t *testing.T) {
	ms := time.Millisecond
	look := func(at time.Duration, want ...State) watchStep { return watchStep{at: at, look: true, want: want} }
	out := func(at time.Duration, s string) watchStep { return watchStep{at: at, output: s} }
	busy := func(at, next time.Duration) watchStep {
		return watchStep{at: at, look: true, notWaiting: true, next: next}
	}
	for _, tt := range []struct {
		name  string
		steps []watchStep
	}{
		{"a prompt is read only once output settles (QA-002)", []watchStep{
			out(0, "Step 1? (y/n) \r"), look(200 * ms), out(250*ms, "Step 2? (y/n) \r"), look(500 * ms),
			out(520*ms, "Proceed? (y/n) "), look(700 * ms), look(820*ms, StatePrompt), look(2000 * ms)}},
		{"a redraw of the same prompt is no new report", []watchStep{
			out(0, "Proceed? (y/n) "), look(300*ms, StatePrompt), out(400*ms, "\rProceed? (y/n) "), look(700 * ms)}},
		{"a changed prompt is a new report (QA-005)", []watchStep{
			out(0, "Overwrite? (y/n) "), look(300*ms, StatePrompt), out(400*ms, "\r\nEnter new filename: "), look(700*ms, StatePrompt)}},
		{"output moving on after a prompt is working", []watchStep{
			out(0, "Continue? (y/n) "), look(300*ms, StatePrompt), out(400*ms, "\r\nbuilding\r\n"), look(700*ms, StateWorking)}},
		{"output flowing past a prompt for the settle time is working before it pauses", []watchStep{
			out(0, "Continue? (y/n) "), look(300*ms, StatePrompt), out(400*ms, "1\r\n"), out(600*ms, "2\r\n"),
			out(690*ms, "3\r\n"), look(710*ms, StateWorking), out(720*ms, "4\r\n")}},
		{"silence with no prompt stalls after the stall time, not before (QA-004)", []watchStep{
			look(300 * ms), look(599 * ms), look(600*ms, StatePrompt), look(900 * ms)}},
		{"a quiet child that does not wait on its terminal never stalls, and is looked at again", []watchStep{
			out(0, "compiling\r\n"), busy(300*ms, 300*ms), busy(600*ms, 300*ms), busy(900*ms, 300*ms), busy(60*time.Second, 300*ms)}},
		{"a child that starts reading after the stall time stalls once two looks in a row see it", []watchStep{
			out(0, "compiling\r\n"), busy(600*ms, 300*ms), busy(900*ms, 300*ms), {at: 1200 * ms, look: true, next: 75 * ms},
			look(1275*ms, StatePrompt)}},
		{"output between two looks that see it reading starts the count again", []watchStep{
			busy(600*ms, 300*ms), {at: 700 * ms, look: true, next: 75 * ms}, out(710*ms, "Loading\r\n"), {at: 1310 * ms, look: true, next: 75 * ms},
			look(1385*ms, StatePrompt)}},
		{"a spinner is no prompt and no stall", []watchStep{
			out(0, "✻ Thinking… (esc to interrupt)"), look(300 * ms), look(2000 * ms)}},
		{"output after a stall report moves on", []watchStep{
			look(300 * ms), look(600*ms, StatePrompt), out(700*ms, "hello\r\n"), look(1000*ms, StateWorking), look(1300*ms, StatePrompt)}},
	} {
		t.Run(tt.name, func(t *testing.T) { runWatcher(t, tt.steps) })
	}
}

// After an answer: nothing is read for the suppress time; a child that then says nothing
// is not stuck again, nor is its echo a prompt (QA-019); a genuine new prompt is.
func TestWatcherAfterAnAnswer(t *testing.T) {
	ms := time.Millisecond
	t0 := time.Unix(1000, 0)
	w := newWatcher(300*ms, 600*ms, 500*ms, t0)
	tail := []byte("Proceed? (y/n) ")
	w.output(t0, false)
	changes, _ := w.step(t0.Add(300*ms), func() []byte { return tail }, true, false)
	if len(changes) != 1 || changes[0].state != StatePrompt {
		t.Fatalf("changes %+v", changes)
	}
	if w.mayWrite("p1", func() []byte { return tail }) {
		t.Fatal("an answer before the daemon named the prompt was allowed")
	}
	w.setPromptID(changes[0].gen, "p1")
	if w.mayWrite("p0", func() []byte { return tail }) || !w.mayWrite("p1", func() []byte { return tail }) {
		t.Fatal("only the prompt reported last may be answered")
	}
	w.wrote(t0.Add(400 * ms))
	if w.mayWrite("p1", func() []byte { return tail }) {
		t.Fatal("a prompt was answered twice")
	}
	tail = append(tail, '\n') // the echo, filtered to its line end
	w.output(t0.Add(410*ms), true)
	if c, next := w.step(t0.Add(800*ms), func() []byte { return tail }, true, false); c != nil || next != 100*ms {
		t.Fatalf("within the suppress time: %+v, next %v", c, next)
	}
	if c, next := w.step(t0.Add(5*time.Second), func() []byte { return tail }, true, false); c != nil || next != 0 {
		t.Fatalf("a silent child after its answer: %+v, next %v; want nothing until it writes", c, next)
	}
	tail = append(tail, "Proceed again? (y/n) "...)
	w.output(t0.Add(6*time.Second), false)
	c, _ := w.step(t0.Add(6*time.Second+300*ms), func() []byte { return tail }, true, false)
	if len(c) != 1 || c[0].state != StatePrompt || c[0].prompt.Question != "Proceed again? (y/n)" {
		t.Fatalf("the next prompt: %+v", c)
	}
	if g := w.exited(); g <= c[0].gen || w.mayWrite("p1", func() []byte { return tail }) {
		t.Fatal("after the exit nothing may be written")
	}
}

func TestBackoffDoublesToItsCap(t *testing.T) {
	var b backoff
	var got []time.Duration
	for range 7 {
		got = append(got, b.next())
	}
	want := []time.Duration{100, 200, 400, 800, 1600, 2000, 2000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("delays %v", got)
		}
	}
	b.reset()
	if b.next() != backoffMin {
		t.Fatal("reset did not start over")
	}
}

// The reporter tells the daemon only the state that holds: states that came and went
// while it was down are dropped; after a resync it says start and that state again; an
// answered prompt (the empty state) is not reported again.
func TestReporterSendsTheLatestState(t *testing.T) {
	link := newFakeLink()
	link.setUp(false)
	ids := make(chan string, 10)
	r := newReporter(link, Report{SessionID: "pty-0123456789abcdef"}, slogDiscard(),
		func(gen uint64, id string) { ids <- id })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.run(ctx)
	r.set(1, Report{State: StatePrompt, Prompt: &Prompt{Kind: KindYesNo, Question: "A? (y/n)"}})
	r.set(2, Report{State: StateWorking})
	link.setUp(true)
	want := func(states ...State) {
		t.Helper()
		for _, st := range states {
			if got := link.report(t, 5*time.Second); got.State != st {
				t.Fatalf("report %s, want %s", got.State, st)
			}
		}
	}
	want(StateStart, StateWorking)
	r.set(3, Report{State: StatePrompt, Prompt: &Prompt{Kind: KindYesNo, Question: "B? (y/n)"}})
	want(StatePrompt)
	if id := <-ids; id != "p1" {
		t.Fatalf("prompt id %q", id)
	}
	r.resync()
	want(StateStart, StatePrompt)
	r.set(4, Report{}) // answered: nothing pending
	r.resync()
	want(StateStart)
	link.noReport(t, 300*time.Millisecond)
}

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }
