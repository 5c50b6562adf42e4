package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// chat posts a streamed chat completions request and returns the text and the tool call
// (name and arguments) its chunks carry, and whether the stream ended with [DONE].
func chat(t *testing.T, s *Server, tools bool, messages ...map[string]any) (text, call, args string, done bool) {
	t.Helper()
	req := map[string]any{"model": model, "stream": true, "stream_options": map[string]any{"include_usage": true}, "messages": messages}
	if tools {
		req["tools"] = []any{map[string]any{"type": "function", "function": map[string]any{"name": "bash"}}}
	}
	body, _ := json.Marshal(req)
	resp, err := http.Post(s.URL+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				text += *ch.Delta.Content
			}
			for _, tc := range ch.Delta.ToolCalls {
				call += tc.Function.Name
				args += tc.Function.Arguments
			}
		}
	}
	return text, call, args, done
}

func userMessage(text string) map[string]any { return map[string]any{"role": "user", "content": text} }

func TestChatScripts(t *testing.T) {
	s := start(t)
	if text, _, _, done := chat(t, s, true, userMessage("say hi")); text != "hi there" || !done {
		t.Errorf("say hi: %q (done %v)", text, done)
	}
	if text, _, _, _ := chat(t, s, false, userMessage("say hi")); text != "Fake title" {
		t.Errorf("a request without tools (the title agent): %q", text)
	}
	_, call, args, _ := chat(t, s, true, userMessage("run touch /tmp/x"))
	if call != "bash" || !strings.Contains(args, `"command":"touch /tmp/x"`) {
		t.Errorf("run: call %q args %s", call, args)
	}
	_, call, args, _ = chat(t, s, true, userMessage("ask me"))
	if call != "question" || !strings.Contains(args, `"label":"Blue"`) {
		t.Errorf("ask me: call %q args %s", call, args)
	}
	parts := map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "run ls"}}}
	if _, call, _, _ := chat(t, s, true, parts); call != "bash" {
		t.Errorf("a user message of parts: call %q", call)
	}
	result := map[string]any{"role": "tool", "tool_call_id": "call_1", "content": `User has answered your questions: "Which colour do you want?"="Blue".`}
	if text, _, _, _ := chat(t, s, true, userMessage("ask me"), result); !strings.Contains(text, `="Blue"`) || !strings.HasPrefix(text, "done: ") {
		t.Errorf("after a tool result: %q", text)
	}
}
