package adapter

import (
	"strings"
	"time"
)

// Some harnesses keep a live state file per running process that says, the moment it
// changes, whether the process works, waits at a dialog, or is idle (Claude Code's
// <config>/sessions/<pid>.json). The daemon follows them (package daemon/watch) through a
// LiveStateSource each such harness gives.

// LiveStateSource is where one harness keeps its live state files and how to read them.
type LiveStateSource interface {
	// OwnDir returns the folder of state files of the harness run in an environment (its
	// configuration's), or "".
	OwnDir(getenv func(string) string) string
	// DirOf returns the folder of state files of the harness run that keeps a transcript
	// at transcriptPath, or "".
	DirOf(transcriptPath string) string
	// Read reads and parses the state file at path.
	Read(path string) (LiveState, error)
	// TranscriptPath returns the transcript of the session st names, read from the file
	// at stateFile, or "".
	TranscriptPath(stateFile string, st LiveState) string
}

// MultiLiveStateSource is a LiveStateSource whose state file names several sessions at once
// (GitHub Copilot CLI's open-sessions-state.json): the daemon reads it with ReadAll.
type MultiLiveStateSource interface {
	LiveStateSource
	// ReadAll reads and parses the state file at path: one LiveState per session it names.
	ReadAll(path string) ([]LiveState, error)
}

// LiveOpen is the status of a session whose process is open and says no more (Copilot CLI's
// open sessions): it binds the session to its process's pane, and changes no queue state.
const LiveOpen = "open"

// Live statuses of a harness's process, as Claude Code (2.1.197) writes them.
const (
	LiveIdle    = "idle"    // at its prompt
	LiveBusy    = "busy"    // working: a turn runs, or a tool the human just approved
	LiveWaiting = "waiting" // a dialog is open (permission, question, plan); see WaitingFor
)

// LiveShell is the status of a harness's process whose turn is over while a background
// task of it runs (Claude Code 2.1.332): at its prompt, as idle.
const LiveShell = "shell"

// What a waiting process waits for (LiveState.WaitingFor), as Claude Code 2.1.332 writes it.
const (
	WaitingPermission = "permission prompt" // a permission dialog, or a plan's approval
	WaitingInput      = "input needed"      // a question (AskUserQuestion)
	WaitingDialog     = "dialog open"       // another dialog: auto mode's offer, a startup question
)

// LiveState is what one live state file of a harness's running process says.
type LiveState struct {
	Harness    string // whose file it is
	PID        int
	SessionID  string
	Status     string    // LiveIdle, LiveBusy, LiveWaiting, LiveShell, or another value a newer version writes
	WaitingFor string    // with LiveWaiting: "permission prompt", …
	At         time.Time // statusUpdatedAt: when Status last changed
	// Since 2.1.332: where the process runs, as it says. Words, not proof: the daemon
	// checks them against the process tree before it believes them.
	Tmux      string // "session:@window.%pane" when TMUX_PANE was in its environment; else ""
	ProcStart uint64 // the process's start time (/proc/PID/stat field 22); 0 when not said
	Cwd       string
	Kind      string // LiveInteractive, …
}

// LiveInteractive is the Kind of a process run by a person in a terminal, as Claude Code
// writes it: only such a process (or one whose file names no kind) is bound to its pane.
const LiveInteractive = "interactive"

// TmuxPane returns the pane id that a state file's tmux field names ("%N" after the last
// "."), or "" when it names none that is a pane id.
func (s LiveState) TmuxPane() string {
	i := strings.LastIndexByte(s.Tmux, '.')
	if i < 0 || !ValidPane(s.Tmux[i+1:]) {
		return ""
	}
	return s.Tmux[i+1:]
}

// DetailQuestion is the detail of a wait on a question the agent asked its human (Claude
// Code's AskUserQuestion): what a process waiting for WaitingInput waits on.
const DetailQuestion = "question"

// DetailPlan is the detail of a wait on a plan the agent asks its human to approve (Claude
// Code's ExitPlanMode).
const DetailPlan = "plan"
