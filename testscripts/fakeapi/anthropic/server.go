package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The "slow" script streams slowDeltas text deltas, slowGap apart.
const (
	slowDeltas = 20
	slowGap    = 500 * time.Millisecond
	// failAfter is how long a scripted failure takes to come back.
	failAfter = 500 * time.Millisecond
	// wakePause is how long a background task's wake-up turn thinks before its words.
	wakePause = 2 * time.Second
)

// slowText is the whole text of the "slow" reply; each of its slowDeltas
// words is one delta.
var slowText = func() string {
	words := make([]string, slowDeltas)
	for i := range words {
		words[i] = fmt.Sprintf("slow%02d", i+1)
	}
	return strings.Join(words, " ")
}()

// Server is a fake Messages API on a loopback port.
type Server struct {
	URL string // http://127.0.0.1:PORT, for ANTHROPIC_BASE_URL

	srv      *http.Server
	slowGap  time.Duration // between the deltas of a slow reply
	done     chan struct{} // closed by Close: ends slow streams
	closing  sync.Once
	requests atomic.Int64
	streams  atomic.Int64 // streams being written now
	messages atomic.Int64 // ids handed out, msg_fake_N
	toolUses atomic.Int64 // ids handed out, toolu_fake_N
}

// Start returns a Server listening on 127.0.0.1 at a free port, already
// serving, or the error from listening.
func Start() (*Server, error) {
	return start(slowGap)
}

// start is Start with the gap between a slow reply's deltas.
func start(gap time.Duration) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake anthropic api: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), slowGap: gap, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(http.ResponseWriter, *http.Request) {}) // GET and HEAD: 200
	mux.HandleFunc("POST /v1/messages", s.answer)
	mux.HandleFunc("POST /v1/messages/count_tokens", countTokens)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found_error", "no fake for "+r.Method+" "+r.URL.Path)
	})
	s.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
	}
	go s.srv.Serve(ln) //nolint:errcheck // always http.ErrServerClosed after Close
	return s, nil
}

// Close stops the server: it ends slow streams at once, waits up to five
// seconds for the replies under way, then cuts every connection.
func (s *Server) Close() {
	s.closing.Do(func() {
		close(s.done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.srv.Shutdown(ctx) // on timeout, Close below cuts what is left
		_ = s.srv.Close()
	})
}

// Requests returns how many POST /v1/messages the server has answered (begun
// to answer, for a stream), the scripted failures included.
func (s *Server) Requests() int {
	return int(s.requests.Load())
}

func countTokens(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]int{"input_tokens": 10})
}

// answer answers POST /v1/messages with the scripted reply to its body.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "fake: bad request body: "+err.Error())
		return
	}
	rep := choose(req)
	s.requests.Add(1)
	if rep.fail {
		// A real API takes a round trip to refuse, too: a turn that fails at once races its
		// own prompt's hook (both are async in Claude Code; issue 16's note).
		t := time.NewTimer(failAfter)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_request_error", "fake failure")
		return
	}
	m := msg{
		id:    fmt.Sprintf("msg_fake_%d", s.messages.Add(1)),
		model: req.Model,
		reply: rep,
	}
	if rep.tool != "" {
		m.toolID = fmt.Sprintf("toolu_fake_%d", s.toolUses.Add(1))
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, m.whole())
		return
	}
	s.stream(w, r, m)
}

// msg is one reply, given its ids.
type msg struct {
	id, model, toolID string
	reply
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// responseMessage is a Messages API message object.
type responseMessage struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// block returns the reply's content block, with its text or input when full,
// else empty as in a stream's content_block_start.
func (m msg) block(full bool) any {
	if m.tool != "" {
		input := json.RawMessage(`{}`)
		if full {
			input = m.input
		}
		return toolUseBlock{Type: "tool_use", ID: m.toolID, Name: m.tool, Input: input}
	}
	var text string
	if full {
		text = m.text
	}
	return textBlock{Type: "text", Text: text}
}

// outputTokens returns a made-up but plausible output token count.
func (m msg) outputTokens() int {
	return 1 + (len(m.text)+len(m.input))/4
}

// whole returns the reply as one non-streaming message.
func (m msg) whole() responseMessage {
	stop := m.stopReason()
	return responseMessage{
		ID: m.id, Type: "message", Role: "assistant", Model: m.model,
		Content:    []any{m.block(true)},
		StopReason: &stop,
		Usage:      usage{InputTokens: 10, OutputTokens: m.outputTokens()},
	}
}

// stream writes the reply as server-sent events. It stops early when the
// client goes away or the server closes.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, m msg) {
	s.streams.Add(1)
	defer s.streams.Add(-1)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_"+m.id)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(event string, data any) bool {
		b, err := json.Marshal(data)
		if err != nil {
			panic(err) // only plain structs and maps are sent
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	type obj = map[string]any

	start := m.whole()
	start.Content, start.StopReason = []any{}, nil
	start.Usage.OutputTokens = 1
	if !send("message_start", obj{"type": "message_start", "message": start}) ||
		!send("content_block_start", obj{"type": "content_block_start", "index": 0, "content_block": m.block(false)}) {
		return
	}
	// pause waits d, and reports false when the client or the server went away meanwhile.
	pause := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-r.Context().Done():
		case <-s.done:
		}
		return false
	}
	if m.pause && !pause(wakePause) {
		return
	}
	for i, d := range m.deltas() {
		if m.slow && i > 0 && !pause(s.slowGap) {
			return
		}
		if !send("content_block_delta", obj{"type": "content_block_delta", "index": 0, "delta": d}) {
			return
		}
	}
	for _, e := range []struct {
		name string
		data any
	}{
		{"content_block_stop", obj{"type": "content_block_stop", "index": 0}},
		{"message_delta", obj{
			"type":  "message_delta",
			"delta": obj{"stop_reason": m.stopReason(), "stop_sequence": nil},
			"usage": usage{InputTokens: 10, OutputTokens: m.outputTokens()},
		}},
		{"message_stop", obj{"type": "message_stop"}},
	} {
		if !send(e.name, e.data) {
			return
		}
	}
}

// deltas returns the content_block_delta deltas of the reply: the text a
// word at a time, or the tool input JSON in two halves.
func (m msg) deltas() []any {
	if m.tool != "" {
		in := []rune(string(m.input))
		half := len(in) / 2
		return []any{
			map[string]string{"type": "input_json_delta", "partial_json": string(in[:half])},
			map[string]string{"type": "input_json_delta", "partial_json": string(in[half:])},
		}
	}
	var ds []any
	words := strings.SplitAfter(m.text, " ")
	for _, w := range words {
		ds = append(ds, map[string]string{"type": "text_delta", "text": w})
	}
	return ds
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client hung up; nothing to tell it
}

// writeError writes an Anthropic-style error body.
func writeError(w http.ResponseWriter, status int, kind, text string) {
	writeJSON(w, status, map[string]any{
		"type":  "error",
		"error": map[string]string{"type": kind, "message": text},
	})
}
