package telegram_test

import (
	"context"
	"math"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
)

// The relay's figures for `make bench`: stuck → sendMessage at the fake Bot API, a tap →
// the program in a tmux pane reads the answer, and the CPU of an idle relay.

func percentileMS(samples []time.Duration, p float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return float64(s[max(0, min(i, len(s)-1))]) / float64(time.Millisecond)
}

func reportLatency(b *testing.B, samples []time.Duration) {
	b.ReportMetric(percentileMS(samples, 50), "p50-ms")
	b.ReportMetric(percentileMS(samples, 99), "p99-ms")
	b.ReportMetric(percentileMS(samples, 100), "max-ms")
}

// newMessage waits up to 5 s for a message after the bot's first before that is not a
// reply, and returns the newest.
func (w *world) newMessage(b *testing.B, before int) faketelegram.Message {
	var m faketelegram.Message
	if err := w.bot.Wait(5*time.Second, func() bool {
		ms := w.bot.Messages()
		for i := len(ms) - 1; i >= before; i-- {
			if ms[i].ReplyTo == 0 {
				m = ms[i]
				return true
			}
		}
		return false
	}); err != nil {
		b.Fatalf("no message within 5 s: %s", w.logs.String())
	}
	return m
}

// stuckAt makes session s stuck at at in pane (its folder cwd) with the yes/no prompt.
func (w *world) stuckAt(b *testing.B, at time.Time, pane, cwd string) {
	if _, err := w.engine.Ingest(context.Background(), adapter.Event{Harness: "screen", SessionID: "s", Kind: adapter.KindStuck,
		Pane: pane, TmuxSocket: w.env.Socket, Cwd: cwd, Reason: adapter.ReasonPermission, Summary: yesNo.Question, At: at, Ask: yesNo,
		Program: w.env.PaneProgram(b, pane)}); err != nil {
		b.Fatal(err)
	}
}

// movedOnAt makes session s move on at at and waits for its message m to be edited.
func (w *world) movedOnAt(b *testing.B, at time.Time, m faketelegram.Message) {
	if _, err := w.engine.Ingest(context.Background(), adapter.Event{Harness: "screen", SessionID: "s", Kind: adapter.KindUnstuck, At: at}); err != nil {
		b.Fatal(err)
	}
	if err := w.bot.Wait(5*time.Second, func() bool { cur, _ := w.bot.Message(m.ID); return cur.Edits > 0 }); err != nil {
		b.Fatal("the message was not edited after the session moved on")
	}
}

// BenchmarkStuckToTelegram measures a session becoming stuck (the engine's Ingest of a
// stuck event with its Ask, committed) until its sendMessage reaches the fake Bot API:
// the relay's wake-up, where the session runs (one list-panes, .git/HEAD), the message, the
// HTTP call. Between rounds the session moves on and its message is edited.
func BenchmarkStuckToTelegram(b *testing.B) {
	w := newWorld(b)
	dir := projectDir(b, "webshop", "main")
	pane := w.env.NewPane(b, "work", "sh", "-c", "printf 'Continue? (y/n) '; sleep 3600")
	samples := make([]time.Duration, 0, b.N)
	at := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		before := len(w.bot.Messages())
		at = at.Add(time.Millisecond)
		start := time.Now()
		b.StartTimer()
		w.stuckAt(b, at, pane, dir)
		m := w.newMessage(b, before)
		b.StopTimer()
		samples = append(samples, m.SentAt.Sub(start))
		at = at.Add(time.Millisecond)
		w.movedOnAt(b, at, m)
		b.StartTimer()
	}
	b.StopTimer()
	reportLatency(b, samples)
}

// BenchmarkTapToPane measures a tap on the phone (the fake Bot API queues the callback
// query and wakes the relay's long poll) until the program in a real tmux pane has read
// the first byte of the answer — the key, typed before the deliberate pause and Enter —
// through getUpdates, the checks, a fresh capture-pane, the claim and send-keys. The
// program reads its terminal raw and says so on a FIFO.
func BenchmarkTapToPane(b *testing.B) {
	w := newWorld(b)
	w.deliver.EnterPause, w.deliver.Confirm = 5*time.Millisecond, time.Millisecond
	pane, heard := w.env.NewKeyPane(b, "work", "Continue? (y/n) ")
	buf := make([]byte, 2)
	samples := make([]time.Duration, 0, b.N)
	at := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		before := len(w.bot.Messages())
		at = at.Add(time.Millisecond)
		w.stuckAt(b, at, pane, "")
		m := w.newMessage(b, before)
		data := ""
		for _, k := range m.Keys() {
			if strings.HasSuffix(k, ":y") {
				data = k
			}
		}
		w.env.WaitFor(b, "the question again", 5*time.Second, func() bool {
			return strings.Contains(w.env.Tmux(b, "capture-pane", "-p", "-t", pane), "Continue?")
		})
		b.StartTimer()
		start := time.Now()
		_, cb := w.bot.Tap(operator, chat, m.ID, data)
		if _, err := heard.Read(buf); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
		b.StopTimer()
		if err := w.bot.Wait(5*time.Second, func() bool { _, ok := w.bot.CallbackAnswer(cb); return ok }); err != nil {
			b.Fatal("the tap was not answered")
		}
		at = at.Add(time.Millisecond)
		w.movedOnAt(b, at, m)
		b.StartTimer()
	}
	b.StopTimer()
	reportLatency(b, samples)
}

// BenchmarkRelayIdleCPU measures the CPU an idle relay uses — one getUpdates long poll held
// by the fake Bot API, a message shown and waiting — over a window (60 s with
// TRAILBOSS_BENCH_SLOW=1, else 5 s): the whole test process, the fake server included.
func BenchmarkRelayIdleCPU(b *testing.B) {
	w := newWorld(b)
	w.cfg.PollTimeout = 50 * time.Second
	w.stop()
	w.open()
	w.start()
	pane := w.env.NewPane(b, "work", "sh", "-c", "printf 'Continue? (y/n) '; sleep 3600")
	p := w.stuck("s", pane, "", yesNo)
	w.message("the prompt's message", 5*time.Second, forPrompt(p))
	window := 5 * time.Second
	if os.Getenv("TRAILBOSS_BENCH_SLOW") == "1" {
		window = 60 * time.Second
	}
	calls := len(w.bot.Calls(""))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var r0, r1 syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r0); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		time.Sleep(window) // the measurement itself: an idle window
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r1); err != nil {
			b.Fatal(err)
		}
		cpu := time.Duration(r1.Utime.Nano()+r1.Stime.Nano()-r0.Utime.Nano()-r0.Stime.Nano()) * time.Nanosecond
		b.ReportMetric(100*cpu.Seconds()/time.Since(t0).Seconds(), "cpu-%")
		b.ReportMetric(window.Seconds(), "window-s")
	}
	b.ReportMetric(float64(len(w.bot.Calls(""))-calls), "api-calls")
}
