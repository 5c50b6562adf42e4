// Package gemini is a deterministic fake of the Gemini API (generativelanguage), shaped to
// what Gemini CLI 0.61.0 sends and expects, so that end-to-end tests can drive the real CLI
// offline (../shared/GEMINI.md). Point the CLI at it with GOOGLE_GEMINI_BASE_URL=[Server.URL]
// and any GEMINI_API_KEY.
//
// POST /v1beta/models/M:generateContent is the CLI's router, which asks for JSON fitting a
// schema ({complexity_reasoning, complexity_score}); it is answered with such JSON, for the
// CLI retries an answer that does not fit forever, at "Thinking…". Any other
// generateContent that asks for JSON gets "{}".
//
// POST /v1beta/models/M:streamGenerateContent?alt=sse is a turn, answered as server-sent
// events of GenerateContentResponse. The reply is chosen from the request's contents: when
// the last part is a functionResponse the reply is the text "FAKE: tool finished, all
// done."; otherwise the last user text is matched, case-insensitively, first match wins:
//
//	user text             reply
//	--------------------  -------------------------------------------------------------
//	"run COMMAND"         a functionCall of run_shell_command with command COMMAND (the
//	                      rest of the text after "run "): the CLI asks permission
//	"ask"                 a functionCall of ask_user: "Red or blue?" with options red and
//	                      blue
//	anything else         the text "FAKE: hello from the fake model."
//
// Any other path is a 404 with a Google-style error body.
package gemini

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Server is a running fake Gemini API on a loopback port.
type Server struct {
	// URL is the API's base URL, "http://127.0.0.1:PORT".
	URL string

	srv *http.Server
	mu  sync.Mutex
	log []string // Log
}

// Start returns a Server listening on 127.0.0.1 on a free port, or the error of listening.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go func() { _ = s.srv.Serve(ln) }() // returns once Close is called
	return s, nil
}

// Close stops the server and closes every connection.
func (s *Server) Close() { _ = s.srv.Close() }

// Log returns a line per request so far: its method, path and what was answered.
func (s *Server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *Server) note(format string, args ...any) {
	s.mu.Lock()
	s.log = append(s.log, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

// request is what the fake reads of a generateContent request.
type request struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             string          `json:"text"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	GenerationConfig struct {
		ResponseMIMEType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	model, method, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") || model == "" {
		s.note("%s %s: 404", r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":404,"message":"not in the fake","status":"NOT_FOUND"}}`)
		return
	}
	var req request
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err := json.Unmarshal(body, &req); err != nil {
		s.note("%s %s: 400 %v", r.Method, r.URL.Path, err)
		http.Error(w, `{"error":{"code":400,"message":"bad JSON","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	switch method {
	case "generateContent":
		text := "{}"
		if strings.Contains(string(req.GenerationConfig.ResponseJSONSchema)+string(req.GenerationConfig.ResponseSchema), "complexity_score") {
			text = `{"complexity_reasoning":"a simple request","complexity_score":10}`
		}
		s.note("POST %s:generateContent: %s", model, text)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(response([]any{map[string]any{"text": text}}))
	case "streamGenerateContent":
		parts := reply(req)
		b, _ := json.Marshal(parts)
		s.note("POST %s:streamGenerateContent: %s", model, b)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk, _ := json.Marshal(response(parts))
		_, _ = fmt.Fprintf(w, "data: %s\r\n\r\n", chunk)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	default:
		s.note("POST %s:%s: 404", model, method)
		http.Error(w, `{"error":{"code":404,"message":"not in the fake","status":"NOT_FOUND"}}`, http.StatusNotFound)
	}
}

// response is a GenerateContentResponse of one candidate with parts, its turn complete.
func response(parts []any) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "fake",
	}
}

// reply is the parts the fake answers a turn with (see the package's doc).
func reply(req request) []any {
	var last string
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		if c.Role != "user" || len(c.Parts) == 0 {
			continue
		}
		p := c.Parts[len(c.Parts)-1]
		if len(p.FunctionResponse) > 0 {
			return []any{map[string]any{"text": "FAKE: tool finished, all done."}}
		}
		last = p.Text
		break
	}
	lower := strings.ToLower(last)
	switch {
	case strings.Contains(lower, "run "):
		cmd := strings.TrimSpace(last[strings.Index(lower, "run ")+len("run "):])
		return []any{map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
			"args": map[string]any{"command": cmd, "description": "run what was asked"}}}}
	case strings.Contains(lower, "ask"):
		return []any{map[string]any{"functionCall": map[string]any{"name": "ask_user",
			"args": map[string]any{"questions": []any{map[string]any{"question": "Red or blue?", "header": "Color",
				"type": "choice", "options": []any{
					map[string]any{"label": "red", "description": "warm"},
					map[string]any{"label": "blue", "description": "cool"}}}}}}}}
	}
	return []any{map[string]any{"text": "FAKE: hello from the fake model."}}
}

// Env is the environment that points Gemini CLI at s.
func (s *Server) Env() []string {
	return []string{"GOOGLE_GEMINI_BASE_URL=" + s.URL, "GEMINI_API_KEY=fake-key-not-secret"}
}
