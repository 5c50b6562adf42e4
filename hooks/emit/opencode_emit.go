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
	"github.com/trailboss/trailboss/daemon/wire"
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
	// Decoded once, here: what is posted and spooled is body, as the plugin wrote it.
	p, err := opencode.DecodePayload(body)
	if err != nil {
		// Not a payload the daemon would take: posted all the same, for it to say why.
		return e.send(ctx, opencode.Harness, started, started, body, nil)
	}
	at := pluginTime(p.At, started)
	if p.Type == opencode.PluginLoaded {
		return writeLoaded(e.StateDir, pluginLoaded(p, at))
	}
	var req heldRequest
	if e.Hold && p.Holdable() {
		req = openCodeRequest{p}
	}
	return e.send(ctx, opencode.Harness, at, started, body, req)
}

// openCodeRequest is an OpenCode permission or question, decoded once, as the hold
// handshake asks it (heldRequest).
type openCodeRequest struct {
	opencode.Payload
}

// owns returns nil when subject is this request's id, which adapter/opencode makes the
// record's subject.
func (r openCodeRequest) owns(subject string) error {
	if subject != r.Properties.ID {
		return fmt.Errorf("it is not OpenCode's request %s (it names %q)", r.Properties.ID, subject)
	}
	return nil
}

// decision is the plugin's reply (opencode.Reply) for a, one JSON line.
func (r openCodeRequest) decision(a *wire.GivenAnswer) ([]byte, error) {
	reply, err := r.ReplyFor(a.Choice)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(reply)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
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

// pluginLoaded returns what OpenCodePluginLoaded is to hold for p, the plugin saying it was
// loaded at at.
func pluginLoaded(p opencode.Payload, at time.Time) []byte {
	b, _ := json.Marshal(LoadedPlugin{Plugin: adapter.CleanText(p.Plugin, 40), PID: p.PID, At: at.UTC()}) // strings, an int and a time: never fails
	return b
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

// pluginTime is when the plugin saw the event (its "at", ms milliseconds since the epoch),
// or fallback when it did not say or says nonsense. The plugin starts one process per event,
// and processes started together run in any order: the plugin's clock keeps their order.
func pluginTime(ms float64, fallback time.Time) time.Time {
	if ms <= 0 || math.IsInf(ms, 0) || math.IsNaN(ms) {
		return fallback
	}
	at := time.UnixMicro(int64(math.Round(ms * 1000)))
	if at.Before(fallback.Add(-time.Hour)) || at.After(fallback.Add(time.Minute)) {
		return fallback // a clock that far off is not the plugin's
	}
	return at
}
