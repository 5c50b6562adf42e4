package main

// Issue 30 at internet scale: a hub with 50 [[hosts]], each a daemon with 200 sessions
// stuck. What the hub costs is measured here: its memory and CPU holding 10,000 remote
// items, its CPU per remote event, and how long a remote item takes to be in its queue.
//
// The ssh transport itself is not in these figures: BenchmarkRemoteItemLatency measures a
// remote item over real OpenSSH and a second Unix user. Here the hub's "ssh" is a stand-in
// on its PATH that execs `trailboss bridge --state-dir` of the host it is asked for, so
// that each host is a real daemon reached through a real bridge process, speaking the same
// HTTP stream, without 50 sshd sessions sharing the two cores with what is measured.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
)

// hubWorld is a hub daemon and the daemons of its hosts.
type hubWorld struct {
	hub    *liveDaemon
	hubAPI *client.Client
	hosts  []*liveDaemon // hosts[i] is [[hosts]] name host(i)
	// tmuxDir holds each host's tmux socket, named after it.
	tmuxDir string
}

func hostName(i int) string { return fmt.Sprintf("host%02d", i) }

// newHubWorld starts n host daemons, each with perHost Stop events queued (200 sessions
// an agent each, in panes of a tmux server that is not there: the hosts' pane checks are
// off, --sweep 1h and --screen-tick 0, as they belong to those machines, not the hub), and
// a hub with a [[hosts]] entry for each, reached through the ssh stand-in.
func newHubWorld(b *testing.B, n, perHost int) *hubWorld {
	b.Helper()
	bin, err := exec.LookPath(benchBin())
	if err != nil {
		b.Fatal(err)
	}
	if bin, err = filepath.Abs(bin); err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	w := &hubWorld{}
	hostEnv := withEnv(isolatedEnv(b), "TRAILBOSS_ADDR=", "TRAILBOSS_STATE_DIR=")
	w.tmuxDir = filepath.Join(root, "tmux")
	if err := os.Mkdir(w.tmuxDir, 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		// The host's tmux socket, which its hooks name: a socket file that nothing listens
		// on (bound, then closed and left), as the daemon checks that it is one.
		ln, err := net.Listen("unix", filepath.Join(w.tmuxDir, hostName(i)))
		if err != nil {
			b.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		ln.Close()
		dir := filepath.Join(root, hostName(i))
		w.hosts = append(w.hosts, spawnDaemon(b, bin, dir, hostEnv, "--sweep", "1h", "--no-watch", "--screen-tick", "0"))
	}
	began := time.Now()
	for _, d := range w.hosts {
		d.waitReady(b)
	}
	b.Logf("%d host daemons up in %v", n, time.Since(began).Round(time.Millisecond))
	began = time.Now()
	// Every host at once, each its sessions in turn: a commit waits for its fsync, and the
	// hosts' databases are separate files.
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, d := range w.hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range perHost {
				if err := d.postHook(w.stop(i, s)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.Logf("%d Stops posted in %v", n*perHost, time.Since(began).Round(time.Millisecond))

	// The stand-in: ssh's arguments end with "-- DESTINATION COMMAND"; the destination is
	// the host's folder under root.
	stand := filepath.Join(root, "bin")
	script := "#!/bin/sh\n# ssh stand-in for BenchmarkHub50Hosts: a bridge to the local daemon of the destination.\n" +
		"dest=\nprev=\nfor a; do [ \"$prev\" = -- ] && dest=$a; prev=$a; done\n" +
		"exec " + shellQuoteTest(bin) + " bridge --state-dir " + shellQuoteTest(root) + "/\"$dest\"\n"
	if err := os.Mkdir(stand, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stand, "ssh"), []byte(script), 0o700); err != nil {
		b.Fatal(err)
	}
	hubEnv := isolatedEnv(b)
	var conf strings.Builder
	for i := range n {
		fmt.Fprintf(&conf, "[[hosts]]\nname = %q\nssh = %q\n\n", hostName(i), hostName(i))
	}
	config := filepath.Join(envValue(hubEnv, "XDG_CONFIG_HOME"), "trailboss", "config.toml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(conf.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	hubEnv = withEnv(hubEnv, "PATH="+stand+string(os.PathListSeparator)+os.Getenv("PATH"), "TRAILBOSS_ADDR=", "TRAILBOSS_STATE_DIR=")
	w.hub = launchDaemon(b, bin, filepath.Join(root, "hub"), hubEnv)
	w.hubAPI = w.hub.api(b)
	return w
}

// stop is the Stop hook of session s on host i, from its own pane.
func (w *hubWorld) stop(i, s int) (map[string]any, string, string) {
	return hookPayload("Stop", sessionOf(i, s), fmt.Sprintf("/work/project-%d", s%20), "",
			map[string]any{"last_assistant_message": "Done. Should I open the pull request for the migration?"}),
		"%" + strconv.Itoa(s+1), fmt.Sprintf("%s,%d,0", filepath.Join(w.tmuxDir, hostName(i)), 1000+i)
}

// prompt is the UserPromptSubmit of session s on host i: its item leaves the queue.
func (w *hubWorld) prompt(i, s int) (map[string]any, string, string) {
	return hookPayload("UserPromptSubmit", sessionOf(i, s), fmt.Sprintf("/work/project-%d", s%20), "",
			map[string]any{"prompt": "yes, go on"}),
		"%" + strconv.Itoa(s+1), fmt.Sprintf("%s,%d,0", filepath.Join(w.tmuxDir, hostName(i)), 1000+i)
}

func sessionOf(i, s int) string { return fmt.Sprintf("%s-session-%04d", hostName(i), s) }

// waitRemote waits until the hub holds n remote items from connected hosts.
func (w *hubWorld) waitRemote(b *testing.B, n int, timeout time.Duration) {
	b.Helper()
	got := -1
	waitUntil(b, fmt.Sprintf("%d remote items on the hub (last %d)", n, got), timeout, func() bool {
		st, err := w.hubAPI.Status(context.Background())
		got = st.Remote
		return err == nil && st.Remote == n && len(st.Unreachable) == 0
	})
}

// BenchmarkHub50Hosts: 50 hosts × 200 sessions, each host a real daemon reached by the
// real hub through a real `trailboss bridge` (an ssh stand-in; see the file's comment).
// Reported:
//   - hub-rss-MB, hub-hwm-MB: the hub's VmRSS and VmHWM holding the 10,000 items;
//   - idle-cpu-%: the hub's CPU (utime+stime of /proc/PID/stat) over 10 s of nothing
//     happening but the hosts' heartbeats;
//   - event-cpu-ms: the hub's CPU per remote event, over 1,000 events paced at 100 a
//     second, one host after another (500 prompts that take an item out, then 500 Stops
//     that put it back: each changes one host's queue, which that host pushes);
//   - queue-get-ms: one GET /v1/queue of the 10,000 items, as the popup or ls asks;
//   - p50-ms, p99-ms, max-ms: a new Stop posted to a host's daemon (its durable commit
//     included) until the hub holds it (100 samples, one host after another): the hub is
//     polled through GET /v1/status, which counts without encoding 10,000 items, and the
//     samples are then checked in one GET /v1/queue, not timed (that is queue-get-ms).
func BenchmarkHub50Hosts(b *testing.B) {
	if testing.Short() {
		b.Skip("50 daemons and 10,000 items: not under -short")
	}
	const hosts, perHost = 50, 200
	const total = hosts * perHost
	started := time.Now()
	w := newHubWorld(b, hosts, perHost)
	w.waitRemote(b, total, 60*time.Second)
	b.Logf("set up %d hosts × %d sessions in %v", hosts, perHost, time.Since(started).Round(time.Millisecond))
	pid := w.hub.cmd.Process.Pid
	ctx := context.Background()
	for b.Loop() {
		time.Sleep(2 * time.Second) // the connections' first pushes settled
		b.ReportMetric(float64(procStatusKB(b, pid, "VmRSS"))/1024, "hub-rss-MB")
		b.ReportMetric(float64(procStatusKB(b, pid, "VmHWM"))/1024, "hub-hwm-MB")

		// Idle: only the heartbeats (one per host every 5 s).
		const idle = 10 * time.Second
		cpu0, _ := procCPU(b, pid)
		t0 := time.Now()
		time.Sleep(idle)
		cpu1, _ := procCPU(b, pid)
		b.ReportMetric(100*(cpu1-cpu0).Seconds()/time.Since(t0).Seconds(), "idle-cpu-%")

		// Events, paced, one host after another: the hub is not polled meanwhile.
		const events = 1000
		cpu0, _ = procCPU(b, pid)
		tick := time.NewTicker(10 * time.Millisecond)
		// Each host's events go through a worker of its own, so that a slow commit on one
		// (an fsync on a busy disk) does not hold back the pace of the others.
		work := make([]chan int, hosts)
		failed := make(chan error, events)
		var wg sync.WaitGroup
		for i := range work {
			work[i] = make(chan int, events)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for e := range work[i] {
					hook := w.prompt
					if e >= events/2 {
						hook = w.stop
					}
					if err := w.hosts[i].postHook(hook(i, (e/hosts)%(events/2/hosts))); err != nil {
						failed <- err
					}
				}
			}()
		}
		for e := range events {
			<-tick.C
			work[e%hosts] <- e
			if e == events/2-1 {
				// The Stops must come after their prompts: wait for the hub to see the
				// prompts (the ticks missed meanwhile are dropped, not sent in a burst).
				w.waitRemote(b, total-events/2, 30*time.Second)
			}
		}
		for i := range work {
			close(work[i])
		}
		wg.Wait()
		close(failed)
		for err := range failed {
			b.Fatal(err)
		}
		tick.Stop()
		w.waitRemote(b, total, 30*time.Second)
		cpu1, _ = procCPU(b, pid)
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/events, "event-cpu-ms")

		t0 = time.Now()
		if items, err := w.hubAPI.Queue(ctx); err != nil || len(items) != total {
			b.Fatalf("the hub's queue: %d items (%v), want %d", len(items), err, total)
		}
		b.ReportMetric(float64(time.Since(t0).Microseconds())/1000, "queue-get-ms")

		// Latency: a new session stops on one host after another.
		var lat []time.Duration
		var sessions []string
		for k := range 100 {
			i, s := k%hosts, perHost+k
			at := time.Now()
			if err := w.hosts[i].postHook(w.stop(i, s)); err != nil {
				b.Fatal(err)
			}
			session := sessionOf(i, s)
			want := total + k + 1
			var seen time.Time
			waitUntil(b, session+" on the hub", 10*time.Second, func() bool {
				st, err := w.hubAPI.Status(ctx)
				seen = time.Now()
				return err == nil && st.Remote >= want
			})
			lat = append(lat, seen.Sub(at))
			sessions = append(sessions, session)
		}
		// The hub holds them now: its GET /v1/queue lists them (not timed: that is
		// queue-get-ms, a read of all the items).
		items, err := w.hubAPI.Queue(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, session := range sessions {
			if !queued(items, session) {
				b.Fatalf("the hub counted %s but its queue lacks it", session)
			}
		}
		reportLatency(b, "", lat)
	}
}

// shellQuoteTest returns s in single quotes for a POSIX shell.
func shellQuoteTest(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
