package copilot

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// Copilot's sessionStart hook fires at the first prompt, not at launch; but at launch it
// lists the session in $COPILOT_HOME/open-sessions-state.json ({"<sessionId>": {"openedAt",
// "refreshedAt", "working"}}) and locks its folder with session-state/<id>/inuse.<pid>.lock.
// LiveStates reads them so that a session appears, on its pane, as Copilot starts.

// OpenSessionsFile is Copilot's list of open sessions, in its configuration folder.
const OpenSessionsFile = "open-sessions-state.json"

// errNotOpenSessions is ReadAll's answer for any other file of the folder.
var errNotOpenSessions = errors.New("not copilot's " + OpenSessionsFile)

// LiveStates is where Copilot lists its open sessions, and how to read them.
type LiveStates struct{}

// OwnDir returns Copilot's configuration folder in an environment: $COPILOT_HOME, else
// ~/.copilot.
func (LiveStates) OwnDir(getenv func(string) string) string { return Home(getenv) }

// DirOf returns the configuration folder of a session's events.jsonl
// (<home>/session-state/<id>/events.jsonl), or "".
func (LiveStates) DirOf(transcriptPath string) string {
	dir := filepath.Dir(filepath.Dir(transcriptPath))
	if filepath.Base(transcriptPath) != "events.jsonl" || filepath.Base(dir) != "session-state" {
		return ""
	}
	return filepath.Dir(dir)
}

// Read is not how Copilot's list is read: ReadAll is.
func (LiveStates) Read(string) (adapter.LiveState, error) {
	return adapter.LiveState{}, errNotOpenSessions
}

// ReadAll returns a LiveState per session open-sessions-state.json at path lists whose
// folder a process holds (inuse.<pid>.lock): its pid, status LiveOpen. Sessions are in id
// order; a session with no lock, or an id that could name another folder, is left out.
func (LiveStates) ReadAll(path string) ([]adapter.LiveState, error) {
	if filepath.Base(path) != OpenSessionsFile {
		return nil, errNotOpenSessions
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var open map[string]json.RawMessage
	if err := json.Unmarshal(b, &open); err != nil {
		return nil, err
	}
	home := filepath.Dir(path)
	var out []adapter.LiveState
	for id := range open {
		if TranscriptPath(home, id) == "" {
			continue
		}
		if pid := lockHolder(filepath.Join(home, "session-state", id)); pid > 0 {
			out = append(out, adapter.LiveState{Harness: Harness, PID: pid, SessionID: id, Status: adapter.LiveOpen})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SessionID < out[j].SessionID })
	return out, nil
}

// lockHolder returns the pid of a session folder's inuse.<pid>.lock (the highest, if a
// stale one is left beside it), or 0.
func lockHolder(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	best := 0
	for _, e := range entries {
		n, ok := strings.CutPrefix(e.Name(), "inuse.")
		if !ok {
			continue
		}
		n, ok = strings.CutSuffix(n, ".lock")
		if pid, err := strconv.Atoi(n); ok && err == nil && pid > best {
			best = pid
		}
	}
	return best
}

// TranscriptPath returns the events.jsonl of the session st names, beside the list at
// stateFile.
func (LiveStates) TranscriptPath(stateFile string, st adapter.LiveState) string {
	return TranscriptPath(filepath.Dir(stateFile), st.SessionID)
}
