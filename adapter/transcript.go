package adapter

import (
	"encoding/json"
	"time"
)

// What a harness's transcript says, in terms that do not depend on the harness: the daemon
// reconciles against it (package daemon/watch), and each harness whose transcripts it can
// read gives a TranscriptReader for them.

// TranscriptReader reads the lines of one harness's transcripts.
type TranscriptReader interface {
	// Line returns what one transcript line says.
	Line(b []byte) TranscriptLine
	// Calls returns what one transcript line says of tool calls.
	Calls(b []byte) LineCalls
	// PendingCall returns tool call id of tool with input, about to run in permission mode
	// mode, with the words and Ask a permission for it is queued with.
	PendingCall(id, tool, mode string, input json.RawMessage) *ToolCall
}

// TailState is what a transcript says about its session when a line is the last
// conversation line.
type TailState int

const (
	TailUnknown     TailState = iota // no conversation line seen yet
	TailWaiting                      // the turn ended or was interrupted: the session waits for its human
	TailToolPending                  // an assistant tool_use with no result yet: running, or waiting for permission
	TailWorking                      // a prompt or a tool_result: mid-turn
)

// String returns "unknown", "waiting", "tool-pending" or "working".
func (s TailState) String() string {
	switch s {
	case TailWaiting:
		return "waiting"
	case TailToolPending:
		return "tool-pending"
	case TailWorking:
		return "working"
	}
	return "unknown"
}

// DetailInterrupted is TranscriptLine.Detail for an interrupt marker: the session's human
// interrupted its turn.
const DetailInterrupted = "interrupted"

// TranscriptLine is what one line of a harness's transcript says.
type TranscriptLine struct {
	Conversation bool      // false for lines the tail rule skips: system, progress, metadata types, sidechain (isSidechain:true), unknown types, blank or malformed JSON, lines with no message
	State        TailState // what the session is, if this is the last conversation line
	At           time.Time // the line's "timestamp" (RFC 3339), zero when absent or unparsable
	Prompt       bool      // a human prompt: a user line that is not isMeta, not isCompactSummary, not a tool_result, not an interrupt marker
	Progress     bool      // evidence the session moved on: a prompt, a tool_result, or an assistant line (text, thinking or tool_use)
	Interrupt    bool      // a user line whose text is an interrupt marker
	// Resumed says the session went on at this moment after whatever it waited for, when
	// the harness's prompts cannot be read as Prompt lines: a reply of Gemini's model
	// (adapter/gemini). It counts as a prompt does for a session stuck before it.
	Resumed bool
	Detail  string // for waiting lines: DetailInterrupted for interrupt markers, "" otherwise
	Text    string // for an assistant text line: its text, CleanText(..., 300); empty otherwise
	// By says, for a prompt, who submitted it (ByHuman, ByOther), as 2.1.332
	// writes it (origin.kind "human", promptSource "typed"; origin.kind "task-notification",
	// promptSource "system"); "" when the line does not say (older versions).
	By string
}

// Tail returns the last conversation line among lines (in file order), and whether there was one.
func Tail(lines []TranscriptLine) (TranscriptLine, bool) {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Conversation {
			return lines[i], true
		}
	}
	return TranscriptLine{}, false
}

// ToolUse is one tool_use block of an assistant transcript line: a call the model made.
type ToolUse struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// LineCalls is what one transcript line says of tool calls.
type LineCalls struct {
	Uses    []ToolUse // the tool_use blocks of an assistant line
	Results []string  // the ids of the tool_result blocks of a user line
	Prompt  bool      // a person's (or a task's) prompt: a turn begins, nothing before it is pending
	Mode    string    // the permission mode the line records (user and permission-mode lines), or ""
}
