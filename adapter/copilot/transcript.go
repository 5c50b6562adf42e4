package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// A session's events.jsonl holds one typed event a line ({type, data, timestamp, …}):
// the prompts, the assistant's messages and tool calls, permissions asked and answered,
// each hook as it starts, and an Esc ("abort"), which no hook reports.

// record is one line of events.jsonl, as far as Trail Boss reads it.
type record struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      struct {
		Content      string            `json:"content"`      // user.message, assistant.message
		ToolRequests []json.RawMessage `json:"toolRequests"` // assistant.message
		ToolName     string            `json:"toolName"`     // tool.execution_start
		Arguments    json.RawMessage   `json:"arguments"`    // tool.execution_start
		HookType     string            `json:"hookType"`     // hook.start
		Input        struct {
			Timestamp float64 `json:"timestamp"`
		} `json:"input"` // hook.start
		Result struct {
			Kind string `json:"kind"`
		} `json:"result"` // permission.completed: "approved", or how it was refused
	} `json:"data"`
}

// Transcripts reads events.jsonl lines for the reconciler.
type Transcripts struct{}

// Line returns what one events.jsonl line says: a prompt or an answered permission is
// progress, a message or tool call is work, an abort (Esc) and the start of the turn's
// agentStop hook say the session waits for its human.
func (Transcripts) Line(b []byte) adapter.TranscriptLine {
	var r record
	if json.Unmarshal(b, &r) != nil {
		return adapter.TranscriptLine{}
	}
	l := adapter.TranscriptLine{Conversation: true, At: r.Timestamp}
	switch r.Type {
	case "user.message":
		l.State, l.Prompt, l.Progress, l.By = adapter.TailWorking, true, true, adapter.ByHuman
	case "assistant.message":
		l.State, l.Progress = adapter.TailWorking, true
		if len(r.Data.ToolRequests) > 0 {
			l.State = adapter.TailToolPending
		}
	case "tool.execution_start", "permission.requested":
		l.State = adapter.TailToolPending
	case "tool.execution_complete", "human_response.recorded":
		l.State, l.Progress = adapter.TailWorking, true
	case "permission.completed":
		if r.Data.Result.Kind != "approved" {
			// Refused (an Esc at the dialog): no progress; the abort line that follows,
			// maybe stamped earlier, says the session waits at its prompt.
			return adapter.TranscriptLine{}
		}
		l.State, l.Progress = adapter.TailWorking, true
	case "abort":
		l.State, l.Interrupt, l.Detail = adapter.TailWaiting, true, adapter.DetailInterrupted
	case "hook.start":
		if r.Data.HookType != AgentStop {
			return adapter.TranscriptLine{}
		}
		l.State = adapter.TailWaiting
	default:
		return adapter.TranscriptLine{}
	}
	return l
}

// Calls says nothing: Copilot's permissions are queued from its hooks.
func (Transcripts) Calls([]byte) adapter.LineCalls { return adapter.LineCalls{} }

// PendingCall says nothing, for the same reason.
func (Transcripts) PendingCall(string, string, string, json.RawMessage) *adapter.ToolCall { return nil }

// tailRead bounds how much of the end of events.jsonl the emitter reads for a hook.
const tailRead = 512 << 10

// transcriptPoll spaces the emitter's reads of events.jsonl while it waits for its own
// hook's line.
const transcriptPoll = 15 * time.Millisecond

// Enrich adds to env what its hook's payload lacks and events.jsonl holds: for an
// agentStop the turn's last assistant words, for an elicitation_dialog notification
// ask_user's question and options. Copilot writes the hook's own hook.start line a moment
// after it starts the hook; Enrich waits for it until ctx ends, so that what it reads is
// this turn's, and then leaves env as it was.
func Enrich(ctx context.Context, env Envelope, p Payload) Envelope {
	want := env.Event == AgentStop || env.Event == Notification && p.NoteType == noteElicitation
	path := TranscriptPath(env.Home, p.SessionID)
	if !want || path == "" {
		return env
	}
	for {
		if recs, ok := upToHook(path, env.Event, p.Timestamp); ok {
			if env.Event == AgentStop {
				env.Words = lastWords(recs)
			} else {
				env.Question = lastQuestion(recs)
			}
			return env
		}
		select {
		case <-ctx.Done():
			return env
		case <-time.After(transcriptPoll):
		}
	}
}

// upToHook returns the records of the end of the file at path up to the hook.start of
// event at timestamp, and whether that line is there yet.
func upToHook(path, event string, timestamp float64) ([]record, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false
	}
	from := max(0, info.Size()-tailRead)
	b, err := io.ReadAll(io.NewSectionReader(f, from, info.Size()-from))
	if err != nil {
		return nil, false
	}
	if from > 0 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:] // a cut first line
		}
	}
	var recs []record
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		var r record
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		if r.Type == "hook.start" && r.Data.HookType == event && r.Data.Input.Timestamp == timestamp {
			return recs, true
		}
		recs = append(recs, r)
	}
	return nil, false
}

// lastWords is the text of the last assistant message that has any, of the turn that recs
// end with (none before its prompt).
func lastWords(recs []record) string {
	for i := len(recs) - 1; i >= 0; i-- {
		switch r := recs[i]; {
		case r.Type == "user.message":
			return ""
		case r.Type == "assistant.message" && r.Data.Content != "":
			return adapter.CleanText(r.Data.Content, adapter.MaxSummaryLen)
		}
	}
	return ""
}

// lastQuestion is the last ask_user call of recs: its message, and the options of its one
// field when it has exactly one with an enum (several fields are answered in the pane).
func lastQuestion(recs []record) *Question {
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.Type != "tool.execution_start" || r.Data.ToolName != "ask_user" {
			continue
		}
		var args struct {
			Message string `json:"message"`
			Schema  struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"requestedSchema"`
		}
		if json.Unmarshal(r.Data.Arguments, &args) != nil {
			return nil
		}
		q := &Question{Message: adapter.CleanText(args.Message, 300)}
		if len(args.Schema.Properties) == 1 {
			for _, f := range args.Schema.Properties {
				q.Options = f.Enum
			}
		}
		return q
	}
	return nil
}
