package claude

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// TailState is what a transcript says about its session when a line is the last
// conversation line (adapter.TailState).
type TailState = adapter.TailState

// What a transcript's last conversation line says of its session.
const (
	TailUnknown     = adapter.TailUnknown
	TailWaiting     = adapter.TailWaiting
	TailToolPending = adapter.TailToolPending
	TailWorking     = adapter.TailWorking
)

// DetailInterrupted is Line.Detail for an interrupt marker (adapter.DetailInterrupted).
const DetailInterrupted = adapter.DetailInterrupted

// MaxLineText is the most bytes of assistant text a Line keeps.
const MaxLineText = 300

// Interrupt markers: the text of the user line Claude Code writes when its human presses Esc.
// It shows "Interrupted" and goes idle both for Esc and for a No at a permission dialog,
// and writes the marker then too, within a few hundred milliseconds of the No (so the
// daemon tells a No typed through Trail Boss from an Esc by the prompt record's answer).
// A line is written before its end is: since 2.1.332 one may be hundreds of KB (each API
// request's parameters), and a reader may find only its start.
const (
	markerInterrupted        = "[Request interrupted by user]"
	markerInterruptedForTool = "[Request interrupted by user for tool use]"
)

// Line is what one transcript line says (adapter.TranscriptLine).
type Line = adapter.TranscriptLine

// transcriptLine holds the fields of a transcript line that the tail rule reads. Unknown
// fields are ignored; a known field of the wrong JSON type makes the line malformed.
type transcriptLine struct {
	Type             string `json:"type"`
	IsSidechain      bool   `json:"isSidechain"`
	IsMeta           bool   `json:"isMeta"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	PromptSource     string `json:"promptSource"`
	Origin           *struct {
		Kind string `json:"kind"`
	} `json:"origin"`
	Timestamp json.RawMessage `json:"timestamp"` // raw, so that an odd timestamp costs only At
	Message   *struct {
		Content    json.RawMessage `json:"content"` // a string or an array of blocks
		StopReason *string         `json:"stop_reason"`
	} `json:"message"`
}

// contentBlock is one element of message.content. Only text blocks keep their text: the
// large parts of a line (tool inputs, tool results, thinking) are skipped, not copied.
type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// UnmarshalJSON tolerates elements that are not blocks: they decode to a block with no type,
// which every rule ignores, instead of making the whole line malformed.
func (b *contentBlock) UnmarshalJSON(data []byte) error {
	*b = contentBlock{}
	if len(data) == 0 || data[0] != '{' {
		return nil
	}
	type plain contentBlock
	var p plain
	if json.Unmarshal(data, &p) != nil {
		return nil
	}
	*b = contentBlock(p)
	return nil
}

// ClassifyLine returns what one transcript line (without its newline) says, by the tail rule
// of Claude Code's resume logic. It never fails: a line it cannot read is not a conversation
// line.
func ClassifyLine(b []byte) Line {
	var raw transcriptLine
	if len(bytes.TrimSpace(b)) == 0 || json.Unmarshal(b, &raw) != nil {
		return Line{}
	}
	l := Line{At: parseTimestamp(raw.Timestamp)}
	if raw.IsSidechain || raw.Message == nil || (raw.Type != "user" && raw.Type != "assistant") {
		return l
	}
	text, blocks, ok := decodeContent(raw.Message.Content)
	if !ok {
		return l
	}
	switch raw.Type {
	case "assistant":
		classifyAssistant(&l, text, blocks, raw.Message.StopReason)
	case "user":
		classifyUser(&l, &raw, text, blocks)
	}
	return l
}

// decodeContent returns message.content as a string (blocks nil) or as blocks, and false
// when it is neither.
func decodeContent(c json.RawMessage) (text string, blocks []contentBlock, ok bool) {
	c = bytes.TrimSpace(c)
	if len(c) == 0 {
		return "", nil, false
	}
	switch c[0] {
	case '"':
		if json.Unmarshal(c, &text) != nil {
			return "", nil, false
		}
		return text, nil, true
	case '[':
		if json.Unmarshal(c, &blocks) != nil {
			return "", nil, false
		}
		if blocks == nil {
			blocks = []contentBlock{}
		}
		return "", blocks, true
	}
	return "", nil, false
}

// classifyAssistant applies rules 1 and 2. In current versions each block is its own line;
// old versions (1.0.x) put several blocks in one line, and then the last one decides.
// A line with no text, thinking or tool_use block (an empty or unknown content) decides
// nothing and is not a conversation line.
func classifyAssistant(l *Line, text string, blocks []contentBlock, stopReason *string) {
	last := ""
	if blocks == nil {
		last = "text"
	}
	for _, bl := range blocks {
		switch bl.Type {
		case "text", "thinking", "redacted_thinking", "tool_use":
			last = bl.Type
		}
	}
	switch last {
	case "":
		return
	case "tool_use":
		l.State = TailToolPending
	default:
		// stop_reason is usually null, so it can only keep a turn going, never end one.
		if stopReason != nil && *stopReason == "tool_use" {
			l.State = TailWorking
		} else {
			l.State = TailWaiting
		}
		if last == "text" {
			l.Text = assistantText(text, blocks)
		}
	}
	l.Conversation, l.Progress = true, true
}

// assistantText joins the line's text blocks, cleaned and cut to MaxLineText.
func assistantText(text string, blocks []contentBlock) string {
	if blocks == nil {
		return adapter.CleanText(text, MaxLineText)
	}
	var parts []string
	for _, bl := range blocks {
		if bl.Type == "text" {
			parts = append(parts, bl.Text)
		}
	}
	return adapter.CleanText(strings.Join(parts, "\n"), MaxLineText)
}

// classifyUser applies rules 3, 4 and 5.
func classifyUser(l *Line, raw *transcriptLine, text string, blocks []contentBlock) {
	l.Conversation = true
	if raw.IsMeta || raw.IsCompactSummary {
		l.State = TailWaiting
		return
	}
	interrupt := blocks == nil && isInterruptMarker(text)
	for _, bl := range blocks {
		switch bl.Type {
		case "tool_result":
			// A denied permission is a tool_result too: the interrupt marker, when the
			// human pressed Esc, is its own line after it.
			l.State, l.Progress = TailWorking, true
			return
		case "text":
			if isInterruptMarker(bl.Text) {
				interrupt = true
			}
		}
	}
	if interrupt {
		l.State, l.Interrupt, l.Detail = TailWaiting, true, DetailInterrupted
		return
	}
	l.State, l.Prompt, l.Progress = TailWorking, true, true
	l.By = submittedBy(raw, text, blocks)
}

// submittedBy says who submitted a prompt line: what the line says of itself, else a
// background task's notification by its words, else "" (it does not say).
func submittedBy(raw *transcriptLine, text string, blocks []contentBlock) string {
	kind := ""
	if raw.Origin != nil {
		kind = raw.Origin.Kind
	}
	switch {
	case kind == "human":
		return adapter.ByHuman
	case kind != "" || raw.PromptSource == "system":
		return adapter.ByOther // a background task, a schedule, a loop: Claude Code itself
	case raw.PromptSource != "":
		return adapter.ByHuman // typed, or another way a person submits
	}
	for _, bl := range blocks {
		if bl.Type == "text" {
			text += bl.Text
		}
	}
	if strings.HasPrefix(strings.TrimSpace(text), taskNotification) {
		return adapter.ByOther
	}
	return ""
}

func isInterruptMarker(s string) bool {
	s = strings.TrimSpace(s)
	return s == markerInterrupted || s == markerInterruptedForTool
}

// parseTimestamp returns the time in a JSON string holding RFC 3339, or the zero time.
func parseTimestamp(raw json.RawMessage) time.Time {
	var s string
	if len(raw) == 0 || len(raw) > 64 || json.Unmarshal(raw, &s) != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Tail returns the last conversation line among lines (in file order), and whether there was one.
func Tail(lines []Line) (Line, bool) { return adapter.Tail(lines) }

// ToolUse is one tool_use block of an assistant transcript line (adapter.ToolUse).
type ToolUse = adapter.ToolUse

// LineCalls is what one transcript line says of tool calls (adapter.LineCalls).
type LineCalls = adapter.LineCalls

// Calls returns what one transcript line says of tool calls. Claude Code writes a call's
// line before it asks permission for it (observed, 2.1.197 and 2.1.332), so the last call
// with no result is the one a permission dialog open now is about. Sidechain lines
// (subagents) say nothing of their parent's calls.
func Calls(b []byte) LineCalls {
	var raw struct {
		Type           string `json:"type"`
		IsSidechain    bool   `json:"isSidechain"`
		PermissionMode string `json:"permissionMode"`
		Message        *struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(b, &raw) != nil || raw.IsSidechain {
		return LineCalls{}
	}
	out := LineCalls{Mode: raw.PermissionMode}
	if raw.Message == nil {
		return out
	}
	var blocks []struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
	}
	if json.Unmarshal(raw.Message.Content, &blocks) != nil {
		out.Prompt = ClassifyLine(b).Prompt
		return out
	}
	for _, bl := range blocks {
		switch {
		case raw.Type == "assistant" && bl.Type == "tool_use" && bl.ID != "":
			out.Uses = append(out.Uses, ToolUse{ID: bl.ID, Name: bl.Name, Input: bl.Input})
		case raw.Type == "user" && bl.Type == "tool_result":
			out.Results = append(out.Results, bl.ToolUseID)
		}
	}
	if raw.Type == "user" && len(out.Results) == 0 {
		out.Prompt = ClassifyLine(b).Prompt
	}
	return out
}

// Transcripts reads Claude Code's transcript lines (adapter.TranscriptReader).
type Transcripts struct{}

// Line is ClassifyLine.
func (Transcripts) Line(b []byte) Line { return ClassifyLine(b) }

// Calls is Calls.
func (Transcripts) Calls(b []byte) LineCalls { return Calls(b) }

// PendingCall is PendingCall.
func (Transcripts) PendingCall(id, tool, mode string, input json.RawMessage) *adapter.ToolCall {
	return PendingCall(id, tool, mode, input)
}
