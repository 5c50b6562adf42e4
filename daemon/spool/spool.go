// Package spool is where a hook leaves the event it could not deliver: the daemon was down,
// or too slow to answer within the hook's budget. The daemon drains the spool in emitted
// order when it starts and whenever it sweeps, so an event a hook saw is not lost to a
// daemon restart or a burst. Each event is one small file, written whole, flushed to disk
// and then renamed into place, so a reader never sees half of one and a crash loses none
// that Write reported kept.
//
// The spool is bounded by count and by bytes. When it is full, Write drops the oldest
// events to make room, never the one it is writing, and never the latest event of another
// session while an older one of any session is left: what a person must see is what
// happened last.
package spool

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/daemon/statedir"
)

// Dir is the spool's folder inside the state directory.
const Dir = "spool"

// Limits: a spool that nobody drains (no daemon ever started) stays small, and an event
// older than MaxAge says nothing true any more when it is finally read. Variables so that
// tests can reach them with few events.
var (
	MaxFiles       = 1000
	MaxBytes int64 = 32 << 20
)

// MaxAge is how old a spooled event may be when it is applied.
const MaxAge = 24 * time.Hour

// ErrTooBig is returned for one event larger than a quarter of MaxBytes: keeping it would
// push out too much else. Emit slims a payload to what its adapter reads first, so only a
// hostile one comes near.
var ErrTooBig = errors.New("event too big for the spool")

// Generic is the Harness of a spooled generic envelope (POST /v1/events).
const Generic = "generic"

// Event is a hook's payload with what the emitter knew beside it.
type Event struct {
	Harness string `json:"harness"` // which adapter reads Body: "claude", "codex", or Generic
	Pane    string `json:"pane"`
	Tmux    string `json:"tmux"`
	// Program is the program that ran the hook, as the emitter read it (lineage.Claim's
	// words): the daemon checks it when it drains the event.
	Program   string    `json:"program,omitempty"`
	EmittedAt time.Time `json:"emitted_at"`
	Body      []byte    `json:"body"` // the payload as the harness wrote it, slimmed to what its adapter reads
}

// LockFile, beside the spool's folder, serializes writers, so that two hooks making room
// at once keep the bounds.
const LockFile = "spool.lock"

// Write adds ev to the spool of stateDir, on disk when it returns nil, and returns how many
// older events it dropped to keep the spool within MaxFiles and MaxBytes.
func Write(stateDir string, ev Event) (dropped int, err error) {
	// Never leave an agent's words in a directory another user owns or can read.
	if _, _, err := statedir.Ensure(stateDir); err != nil {
		return 0, fmt.Errorf("spool: %w", err)
	}
	dir := filepath.Join(stateDir, Dir)
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("spool: %w", err)
	}
	if errors.Is(statErr, os.ErrNotExist) {
		if err := statedir.SyncDir(stateDir); err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return 0, fmt.Errorf("spool: %w", err)
	}
	if int64(len(b)) > MaxBytes/4 {
		return 0, fmt.Errorf("%w (%d bytes)", ErrTooBig, len(b))
	}
	unlock, err := lock(filepath.Join(stateDir, LockFile))
	if err != nil {
		return 0, fmt.Errorf("spool: %w", err)
	}
	defer unlock()
	key := sessionKey(ev)
	dropped, err = makeRoom(dir, key, int64(len(b)))
	if err != nil {
		return dropped, fmt.Errorf("spool: %w", err)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	// The name sorts in emitted order and says whose event it is; pid and random bytes keep
	// names apart.
	name := fmt.Sprintf("%020d-%s-%d-%s.json", ev.EmittedAt.UnixNano(), key, os.Getpid(), hex.EncodeToString(suffix))
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return dropped, fmt.Errorf("spool: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err == nil {
		err = statedir.SyncDir(dir)
	}
	if err != nil {
		return dropped, fmt.Errorf("spool: %w", err)
	}
	return dropped, nil
}

func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// sessionKey names ev's session in a file name: a short hash of the harness and the
// session id the payload carries (a hook's session_id, Codex's thread-id, a generic
// envelope's session), else of the pane it came from.
func sessionKey(ev Event) string {
	var p struct {
		Hook    string `json:"session_id"`
		Thread  string `json:"thread-id"`
		Generic string `json:"session"`
	}
	_ = json.Unmarshal(ev.Body, &p)
	id := p.Hook + p.Thread + p.Generic
	if id == "" {
		id = "pane " + ev.Pane + " " + ev.Tmux
	}
	sum := sha256.Sum256([]byte(ev.Harness + "\x00" + id))
	return hex.EncodeToString(sum[:8])
}

// keyOf returns the session key in a spool file's name.
func keyOf(name string) string {
	parts := strings.SplitN(name, "-", 3)
	if len(parts) < 3 {
		return name
	}
	return parts[1]
}

// staleTemp is how old a temporary file must be to be a crashed writer's leftover.
const staleTemp = time.Minute

// makeRoom removes the oldest events of dir until one more of need bytes, of the session
// key, fits within MaxFiles and MaxBytes, and returns how many it removed. The latest event
// of every other session goes last.
func makeRoom(dir, key string, need int64) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	type file struct {
		name string
		size int64
	}
	var files []file
	var total int64
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // drained meanwhile
		}
		if strings.HasPrefix(e.Name(), ".tmp-") && time.Since(fi.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		total += fi.Size()
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			files = append(files, file{e.Name(), fi.Size()})
		}
	}
	if len(files)+1 <= MaxFiles && total+need <= MaxBytes {
		return 0, nil
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	latest := map[string]string{}
	for _, f := range files {
		latest[keyOf(f.name)] = f.name
	}
	// Oldest first; the latest of each other session after every other event.
	var order []file
	var last []file
	for _, f := range files {
		k := keyOf(f.name)
		if latest[k] == f.name && k != key {
			last = append(last, f)
		} else {
			order = append(order, f)
		}
	}
	order = append(order, last...)
	count, dropped := len(files), 0
	for _, f := range order {
		if count+1 <= MaxFiles && total+need <= MaxBytes {
			break
		}
		if err := os.Remove(filepath.Join(dir, f.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return dropped, err
		}
		count--
		total -= f.size
		dropped++
	}
	return dropped, nil
}

// List returns the paths of the spooled events of stateDir in emitted order. It reads no
// event: the drain reads each with Read as it applies it, so that a spool of any size
// costs the memory of one event.
func List(stateDir string) ([]string, error) {
	dir := filepath.Join(stateDir, Dir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	var paths []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(paths)
	return paths, nil
}

// Read returns the event spooled in path; an error means the file cannot be read or
// decoded, and is to be dropped.
func Read(path string) (Event, error) {
	var ev Event
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &ev)
	}
	return ev, err
}
