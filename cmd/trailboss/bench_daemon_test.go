package main

// Benchmarks of the running daemon as its own process: how fast a transcript's progress
// dequeues its session, what the daemon costs when nothing happens, and its memory with a
// thousand sessions queued. Sessions have real transcripts (copies of the adapter's real
// Claude Code fixtures) and, where a pane matters, real panes on a real tmux server.

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// BenchmarkTranscriptToDequeue times a human answering in the pane, seen only in the
// transcript: a stuck session's transcript gets a prompt line appended, and the daemon
// (defaults: fsnotify on, 10 s sweep) must notice through its watch, read the appended
// bytes and dequeue it. Timed from the write to the first GET /v1/status that says
// nothing is stuck; 20 sessions are registered with their transcripts in four project
// folders, and one of them is stuck again (a Stop hook) before each iteration.
func BenchmarkTranscriptToDequeue(b *testing.B) {
	env := isolatedEnv(b)
	d := startBenchDaemon(b, env)
	const sessions = 20
	paths, cwds := writeTranscripts(b, b.TempDir(), sessions, 4)
	id := func(i int) string { return fmt.Sprintf("session-%04d", i) }
	d.hookAll(b, sessions, func(i int) (map[string]any, string, string) {
		return hookPayload("SessionStart", id(i), cwds[i], paths[i], map[string]any{"source": "startup"}), "", ""
	})
	api := d.api(b)
	ctx := context.Background()
	time.Sleep(200 * time.Millisecond) // the first look at each transcript

	var samples []time.Duration
	for b.Loop() {
		d.hook(b, hookPayload("Stop", id(0), cwds[0], paths[0], map[string]any{"last_assistant_message": "Done?"}), "", "")
		if st, err := api.Status(ctx); err != nil || st.Stuck != 1 {
			b.Fatalf("after a Stop: %+v, %v", st, err)
		}
		time.Sleep(quiet) // and the prompt's millisecond timestamp is after the Stop's
		f, err := os.OpenFile(paths[0], os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := f.Write(promptLine(id(0), t0, "yes, push it")); err != nil {
			b.Fatal(err)
		}
		f.Close()
		for {
			st, err := api.Status(ctx)
			if err == nil && st.Stuck == 0 {
				samples = append(samples, time.Since(t0))
				break
			}
			if time.Since(t0) > 15*time.Second {
				b.Fatalf("still stuck 15 s after the prompt was written (%+v, %v); daemon log:\n%s", st, err, d.log)
			}
			time.Sleep(pollEvery)
		}
	}
	reportLatency(b, "", samples)
}

// BenchmarkIdleCPU measures what the daemon costs when nothing happens: 200 sessions
// queued, each with a real transcript (in 20 project folders) and a pane running an idle
// shell on a real tmux server, the daemon at its defaults (10 s sweep with the liveness
// check, fsnotify on). After the registrations have settled it reads /proc/PID/stat over
// TRAILBOSS_BENCH_IDLE (60 s) in six windows. Reported: the daemon's own utime+stime as a
// share of one core over the whole window (cpu-%, the figure) and per window (p50, p99),
// the CPU of its waited-for children (the tmux commands of its liveness check), the tmux
// server's CPU over the same window, the sum of the three, and the daemon's wakeups per
// second (voluntary context switches of all its threads).
func BenchmarkIdleCPU(b *testing.B) {
	requireSlowBench(b)
	window := envDuration(b, "TRAILBOSS_BENCH_IDLE", 60*time.Second)
	const sessions, windows = 200, 6
	tm := tmuxtest.New(b)
	panes := newPanes(b, tm, "agents", sessions, func(int) string { return "sh" })
	paths, cwds := writeTranscripts(b, b.TempDir(), sessions, 20)
	d := startBenchDaemon(b, tm.Environ)
	tmuxEnv := tmuxEnvValue(b, tm)
	d.hookAll(b, sessions, func(i int) (map[string]any, string, string) {
		return hookPayload("Stop", fmt.Sprintf("session-%04d", i), cwds[i], paths[i],
			map[string]any{"last_assistant_message": "Done. Anything else?"}), panes[i], tmuxEnv
	})
	d.waitQueueLen(b, sessions)
	time.Sleep(5 * time.Second) // first looks, settle, status options: then nothing happens
	pid, server := d.cmd.Process.Pid, tmuxServerPID(b, tm)

	for b.Loop() {
		self0, child0 := procCPU(b, pid)
		tmux0, _ := procCPU(b, server)
		wake0 := wakeups(b, pid)
		start := time.Now()
		var perWindow []time.Duration // the daemon's CPU in each window
		prev := self0
		for w := 1; w <= windows; w++ {
			time.Sleep(time.Until(start.Add(window * time.Duration(w) / windows)))
			self, _ := procCPU(b, pid)
			perWindow = append(perWindow, self-prev)
			prev = self
		}
		elapsed := time.Since(start)
		self1, child1 := procCPU(b, pid)
		tmux1, _ := procCPU(b, server)
		wake1 := wakeups(b, pid)
		pct := func(d time.Duration) float64 { return 100 * d.Seconds() / elapsed.Seconds() }
		b.ReportMetric(pct(self1-self0), "cpu-%")
		windowMS := float64(window/windows) / float64(time.Millisecond)
		b.ReportMetric(100*percentileMS(perWindow, 50)/windowMS, "window-p50-cpu-%")
		b.ReportMetric(100*percentileMS(perWindow, 99)/windowMS, "window-p99-cpu-%")
		b.ReportMetric(pct(child1-child0), "children-cpu-%")
		b.ReportMetric(pct(tmux1-tmux0), "tmux-cpu-%")
		b.ReportMetric(pct(self1-self0+child1-child0+tmux1-tmux0), "total-cpu-%")
		b.ReportMetric(float64(wake1-wake0)/elapsed.Seconds(), "wakeups/s")
		b.ReportMetric(elapsed.Seconds(), "window-s")
	}
	if items, err := d.api(b).Queue(context.Background()); err != nil || len(items) != sessions {
		b.Fatalf("after the idle window %d items are queued (%v), want %d", len(items), err, sessions)
	}
}

// BenchmarkRSS1000 measures the daemon's resident memory with 1,000 sessions queued, each
// with a real transcript (in 50 project folders) and a pane on a real tmux server: after
// the registrations, five reads of the whole queue (what the popup and ls do), and two
// sweeps with their liveness checks (--sweep 2s here, so that they run within the
// benchmark). Reported: VmRSS and the peak VmHWM, in MB.
func BenchmarkRSS1000(b *testing.B) {
	requireSlowBench(b)
	const sessions = 1000
	tm := tmuxtest.New(b)
	panes := newPanes(b, tm, "agents", sessions, func(int) string { return "cat" })
	paths, cwds := writeTranscripts(b, b.TempDir(), sessions, 50)
	d := startBenchDaemon(b, tm.Environ, "--sweep", "2s")
	tmuxEnv := tmuxEnvValue(b, tm)
	d.hookAll(b, sessions, func(i int) (map[string]any, string, string) {
		return hookPayload("Stop", fmt.Sprintf("session-%04d", i), cwds[i], paths[i],
			map[string]any{"last_assistant_message": "Done. Should I open the pull request?"}), panes[i], tmuxEnv
	})
	d.waitQueueLen(b, sessions)
	api := d.api(b)
	pid := d.cmd.Process.Pid
	for b.Loop() {
		for i := 0; i < 5; i++ {
			if items, err := api.Queue(context.Background()); err != nil || len(items) != sessions {
				b.Fatalf("queue: %d items, %v", len(items), err)
			}
		}
		time.Sleep(5 * time.Second)
		b.ReportMetric(float64(procStatusKB(b, pid, "VmRSS"))/1024, "rss-MB")
		b.ReportMetric(float64(procStatusKB(b, pid, "VmHWM"))/1024, "hwm-MB")
	}
	d.waitQueueLen(b, sessions) // the liveness checks retired none: every pane is alive
}
