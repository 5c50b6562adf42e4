package gemini

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// A session's chat file (the payload's transcript_path, ~/.gemini/tmp/<slug>/chats/*.jsonl)
// holds a header line, message records ({id, timestamp, type, content, toolCalls, …}; an id
// repeats as its record is updated) and patch records ({"$set": …}). An Esc or a No at a
// permission dialog fires no hook: the model's record comes back with its tool call
// "status":"cancelled", then an info record "Request cancelled.".
//
// Right after a cancel Gemini writes its whole history again, as new records (new ids, the
// moment of the rewrite as their timestamps, then a "$set" of the messages): the old
// prompts and replies, which are not progress. Its replayed replies carry no token counts
// ("tokens": null) and are skipped by that. Its replayed prompts and tool results look
// exactly like the first ones, so no user record is read at all: BeforeAgent (a prompt) and
// AfterTool (a tool that ran) report them, synchronously, and the spool keeps them while
// the daemon is down.

// record is one line of a chat file, as far as Trail Boss reads it.
type record struct {
	Type      string          `json:"type"` // user, gemini, info; "" for the header and patches
	Timestamp time.Time       `json:"timestamp"`
	Content   json.RawMessage `json:"content"` // gemini: a string; a replay: parts
	Tokens    json.RawMessage `json:"tokens"`  // gemini: counts; a replay: null
	ToolCalls []struct {
		Status    string    `json:"status"` // success, cancelled, …
		Timestamp time.Time `json:"timestamp"`
	} `json:"toolCalls"`
}

// requestCancelled is the words of the info record Gemini writes when a request was
// cancelled (Esc, or a No at its dialog).
const requestCancelled = "Request cancelled."

// Transcripts reads chat file lines for the reconciler.
type Transcripts struct{}

// Line returns what one chat file line says: a reply of the model with words says its turn
// may have ended, one with no words yet says it is calling a tool, one whose tool calls ran
// says it moved on, and a cancelled call or "Request cancelled." says its human refused or
// interrupted it and it waits at its prompt. Everything else (user records, replays,
// patches) says nothing.
func (Transcripts) Line(b []byte) adapter.TranscriptLine {
	var r record
	if json.Unmarshal(b, &r) != nil {
		return adapter.TranscriptLine{}
	}
	l := adapter.TranscriptLine{Conversation: true, At: r.Timestamp}
	switch r.Type {
	case "info":
		var words string
		if json.Unmarshal(r.Content, &words) != nil || words != requestCancelled {
			return adapter.TranscriptLine{}
		}
		l.State, l.Interrupt, l.Detail = adapter.TailWaiting, true, adapter.DetailInterrupted
	case "gemini":
		if len(r.Tokens) == 0 || bytes.Equal(r.Tokens, []byte("null")) {
			return adapter.TranscriptLine{} // replayed after a cancel
		}
		var words string
		if json.Unmarshal(r.Content, &words) != nil {
			return adapter.TranscriptLine{}
		}
		switch {
		case len(r.ToolCalls) > 0:
			l.State, l.Progress = adapter.TailWorking, true
			for _, c := range r.ToolCalls {
				if c.Status == "cancelled" {
					// Refused at its dialog: no progress; the moment is the call's, when
					// it was cancelled (the record keeps the reply's own, from before the
					// dialog).
					l = adapter.TranscriptLine{Conversation: true, State: adapter.TailWaiting,
						Interrupt: true, Detail: adapter.DetailInterrupted, At: latest(l.At, c.Timestamp)}
				}
			}
		case words == "":
			l.State = adapter.TailToolPending // the record of a reply that calls a tool, before the call
		default:
			// A reply is stamped when it began, before its turn's AfterAgent: one after the
			// moment a session got stuck says it was answered (a lost BeforeAgent).
			l.State, l.Progress, l.Resumed = adapter.TailWaiting, true, true
			l.Text = adapter.CleanText(words, 300)
		}
	default:
		return adapter.TranscriptLine{}
	}
	return l
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Calls says nothing: Gemini's permissions are queued from its hooks.
func (Transcripts) Calls([]byte) adapter.LineCalls { return adapter.LineCalls{} }

// PendingCall says nothing, for the same reason.
func (Transcripts) PendingCall(string, string, string, json.RawMessage) *adapter.ToolCall { return nil }
