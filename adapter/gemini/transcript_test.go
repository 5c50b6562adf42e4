package gemini

import (
	"bufio"
	"os"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// TestTranscriptCancel reads a real chat file of Gemini CLI 0.61.0 (a turn, a permission
// allowed, one denied by a No, one refused with Esc): each refusal is an interrupt at the
// moment of the cancel, and the history Gemini writes again after it is skipped, so the
// tail after each cancel says the session waits at its prompt.
func TestTranscriptCancel(t *testing.T) {
	f, err := os.Open("testdata/transcript-cancel-0.61.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []adapter.TranscriptLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := (Transcripts{}).Line(sc.Bytes()); l.Conversation {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var interrupts []time.Time
	for _, l := range lines {
		if l.Prompt {
			t.Errorf("a user record read as a prompt: %+v", l)
		}
		if l.Interrupt {
			interrupts = append(interrupts, l.At)
		}
		if l.Text == "FAKE: hello from the fake model." && !l.At.Before(time.Date(2026, 12, 3, 16, 38, 19, 0, time.UTC)) {
			t.Errorf("a reply replayed after a cancel read as a reply: %+v", l)
		}
	}
	// Each cancel: the cancelled call (at its own moment) and "Request cancelled.".
	want := []string{"16:38:19.907", "16:38:19.909", "16:38:21.435", "16:38:21.437"}
	if len(interrupts) != len(want) {
		t.Fatalf("interrupts at %v, want 4", interrupts)
	}
	for i, at := range interrupts {
		if got := at.Format("15:04:05.000"); got != want[i] {
			t.Errorf("interrupt %d at %s, want %s", i, got, want[i])
		}
	}
	tail, _ := adapter.Tail(lines)
	if tail.State != adapter.TailWaiting || !tail.Interrupt || tail.Detail != adapter.DetailInterrupted {
		t.Errorf("tail after the Esc: %+v", tail)
	}
	// Before the cancels: the first reply ends a turn with its words; a reply whose call ran
	// is progress.
	if l := lines[0]; l.State != adapter.TailWaiting || l.Text != "FAKE: hello from the fake model." || !l.Progress {
		t.Errorf("first reply: %+v", l)
	}
}
