package emit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/opencode"
	"github.com/trailboss/trailboss/daemon/statedir"
)

// EmitOpenCode posts one event of Trail Boss's OpenCode plugin (hooks/install/opencode.js),
// read from Stdin, with the tmux place of the OpenCode that started it, and spools it
// unless the daemon acknowledges it in time, as Emit does. The plugin starts it detached and
// never waits for it, so OpenCode is never slowed, whatever the daemon does.
//
// With Hold, a permission or a question says it can hold. When the daemon answers that it
// should, EmitOpenCode waits for the operator's answer and prints the plugin's reply on
// Stdout, one JSON line (opencode.Reply), which the plugin gives OpenCode through its own
// client: no key is typed. It prints nothing when the prompt stops waiting without an
// answer (the keyboard answered first, it expired) or the daemon goes away: the dialog is
// the keyboard's.
func (e *Emitter) EmitOpenCode(ctx context.Context) error {
	started := e.Now()
	body, err := readPayload(ctx, e.Stdin)
	if err != nil {
		return fmt.Errorf("read opencode payload: %w", err)
	}
	at := pluginTime(body, started)
	if loaded, ok := pluginLoaded(body, at); ok {
		return writeLoaded(e.StateDir, loaded)
	}
	if !e.Hold || !opencode.Holdable(body) {
		ctx, cancel := context.WithTimeout(ctx, e.Timeout)
		defer cancel()
		return e.emitHook(ctx, opencode.Harness, at, body, nil)
	}
	w, hold, err := e.postAndAwait(ctx, opencode.Harness, at, started, body)
	if err != nil || w == nil {
		return err
	}
	p, _ := opencode.DecodePayload(body) // decoded by the daemon already
	if w.Subject != p.Properties.ID {
		return fmt.Errorf("prompt %s was answered, but it is not OpenCode's request %s (it names %q); nothing replied, the dialog is left to the keyboard",
			hold.PromptID, p.Properties.ID, w.Subject)
	}
	if w.Answer == nil {
		return fmt.Errorf("prompt %s was answered with nothing; nothing replied, the dialog is left to the keyboard", hold.PromptID)
	}
	reply, err := opencode.ReplyFor(body, w.Answer.Choice)
	if err != nil {
		return fmt.Errorf("prompt %s was answered, but: %w (nothing replied; the dialog is left to the keyboard)", hold.PromptID, err)
	}
	out, err := json.Marshal(reply)
	if err != nil {
		return err
	}
	return e.print(hold.PromptID, append(out, '\n'))
}

// OpenCodePluginLoaded, in the state directory, says which plugin the OpenCode that started
// last loaded, when, and its pid: the plugin reports it as it loads ("plugin.loaded"), for
// trailboss doctor. Nothing goes to the daemon.
const OpenCodePluginLoaded = "opencode-plugin.json"

// LoadedPlugin is what OpenCodePluginLoaded holds.
type LoadedPlugin struct {
	Plugin string    `json:"plugin"` // install.OpenCodePluginID of the plugin that was loaded
	PID    int       `json:"pid"`    // OpenCode's
	At     time.Time `json:"at"`
}

// pluginLoaded returns what OpenCodePluginLoaded is to hold, when body is the plugin saying
// it was loaded at at.
func pluginLoaded(body []byte, at time.Time) ([]byte, bool) {
	var p struct {
		Type   string `json:"type"`
		Plugin string `json:"plugin"`
		PID    int    `json:"pid"`
	}
	if json.Unmarshal(body, &p) != nil || p.Type != "plugin.loaded" {
		return nil, false
	}
	b, err := json.Marshal(LoadedPlugin{Plugin: adapter.CleanText(p.Plugin, 40), PID: p.PID, At: at.UTC()})
	return b, err == nil
}

// writeLoaded replaces dir's OpenCodePluginLoaded with b: a temp file renamed, so doctor
// never reads half of one.
func writeLoaded(dir string, b []byte) error {
	if _, _, err := statedir.Ensure(dir); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+OpenCodePluginLoaded+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, nothing
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, OpenCodePluginLoaded))
}

// pluginTime is when the plugin saw the event (its "at", in milliseconds since the epoch),
// or fallback when it did not say or says nonsense. The plugin starts one process per event,
// and processes started together run in any order: the plugin's clock keeps their order.
func pluginTime(body []byte, fallback time.Time) time.Time {
	var p struct {
		At float64 `json:"at"`
	}
	if json.Unmarshal(body, &p) != nil || p.At <= 0 || math.IsInf(p.At, 0) || math.IsNaN(p.At) {
		return fallback
	}
	at := time.UnixMicro(int64(math.Round(p.At * 1000)))
	if at.Before(fallback.Add(-time.Hour)) || at.After(fallback.Add(time.Minute)) {
		return fallback // a clock that far off is not the plugin's
	}
	return at
}
