package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Claude Code (observed in 2.1.197) keeps one file per running interactive process,
// <config dir>/sessions/<pid>.json, rewritten on every change of state and removed on exit.
// It is the only source that sees an approval or an Esc the moment it happens. It is not a
// documented interface: the daemon treats it as a cross-check that may be absent.
//
// What the daemon (daemon/watch's LiveStates) relies on, as observed:
//   - Hooks say when Claude Code asks; nothing says when its human answers in the pane: an
//     approved command that runs for minutes stays a pending permission to hooks alone,
//     and an Esc at a dialog fires no hook at all. The state file says both.
//   - The file is rewritten in place: a reading between its writes sees a part of it.
//   - It is removed as the process exits. Its SessionEnd hook runs too, but at /exit the
//     process is gone before an async hook's emitter can report (observed, 2.1.197): the
//     removal is what ends the session then.
//   - Since 2.1.332 it says more: that a dialog is open and what kind (WaitingFor: a
//     permission, a question, another dialog), and in which tmux pane the process runs
//     ("session:@window.%pane", when TMUX_PANE was set). Auto mode's permission dialogs
//     fire no PermissionRequest, so the state file is what queues them; and a Claude Code
//     whose hooks are not set up is found and followed from its file alone.
//   - The transcript has a dialog's call a little after the dialog opens (more than a
//     second later on a loaded machine, after the state file says waiting), and a turn's
//     reply, or the interrupt of an Esc, after the file says idle.

// Live statuses of a Claude Code process (adapter's).
const (
	LiveIdle    = adapter.LiveIdle
	LiveBusy    = adapter.LiveBusy
	LiveWaiting = adapter.LiveWaiting
)

// MaxLiveStateSize bounds how much of a state file is read: the real ones are ~400 bytes.
const MaxLiveStateSize = 64 << 10

// LiveShell is the status of a Claude Code whose turn is over while a background task of
// it runs (adapter.LiveShell).
const LiveShell = adapter.LiveShell

// What a waiting Claude Code waits for (LiveState.WaitingFor), as 2.1.332 writes it.
const (
	WaitingPermission = adapter.WaitingPermission
	WaitingInput      = adapter.WaitingInput
	WaitingDialog     = adapter.WaitingDialog
)

// LiveState is what one state file says (adapter.LiveState).
type LiveState = adapter.LiveState

type liveStateFile struct {
	PID             int    `json:"pid"`
	SessionID       string `json:"sessionId"`
	Status          string `json:"status"`
	WaitingFor      string `json:"waitingFor"`
	StatusUpdatedAt int64  `json:"statusUpdatedAt"`
	UpdatedAt       int64  `json:"updatedAt"`
	Tmux            string `json:"tmux"`
	ProcStart       string `json:"procStart"`
	Cwd             string `json:"cwd"`
	Kind            string `json:"kind"`
}

// ParseLiveState reads one state file's bytes. It returns an error wrapping
// adapter.ErrInvalid when they are not one JSON object with a session id, a status and a
// time (a file caught half-written is one: the next write brings the whole).
func ParseLiveState(b []byte) (LiveState, error) {
	var f liveStateFile
	if err := adapter.DecodeOne(b, &f, "Claude Code state file"); err != nil {
		return LiveState{}, err
	}
	at := f.StatusUpdatedAt
	if at == 0 {
		at = f.UpdatedAt
	}
	switch {
	case f.SessionID == "" || len(f.SessionID) > adapter.MaxSessionIDLen:
		return LiveState{}, fmt.Errorf("%w: Claude Code state file: no usable sessionId", adapter.ErrInvalid)
	case f.Status == "":
		return LiveState{}, fmt.Errorf("%w: Claude Code state file: no status", adapter.ErrInvalid)
	case at <= 0:
		return LiveState{}, fmt.Errorf("%w: Claude Code state file: no statusUpdatedAt", adapter.ErrInvalid)
	}
	st := LiveState{Harness: Harness, PID: f.PID, SessionID: f.SessionID, Status: f.Status, WaitingFor: f.WaitingFor,
		At: time.UnixMilli(at), Tmux: f.Tmux, Cwd: f.Cwd, Kind: f.Kind}
	if n, err := strconv.ParseUint(f.ProcStart, 10, 64); err == nil {
		st.ProcStart = n
	}
	return st, nil
}

// TranscriptPath returns where Claude Code keeps the transcript of session id started in
// folder cwd under configuration folder configDir:
// <config>/projects/<cwd, every character but a letter or a digit made "-">/<id>.jsonl
// (observed: /home/dev/work → -home-dev-work, /tmp/x_1.y → -tmp-x-1-y). Very long folder
// names are cut and hashed by Claude Code: when that path does not exist, the one project
// folder that holds <id>.jsonl is taken. It returns "" when id or cwd cannot name a file.
func TranscriptPath(configDir, cwd, id string) string {
	if configDir == "" || !filepath.IsAbs(cwd) || id == "" || strings.ContainsAny(id, "/\\\x00") || id == "." || id == ".." {
		return ""
	}
	project := []byte(cwd)
	for i, c := range project {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (c < '0' || c > '9') {
			project[i] = '-'
		}
	}
	projects := filepath.Join(configDir, "projects")
	path := filepath.Join(projects, string(project), id+".jsonl")
	if _, err := os.Lstat(path); err == nil {
		return path
	}
	if found, _ := filepath.Glob(filepath.Join(projects, "*", id+".jsonl")); len(found) == 1 {
		return found[0]
	}
	return path
}

// ConfigDir returns Claude Code's configuration folder for an environment: $CLAUDE_CONFIG_DIR,
// else $HOME/.claude; "" when neither is set.
func ConfigDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".claude")
	}
	return ""
}

// ConfigDirOfTranscript returns the configuration folder a transcript lives in
// (<config>/projects/<project>/<session>.jsonl), or "" when the path is not of that shape.
// It finds the state files of a Claude Code that runs with another home or
// CLAUDE_CONFIG_DIR than the daemon's.
func ConfigDirOfTranscript(path string) string {
	project := filepath.Dir(path)
	projects := filepath.Dir(project)
	if path == "" || !filepath.IsAbs(path) || filepath.Base(projects) != "projects" {
		return ""
	}
	return filepath.Dir(projects)
}

// LiveStateDir is the folder of state files under a configuration folder.
func LiveStateDir(configDir string) string { return filepath.Join(configDir, "sessions") }

// ReadLiveState reads and parses the state file at path, reading at most
// MaxLiveStateSize bytes of a regular file.
func ReadLiveState(path string) (LiveState, error) {
	f, err := os.Open(path)
	if err != nil {
		return LiveState{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return LiveState{}, err
	}
	if !info.Mode().IsRegular() || info.Size() > MaxLiveStateSize {
		return LiveState{}, fmt.Errorf("%w: %s is not a state file (not a small regular file)", adapter.ErrInvalid, path)
	}
	b := make([]byte, info.Size())
	n, err := f.ReadAt(b, 0)
	if err != nil && n != len(b) {
		return LiveState{}, err
	}
	return ParseLiveState(b[:n])
}

// LiveStates is where Claude Code keeps its state files and how to read them
// (adapter.LiveStateSource).
type LiveStates struct{}

// OwnDir returns the state folder of the configuration folder of an environment
// (ConfigDir), or "" when it has none.
func (LiveStates) OwnDir(getenv func(string) string) string {
	if cfg := ConfigDir(getenv); cfg != "" {
		return LiveStateDir(cfg)
	}
	return ""
}

// DirOf returns the state folder of the configuration folder a transcript lives in, or ""
// (ConfigDirOfTranscript).
func (LiveStates) DirOf(transcriptPath string) string {
	if cfg := ConfigDirOfTranscript(transcriptPath); cfg != "" {
		return LiveStateDir(cfg)
	}
	return ""
}

// Read is ReadLiveState.
func (LiveStates) Read(path string) (LiveState, error) { return ReadLiveState(path) }

// TranscriptPath returns the transcript of the session st names, read from the state file
// at stateFile (<config>/sessions/<pid>.json).
func (LiveStates) TranscriptPath(stateFile string, st LiveState) string {
	return TranscriptPath(filepath.Dir(filepath.Dir(stateFile)), st.Cwd, st.SessionID)
}
