package openai

// POST /v1/chat/completions, the Chat Completions API as OpenCode 1.18.33's bundled
// @ai-sdk/openai-compatible provider uses it (../shared/OPENCODE.md): "stream": true with
// stream_options.include_usage, tools as functions, and a tool call streamed as
// delta.tool_calls. The scripts follow the capture of the real OpenCode against the fake
// that steering drove (fixtures/real/opencode-1.18.33/SOURCE.md):
//
//	request                                  reply
//	---------------------------------------  --------------------------------------------
//	offers no tools (OpenCode's title agent) text "Fake title"
//	its last message is a tool result        text "done: " and the first 200 characters
//	                                         of the result (enough for a question's answer)
//	last user text contains "say hi"         text "hi there"
//	last user text contains "run COMMAND"    a call of the bash tool with command COMMAND
//	                                         (the rest of the text after "run ")
//	last user text contains "ask me"         a call of the question tool: "Which colour
//	                                         do you want?", Red or Blue
//	anything else                            text "ok"
//
// GitHub Copilot CLI 1.0.102 (../shared/COPILOT.md) offers tools of its own shapes, told
// apart by its ask_user tool in the request's tools: "run COMMAND" calls its bash tool
// with {command, description, mode "sync", initial_wait}, and "ask me" calls ask_user with
// {message, requestedSchema} (the older {question, choices} is refused), a colour of Red
// or Blue.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// chatRequest is what the fake reads of a chat completions request.
type chatRequest struct {
	Model    string            `json:"model"`
	Messages []chatMessage     `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
	Stream   bool              `json:"stream"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string, or a list of parts
}

// text returns the message's text: its content string, or its text parts joined.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// chatCall is a tool call the fake makes: a tool's name and its arguments.
type chatCall struct {
	name string
	args any
}

// colourQuestion is what "ask me" asks, as the real capture's fake asked it.
var colourQuestion = map[string]any{"questions": []any{map[string]any{
	"question": "Which colour do you want?", "header": "Colour",
	"options": []any{
		map[string]any{"label": "Red", "description": "the warm one"},
		map[string]any{"label": "Blue", "description": "the cool one"},
	},
}}}

// copilotColourQuestion is "ask me" as Copilot's ask_user takes it: one enum field.
var copilotColourQuestion = map[string]any{"message": "Which colour do you want?",
	"requestedSchema": map[string]any{"type": "object", "required": []string{"colour"},
		"properties": map[string]any{"colour": map[string]any{"type": "string", "title": "Colour",
			"enum": []string{"Red", "Blue"}}}}}

// offers reports whether req offers the tool called name.
func (req chatRequest) offers(name string) bool {
	for _, raw := range req.Tools {
		var t struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Function.Name == name {
			return true
		}
	}
	return false
}

// chooseChat returns the scripted reply to a chat request: a text or a tool call.
func chooseChat(req chatRequest) (string, *chatCall) {
	if len(req.Tools) == 0 {
		return "Fake title", nil
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" {
		out := req.Messages[n-1].text()
		if r := []rune(out); len(r) > 200 {
			out = string(r[:200])
		}
		return "done: " + out, nil
	}
	var user string
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			user = req.Messages[i].text()
			break
		}
	}
	copilot := req.offers("ask_user")
	switch {
	case indexFold(user, "say hi") >= 0:
		return "hi there", nil
	case copilot && indexFold(user, "ask me") >= 0:
		return "", &chatCall{name: "ask_user", args: copilotColourQuestion}
	case copilot && indexFold(user, "run ") >= 0:
		cmd := strings.TrimSpace(user[indexFold(user, "run ")+len("run "):])
		return "", &chatCall{name: "bash", args: map[string]any{"command": cmd, "description": "run " + cmd,
			"mode": "sync", "initial_wait": 10}}
	case indexFold(user, "ask me") >= 0:
		return "", &chatCall{name: "question", args: colourQuestion}
	case indexFold(user, "run ") >= 0:
		cmd := strings.TrimSpace(user[indexFold(user, "run ")+len("run "):])
		return "", &chatCall{name: "bash", args: map[string]any{"command": cmd, "description": "run " + cmd}}
	}
	return "ok", nil
}

// handleChat answers POST /v1/chat/completions with the scripted reply, streamed as chunks.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		writeError(w, http.StatusServiceUnavailable, "server_error", "the fake is closing")
		return
	}
	defer s.served.Done()
	var req chatRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 32<<20)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "the body is not JSON: "+err.Error())
		return
	}
	n := s.requests.Add(1)
	text, call := chooseChat(req)
	s.noteChat(n, req, text, call)
	defer s.noteChat(n, chatRequest{}, "", nil) // the stream was written whole, or the client left
	id := fmt.Sprintf("chatcmpl-%d", n)
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	usage := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
		"choices": []any{}, "usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}
	var chunks []map[string]any
	if call != nil {
		args, _ := json.Marshal(call.args)
		callID := fmt.Sprintf("call_%d", n)
		chunks = append(chunks,
			chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"index": 0, "id": callID, "type": "function", "function": map[string]any{"name": call.name, "arguments": ""}}}}, nil),
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": string(args)}}}}, nil),
			chunk(map[string]any{}, "tool_calls"))
	} else {
		chunks = append(chunks,
			chunk(map[string]any{"role": "assistant", "content": ""}, nil),
			chunk(map[string]any{"content": text}, nil),
			chunk(map[string]any{}, "stop"))
	}
	if !req.Stream {
		writeChat(w, id, created, text, call, n)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for _, c := range append(chunks, usage) {
		b, _ := json.Marshal(c)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// writeChat answers a request that did not ask for a stream with one completion.
func writeChat(w http.ResponseWriter, id string, created int64, text string, call *chatCall, n int64) {
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if call != nil {
		args, _ := json.Marshal(call.args)
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": fmt.Sprintf("call_%d", n), "type": "function", "function": map[string]any{"name": call.name, "arguments": string(args)}}}}
		finish = "tool_calls"
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})
}

// OpenCodeConfig returns an opencode.json that makes OpenCode use this server, offline: a
// provider "fake" through the bundled @ai-sdk/openai-compatible package, its one model for
// every agent, every bash command asked (permission.bash "ask"), no update, no sharing.
func (s *Server) OpenCodeConfig() []byte {
	cfg := map[string]any{
		"$schema":           "https://opencode.ai/config.json",
		"model":             "fake/" + model,
		"small_model":       "fake/" + model,
		"enabled_providers": []string{"fake"},
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": s.URL, "apiKey": "fake-key"},
			"models": map[string]any{model: map[string]any{"name": "Fake Model", "tool_call": true,
				"limit": map[string]any{"context": 100000, "output": 4096}}},
		}},
		"permission": map[string]any{"bash": "ask"},
		"autoupdate": false,
		"share":      "disabled",
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return b
}

// noteChat keeps one line about chat request n for ChatLog: what it asked and the reply
// chosen, or, with an empty req, that its handler returned.
func (s *Server) noteChat(n int64, req chatRequest, text string, call *chatCall) {
	line := fmt.Sprintf("#%d done", n)
	if req.Messages != nil {
		last := req.Messages[len(req.Messages)-1]
		what := "text " + strconvQuote(text)
		if call != nil {
			what = "call " + call.name
		}
		line = fmt.Sprintf("#%d %s: %d tools, last %s %s → %s", n, time.Now().Format("15:04:05.000"),
			len(req.Tools), last.Role, strconvQuote(last.text()), what)
	}
	s.mu.Lock()
	s.chats = append(s.chats, line)
	s.mu.Unlock()
}

// ChatLog returns a line per chat completions request and per finished answer, in order:
// for a test that failed, what the agent asked of the fake and when.
func (s *Server) ChatLog() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.chats...)
}

func strconvQuote(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
