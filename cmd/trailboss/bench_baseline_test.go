package main

// The approach Trail Boss is measured against: the dashboards that find waiting agents by
// scraping their panes. Every 500 ms the poller runs `tmux capture-pane -p` for each pane,
// one process after another, hashes the screen, and notices a pane whose hash changed.
// It runs against a real tmux server whose panes each run a small program (cat reading a
// FIFO) that prints a line when the benchmark writes one: the pane's content changes at a
// known moment, and the poller's detection latency is measured from it.

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/hooks"

	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// pollInterval is how often the baseline scrapes every pane, as the popular tools do.
const pollInterval = 500 * time.Millisecond

// poller is the baseline: it scrapes panes and records how long after a change it noticed.
type poller struct {
	tm    *tmuxtest.Env
	panes []string
	last  map[string]uint64 // pane → hash of its last capture

	mu      sync.Mutex
	changed map[string]time.Time // pane → when its content was changed, until noticed
	detect  []time.Duration
	cycles  []time.Duration // how long one scrape of every pane took
}

// pass captures every pane once and notices the ones whose screen changed.
func (p *poller) pass(b *testing.B) {
	start := time.Now()
	for _, pane := range p.panes {
		cmd := exec.Command(p.tm.Server.Bin, "-S", p.tm.Socket, "capture-pane", "-p", "-t", pane)
		cmd.Env = p.tm.Environ
		out, err := cmd.Output()
		if err != nil {
			b.Errorf("capture-pane -t %s: %v", pane, err)
			return
		}
		h := fnv.New64a()
		h.Write(out)
		sum, now := h.Sum64(), time.Now()
		if old, seen := p.last[pane]; seen && old != sum {
			p.mu.Lock()
			if at, ok := p.changed[pane]; ok {
				p.detect = append(p.detect, now.Sub(at))
				delete(p.changed, pane)
			}
			p.mu.Unlock()
		}
		p.last[pane] = sum
	}
	p.mu.Lock()
	p.cycles = append(p.cycles, time.Since(start))
	p.mu.Unlock()
}

// BenchmarkPollingBaseline measures the scraping baseline over 10, 50 and 200 panes, each
// for a window of TRAILBOSS_BENCH_POLL (15 s) in which a random pane's content changes
// every 100–300 ms (none in the last 3 s, so that every change is noticed within the
// window). Reported: the detection latency (change → noticed: p50, p99, max), the
// poller's own CPU (this process and its capture-pane children, getrusage) and the tmux
// server's (/proc/PID/stat) as a share of one core over the window, and how long one
// scrape of every pane takes.
func BenchmarkPollingBaseline(b *testing.B) {
	requireSlowBench(b)
	window := envDuration(b, "TRAILBOSS_BENCH_POLL", 15*time.Second)
	for _, n := range []int{10, 50, 200} {
		b.Run(fmt.Sprintf("panes=%d", n), func(b *testing.B) { pollingBaseline(b, n, window) })
	}
}

func pollingBaseline(b *testing.B, n int, window time.Duration) {
	tm := tmuxtest.New(b)
	fifos := make([]*os.File, n)
	panes := newPanes(b, tm, "agents", n, func(i int) string {
		path := filepath.Join(tm.Dir, fmt.Sprintf("f%03d", i))
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			b.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0) // RDWR: no wait for the reader
		if err != nil {
			b.Fatal(err)
		}
		fifos[i] = f
		return "exec cat " + hooks.ShellWord(path)
	})
	defer func() {
		for _, f := range fifos {
			f.Close()
		}
	}()
	server := tmuxServerPID(b, tm)
	time.Sleep(time.Second) // every pane's cat started and idle

	for b.Loop() {
		p := &poller{tm: tm, panes: panes, last: map[string]uint64{}, changed: map[string]time.Time{}}
		p.pass(b) // the first hashes; not part of the window
		ctx, cancel := context.WithTimeout(context.Background(), window)
		self0, child0 := rusage(b)
		tmux0, _ := procCPU(b, server)
		start := time.Now()
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // the poller
			defer wg.Done()
			t := time.NewTicker(pollInterval)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					p.pass(b)
				}
			}
		}()
		changes := 0
		for until := start.Add(window - 3*time.Second); time.Now().Before(until); {
			time.Sleep(time.Duration(100+rand.IntN(200)) * time.Millisecond)
			i := rand.IntN(n)
			p.mu.Lock()
			if _, pending := p.changed[panes[i]]; pending {
				p.mu.Unlock()
				continue
			}
			p.changed[panes[i]] = time.Now()
			p.mu.Unlock()
			changes++
			if _, err := fmt.Fprintf(fifos[i], "agent %d: step %d done\n", i, changes); err != nil {
				b.Fatal(err)
			}
		}
		<-ctx.Done()
		wg.Wait()
		elapsed := time.Since(start)
		cancel()
		self1, child1 := rusage(b)
		tmux1, _ := procCPU(b, server)
		pct := func(d time.Duration) float64 { return 100 * d.Seconds() / elapsed.Seconds() }
		p.mu.Lock()
		reportLatency(b, "detect-", p.detect)
		b.ReportMetric(float64(changes), "changes")
		b.ReportMetric(float64(len(p.changed)), "missed")
		b.ReportMetric(percentileMS(p.cycles, 50), "scrape-p50-ms")
		p.mu.Unlock()
		poller := self1 - self0 + child1 - child0
		b.ReportMetric(pct(poller), "poller-cpu-%")
		b.ReportMetric(pct(tmux1-tmux0), "tmux-cpu-%")
		b.ReportMetric(pct(poller+tmux1-tmux0), "total-cpu-%")
	}
}
