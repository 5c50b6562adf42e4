package main

// The real Claude Code answered with text through Trail Boss as soon as it stops: its Stop
// hook fires a moment before it draws its input box, and an answer from the popup can come
// within 0.1 s of the stop. The answer waits (briefly) for the box, is typed once, and the
// next turn runs.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
)

func TestRealClaudeCodeTextAnsweredAtTheStop(t *testing.T) {
	eachClaude(t, realClaudeCodeTextAnsweredAtTheStop)
}

func realClaudeCodeTextAnsweredAtTheStop(t *testing.T, cc claudeSetup) {
	w := newClaudeWorld(t, cc)
	deliveryOn(t, envValue(w.env, "XDG_CONFIG_HOME"))
	w.stopDaemon()
	w.restartDaemon() // reads the config
	pane := w.startClaude()

	w.typeLine(pane, "say hi")
	// Each turn's end is answered as soon as it is queued, and the answer starts the next
	// turn. The race this test is about needs the answer within 0.2 s of the stop; a loaded
	// machine can see the stop later than that, so up to three turns are tried.
	const early = 200 * time.Millisecond
	for turn := 1; ; turn++ {
		// With its words: the live state can queue the turn's end a moment before the Stop
		// hook brings them, and the record made then gives way to the one with the words.
		it, _ := w.waitItem(pane, "the turn's end, waiting for text, with its words", 20*time.Second, func(it client.Item) bool {
			return it.Prompt != nil && it.Prompt.Kind == wire.KindFreeText && it.Prompt.Question != ""
		})
		p := it.Prompt
		after := time.Since(it.Since)
		text := fmt.Sprintf("say hi once more %d", turn)
		got, err := w.answer(p.ID, wire.Answer{Text: text})
		if err != nil || !got.Delivered || got.Via != wire.ViaKeys {
			t.Fatalf("a text answered %v after the stop: %+v, %v; want it typed into the pane; it shows:\n%s",
				after.Round(time.Millisecond), got, err, w.screen(pane))
		}
		t.Logf("turn %d: answered %v after the stop: %+v", turn, after.Round(time.Millisecond), got)
		// The turn runs and ends again: queued anew, later.
		w.waitItem(pane, "the answered turn's end", 20*time.Second, func(next client.Item) bool {
			return isStopped(next) && next.Since.After(it.Since)
		})
		w.typedOnce(it.TranscriptPath, text)
		if after <= early {
			return
		}
		if turn == 3 {
			t.Fatalf("no answer could be posted within %v of its stop in three turns (the last %v after)", early, after)
		}
	}
}

// typedOnce fails unless transcript has text as a prompt of the person's exactly once: the
// transcript's user lines that carry it (as a string or as a text block, as Claude Code
// writes either). Claude Code writes its transcript a moment after the hooks fire (seen:
// the second turn's Stop before its prompt's line), so the line is waited for.
func (w *claudeWorld) typedOnce(transcript, text string) {
	w.t.Helper()
	var b []byte
	var prompts []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if b, err = os.ReadFile(transcript); err != nil {
			w.t.Fatal(err)
		}
		prompts = prompts[:0]
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, `"type":"user"`) && strings.Contains(l, text) {
				prompts = append(prompts, l)
			}
		}
		if len(prompts) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(prompts) != 1 {
		w.t.Fatalf("the transcript %s has the answer %q as a prompt %d times, want once:\n%s", filepath.Base(transcript), text, len(prompts), b)
	}
}
