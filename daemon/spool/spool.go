// Package spool is where a hook leaves the event it could not deliver: the daemon was down,
// or too slow to answer within the hook's budget. The daemon drains the spool in emitted
// order when it starts and whenever it sweeps, so an event a hook saw is not lost to a
// daemon restart or a burst. Each event is one small file, written whole and then renamed
// into place, so a reader never sees half of one.
package spool

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
)

// Dir is the spool's folder inside the state directory.
const Dir = "spool"

// Limits: a spool that nobody drains (no daemon ever started) stays small, and an event
// older than MaxAge says nothing true any more when it is finally read.
const (
	MaxFiles = 1000
	MaxAge   = 24 * time.Hour
)

// ErrFull is returned when the spool already holds MaxFiles events.
var ErrFull = errors.New("spool is full")

// Generic is the Harness of a spooled generic envelope (POST /v1/events).
const Generic = "generic"

// Event is a hook's payload with what the emitter knew beside it.
type Event struct {
	Harness   string    `json:"harness"` // which adapter reads Body: "claude", "codex", or Generic
	Pane      string    `json:"pane"`
	Tmux      string    `json:"tmux"`
	EmittedAt time.Time `json:"emitted_at"`
	Body      []byte    `json:"body"` // the payload exactly as the harness wrote it
}

// Write adds ev to the spool of stateDir.
func Write(stateDir string, ev Event) error {
	// Never leave an agent's words in a directory another user owns or can read.
	if _, _, err := statedir.Ensure(stateDir); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	dir := filepath.Join(stateDir, Dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) >= MaxFiles {
		return fmt.Errorf("%w (%d events waiting for the daemon)", ErrFull, len(entries))
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	// The name sorts in emitted order; pid and random bytes keep names apart.
	name := fmt.Sprintf("%020d-%d-%s.json", ev.EmittedAt.UnixNano(), os.Getpid(), hex.EncodeToString(suffix))
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("spool: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// Entry is one spooled event and the file that holds it.
type Entry struct {
	Path  string
	Event Event
	Err   error // the file could not be read or decoded: drop it
}

// List returns the spooled events of stateDir in emitted order.
func List(stateDir string) ([]Entry, error) {
	dir := filepath.Join(stateDir, Dir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	out := make([]Entry, 0, len(names))
	for _, n := range names {
		path := filepath.Join(dir, n)
		en := Entry{Path: path}
		b, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(b, &en.Event)
		}
		en.Err = err
		out = append(out, en)
	}
	return out, nil
}
