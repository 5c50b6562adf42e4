package emit

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestStartTicksReadsPastAStrangeCommandName(t *testing.T) {
	line := "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 10 18446744073709551615"
	n, ok := startTicks([]byte(line))
	if !ok || n != 98765 {
		t.Fatalf("startTicks = %d, %v; want 98765", n, ok)
	}
	for _, bad := range []string{"", "4242 (x S 1", "4242 (x) S 1 2 3", "4242 (x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 soon 1"} {
		if _, ok := startTicks([]byte(bad)); ok {
			t.Errorf("startTicks(%q) read a start", bad)
		}
	}
}

// A hook that took long to get going is stamped when it began, not when it got there: a
// child that waits 300 ms before it reads its start says it started after it was spawned
// and 300 ms before it read the clock.
func TestStartedIsWhenTheProcessBegan(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/stat is Linux's")
	}
	spawned := time.Now()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "TRAILBOSS_HELPER_STARTED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	var started, read time.Time
	for l := range strings.Lines(string(out)) {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "started" {
			started, _ = time.Parse(time.RFC3339Nano, f[1])
			read, _ = time.Parse(time.RFC3339Nano, f[2])
		}
	}
	if started.IsZero() || read.IsZero() {
		t.Fatalf("the helper printed %q", out)
	}
	if started.Before(spawned.Add(-2*time.Millisecond)) || read.Sub(started) < 290*time.Millisecond {
		t.Fatalf("a process spawned at %s that read the clock at %s says it started at %s",
			spawned.Format(time.StampMicro), read.Format(time.StampMicro), started.Format(time.StampMicro))
	}
}

// TestMain lets this test binary be TestStartedIsWhenTheProcessBegan's child: it waits a
// moment (a hook slow to get going), then prints when it started and when it looked.
func TestMain(m *testing.M) {
	if os.Getenv("TRAILBOSS_HELPER_STARTED") == "1" {
		time.Sleep(300 * time.Millisecond)
		fmt.Println("started", Started().Format(time.RFC3339Nano), time.Now().Format(time.RFC3339Nano))
		os.Exit(0)
	}
	os.Exit(m.Run())
}
