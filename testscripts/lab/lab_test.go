package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs this test binary as a synthetic child when TRAILBOSS_LAB_CHILD names one
// (as `trailboss lab child` does), and as the tests otherwise.
func TestMain(m *testing.M) {
	if name := os.Getenv("TRAILBOSS_LAB_CHILD"); name != "" {
		if err := RunChild(context.Background(), name, os.Getenv("TRAILBOSS_LAB_RECORD")); err != nil {
			fmt.Fprintln(os.Stderr, "lab child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLabChildRecordsWhatItWritesAndReads runs a synthetic child on pipes: it writes its
// prompt, and records the prompt and exactly the bytes it read.
func TestLabChildRecordsWhatItWritesAndReads(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "child.jsonl")
	cmd := exec.Command(os.Args[0]) // this test binary, as the child (TestMain)
	cmd.Env = append(os.Environ(), "TRAILBOSS_LAB_CHILD=sequential-prompts", "TRAILBOSS_LAB_RECORD="+rec)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rig{record: rec}
	// One answer at a time, each once its prompt is out, as a terminal would pass them.
	for _, step := range []struct{ prompt, answer string }{{promptOverwriteSeq, "y\r"}, {promptFilename, "notes.txt\r"}} {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if _, ok := r.saidAt(step.prompt); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the child did not ask %q within 5 s", step.prompt)
			}
		}
		if _, err := io.WriteString(in, step.answer); err != nil {
			t.Fatal(err)
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if want := promptOverwriteSeq + "\n" + promptFilename + "\n"; out.String() != want {
		t.Errorf("the child wrote %q, want %q", out.String(), want)
	}
	got, _ := r.readSoFar()
	if got != "y\rnotes.txt\r" {
		t.Errorf("the child recorded reading %q, want %q", got, "y\rnotes.txt\r")
	}
	if _, ok := r.saidAt(promptFilename); !ok {
		t.Errorf("the child's record has no write of %q: %+v", promptFilename, r.events())
	}
	var evs []string
	for _, ev := range r.events() {
		evs = append(evs, ev.Ev)
	}
	if want := []string{"start", "said", "read", "said", "said", "read", "said", "exit"}; !slices.Equal(evs, want) {
		t.Errorf("the child recorded %q, want %q", evs, want)
	}
}

func TestLabCatalogue(t *testing.T) {
	ids, names := map[string]bool{}, map[string]bool{}
	for _, s := range scenarios {
		if ids[s.id] || names[s.name] {
			t.Errorf("%s %s: id or name used twice", s.id, s.name)
		}
		ids[s.id], names[s.name] = true, true
		if _, ok := children[s.child]; !ok {
			t.Errorf("%s runs child %q, which does not exist", s.id, s.child)
		}
		if s.run == nil || s.about == "" {
			t.Errorf("%s has no run or no about", s.id)
		}
		if Find(strings.ToLower(s.id)) != s || Find(strings.ToUpper(s.name)) != s {
			t.Errorf("%s is not found by its id and name in any case", s.id)
		}
	}
	var want []string
	for i := 1; i <= 19; i++ {
		want = append(want, fmt.Sprintf("QA-%03d", i))
		if i == 14 { // issue 18's: text bound to what the person saw, a message too long
			want = append(want, "QA-014b", "QA-014c")
		}
	}
	want = append(want, "I18-03", "I18-05", "I18-08") // issue 18's, after AtlasBridge's
	want = append(want, "I29-05")                     // issue 29's
	var got []string
	for _, s := range scenarios {
		got = append(got, s.id)
		// The Telegram scenarios run against the fake Bot API, the others need none.
		phone := s.id >= "QA-010" && s.id <= "QA-017"
		if s.telegram != phone {
			t.Errorf("%s: telegram = %v, want %v", s.id, s.telegram, phone)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the catalogue is %q, want %q", got, want)
	}
}

func TestLabDetailKeepsItsOrder(t *testing.T) {
	d := detail{{key: "settle_ms", value: 400}, {key: "kind", value: "yes_no"}, {key: "a", value: []string{"x"}}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"settle_ms":400,"kind":"yes_no","a":["x"]}`; string(b) != want {
		t.Errorf("detail marshals to %s, want %s", b, want)
	}
	var back detail
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[0].key != "settle_ms" || back.get("kind") != "yes_no" || back[2].key != "a" {
		t.Errorf("detail reads back as %+v", back)
	}
}

func TestProcessCPUAndRSS(t *testing.T) {
	cpu0, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the kernel has counted 100 ms of this process's CPU (getrusage), not for
	// 100 ms of wall time, which a busy machine may give to others: /proc must agree.
	used := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := used()
	for deadline := time.Now().Add(30 * time.Second); used()-start < 100*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatal("the process got less than 100 ms of CPU in 30 s")
		}
	}
	cpu1, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if cpu1-cpu0 < 70*time.Millisecond { // /proc counts in 10 ms ticks
		t.Errorf("100 ms of CPU by getrusage counted as %v in /proc", cpu1-cpu0)
	}
	m, err := processMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.rss < 1<<20 || m.peak < m.rss || m.anon <= 0 || m.file <= 0 || m.anon+m.file > m.rss {
		t.Errorf("resident memory %+v: want at least 1 MB, a peak no lower, and anonymous and file parts within it", m)
	}
	if processAlive(1 << 30) {
		t.Error("a pid that cannot exist is alive")
	}
}
