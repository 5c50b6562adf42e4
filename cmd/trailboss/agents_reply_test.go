package main

// The real Claude Code answered with text through Trail Boss as soon as it stops: its Stop
// hook fires a moment before it draws its input box, and an answer from the popup can come
// within 0.1 s of the stop. The answer waits (briefly) for the box, is typed once, and the
// next turn runs.

import (
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
	it, p := w.waitPrompt(pane, "the turn's end, waiting for text", wire.KindFreeText, 20*time.Second)
	after := time.Since(it.Since)
	got, err := w.answer(p.ID, wire.Answer{Text: "say hi once more"})
	if err != nil || !got.Delivered || got.Via != wire.ViaKeys {
		t.Fatalf("a text answered %v after the stop: %+v, %v; want it typed into the pane; it shows:\n%s",
			after.Round(time.Millisecond), got, err, w.screen(pane))
	}
	t.Logf("answered %v after the stop: %+v", after.Round(time.Millisecond), got)

	// The turn runs and ends again: queued anew, later.
	w.waitItem(pane, "the answered turn's end", 20*time.Second, func(next client.Item) bool {
		return isStopped(next) && next.Since.After(it.Since)
	})
	// The person's prompts are the transcript's user lines that carry the text (as a string
	// or as a text block, as Claude Code writes either). Claude Code writes its transcript a
	// moment after the hooks fire (seen: the second turn's Stop before its prompt's line), so
	// the line is waited for; then it must be there once.
	var b []byte
	var prompts []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if b, err = os.ReadFile(it.TranscriptPath); err != nil {
			t.Fatal(err)
		}
		prompts = prompts[:0]
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, `"type":"user"`) && strings.Contains(l, "say hi once more") {
				prompts = append(prompts, l)
			}
		}
		if len(prompts) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(prompts) != 1 {
		t.Fatalf("the transcript %s has the answer as a prompt %d times, want once:\n%s", filepath.Base(it.TranscriptPath), len(prompts), b)
	}
}
