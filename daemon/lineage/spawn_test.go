package lineage

import (
	"os/exec"
	"testing"
	"time"
)

func TestSpawnedIsWhatTheAgentStarted(t *testing.T) {
	fakeProc(t, map[int]Proc{
		500: {Comm: "trailboss", PPID: 400, Start: 50}, // claude → sh -c → trailboss emit
		400: {Comm: "sh", PPID: 300, Start: 40},
		300: {Comm: "claude", PPID: 200, Start: 30},
		200: {Comm: "bash", PPID: 100, Start: 20},
		100: {Comm: "tmux: server", PPID: 1, Start: 10},
		600: {Comm: "trailboss", PPID: 300, Start: 60}, // started by the agent itself
	})
	for _, c := range []struct {
		hook int
		want Spawn
	}{{500, Spawn{Start: 40, PID: 400, Parent: 300}}, {600, Spawn{Start: 60, PID: 600, Parent: 300}}} {
		if got, ok := Spawned(c.hook); !ok || got != c.want {
			t.Errorf("Spawned(%d) = %+v, %v; want %+v", c.hook, got, ok, c.want)
		}
	}
	if got, ok := Spawned(999); ok || got.Known() {
		t.Errorf("Spawned(a pid that is gone) = %+v, %v; want nothing", got, ok)
	}
}

func TestSpawnBefore(t *testing.T) {
	max := pidMax()
	for _, c := range []struct {
		a, b Spawn
		want bool
	}{
		{Spawn{Start: 10, PID: 900}, Spawn{Start: 11, PID: 100}, true}, // an earlier tick first
		{Spawn{Start: 11, PID: 100}, Spawn{Start: 10, PID: 900}, false},
		{Spawn{Start: 10, PID: 100}, Spawn{Start: 10, PID: 101}, true}, // one tick: pid order
		{Spawn{Start: 10, PID: 101}, Spawn{Start: 10, PID: 100}, false},
		{Spawn{Start: 10, PID: max - 2}, Spawn{Start: 10, PID: 301}, true}, // pids wrapped
		{Spawn{Start: 10, PID: 301}, Spawn{Start: 10, PID: max - 2}, false},
		{Spawn{Start: 10, PID: 100}, Spawn{Start: 10, PID: 100}, false}, // the same process
	} {
		if got := c.a.Before(c.b); got != c.want {
			t.Errorf("%+v.Before(%+v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestLatestIsWhenTheProcessStarted: a child's latest start, read from /proc and the boot
// clock, is within a tick or two of the wall time it was started at, and never a tick
// before the time read before starting it.
func TestLatestIsWhenTheProcessStarted(t *testing.T) {
	before := time.Now()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	after := time.Now()
	spawn, ok := Spawned(cmd.Process.Pid)
	if !ok {
		t.Fatal("cannot read the child's spawn")
	}
	latest, ok := spawn.Latest(time.Now())
	if !ok {
		t.Fatal("no latest start for a known spawn")
	}
	tick := time.Second / ticksPerSecond
	if latest.Before(before.Add(-tick)) || latest.After(after.Add(2*tick)) {
		t.Fatalf("latest start %v, started between %v and %v", latest, before, after)
	}
	if _, ok := (Spawn{}).Latest(time.Now()); ok {
		t.Error("an unknown spawn has a latest start")
	}
}
