package deliver_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// BenchmarkAnswerToPane measures an answer's way into a real tmux pane: from the call of
// Deliverer.Answer (the checks, a fresh capture-pane classified, the claim committed, the
// keys typed) until the program in the pane has read the first byte — the choice's key,
// which comes before the deliberate pause and Enter. The program reads its terminal raw
// and says so on a FIFO the benchmark blocks on.
func BenchmarkAnswerToPane(b *testing.B) {
	env := tmuxtest.New(b)
	pane, heard := env.NewKeyPane(b, "main", "Pick one:\r\n1) alpha\r\n2) beta\r\nEnter choice [1-2]: ")
	e, _ := newEngine(b)
	d := deliverer(e, env)
	d.EnterPause, d.Confirm = 5*time.Millisecond, time.Millisecond
	ask := &adapter.Ask{Kind: adapter.AskMenu, Question: "Pick one:", From: adapter.AskFromScreen,
		Choices: []adapter.AskChoice{{Key: "1", Label: "alpha"}, {Key: "2", Label: "beta"}}}
	ctx := context.Background()
	prog := env.PaneProgram(b, pane)
	buf := make([]byte, 2)
	samples := make([]time.Duration, 0, b.N)
	at := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		at = at.Add(time.Millisecond)
		if _, err := e.Ingest(ctx, adapter.Event{Harness: "screen", SessionID: "s", Kind: adapter.KindUnstuck, Pane: pane,
			TmuxSocket: env.Socket, At: at}); err != nil {
			b.Fatal(err)
		}
		at = at.Add(time.Millisecond)
		if _, err := e.Ingest(ctx, adapter.Event{Harness: "screen", SessionID: "s", Kind: adapter.KindStuck, Pane: pane,
			TmuxSocket: env.Socket, Reason: adapter.ReasonPermission, Summary: "Pick one:", At: at, Ask: ask, Program: prog}); err != nil {
			b.Fatal(err)
		}
		p, ok := e.PendingPrompt("s")
		if !ok {
			b.Fatal("no prompt")
		}
		b.StartTimer()
		start := time.Now()
		done := make(chan struct{})
		var answerErr error
		go func() {
			defer close(done)
			_, answerErr = d.Answer(ctx, p.ID, wire.Answer{Choice: "1"})
		}()
		if _, err := heard.Read(buf); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
		<-done
		if answerErr != nil {
			b.Fatal(answerErr)
		}
		// The menu is drawn again before the next round's capture.
		b.StopTimer()
		env.WaitFor(b, "the menu again", 5*time.Second, func() bool {
			res := termprompt.Classify(env.Tmux(b, "capture-pane", "-p", "-J", "-t", pane))
			return res.Kind == termprompt.MultipleChoice && res.Question == ask.Question
		})
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(percentileMS(samples, 50), "p50-ms")
	b.ReportMetric(percentileMS(samples, 99), "p99-ms")
	b.ReportMetric(percentileMS(samples, 100), "max-ms")
}

// percentileMS returns the p-th percentile (nearest rank) of samples, in milliseconds.
func percentileMS(samples []time.Duration, p float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return float64(s[max(0, min(i, len(s)-1))]) / float64(time.Millisecond)
}
