package anthropic

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// event is one server-sent event, its data decoded.
type event struct {
	name string
	data map[string]any
}

// field returns the value at path in the event's data, nil when it is
// missing.
func (e event) field(path ...string) any {
	var v any = e.data
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func startServer(t *testing.T, gap time.Duration) *Server {
	t.Helper()
	s, err := start(gap)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// post sends body to path on s and returns the response.
func post(t *testing.T, ctx context.Context, s *Server, path, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// streamBody returns the body of a streaming request for text.
func streamBody(text string) string {
	return strings.Replace(prompt(text, allTools), `{"model"`, `{"stream":true,"model"`, 1)
}

// nextEvent reads one event from r; ok is false at the end of the stream.
func nextEvent(t *testing.T, r *bufio.Reader) (e event, ok bool) {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if e.name != "" {
				t.Fatalf("stream ended inside event %q", e.name)
			}
			return e, false
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			e.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &e.data); err != nil {
				t.Fatalf("event %q: data: %v", e.name, err)
			}
		case line == "":
			if e.field("type") != e.name {
				t.Fatalf("event %q has data type %v", e.name, e.field("type"))
			}
			return e, true
		default:
			t.Fatalf("unexpected stream line %q", line)
		}
	}
}

// readStream returns every event of a streamed reply, after checking the
// response is a 200 event stream.
func readStream(t *testing.T, resp *http.Response) []event {
	t.Helper()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(resp.Body)
	var events []event
	for {
		e, ok := nextEvent(t, r)
		if !ok {
			return events
		}
		events = append(events, e)
	}
}

// checkSequence checks the events are message_start, content_block_start,
// deltas, content_block_stop, message_delta, message_stop, and returns the
// deltas.
func checkSequence(t *testing.T, events []event) []event {
	t.Helper()
	var names []string
	for _, e := range events {
		names = append(names, e.name)
	}
	n := len(names)
	if n < 6 || !slices.Equal(names[:2], []string{"message_start", "content_block_start"}) ||
		!slices.Equal(names[n-3:], []string{"content_block_stop", "message_delta", "message_stop"}) {
		t.Fatalf("event sequence %v", names)
	}
	deltas := events[2 : n-3]
	for _, d := range deltas {
		if d.name != "content_block_delta" {
			t.Fatalf("event sequence %v", names)
		}
	}
	return deltas
}

func TestStreamText(t *testing.T) {
	s := startServer(t, slowGap)
	events := readStream(t, post(t, t.Context(), s, "/v1/messages?beta=true", streamBody("say hi")))
	deltas := checkSequence(t, events)
	if got := events[0].field("message", "model"); got != "claude-test" {
		t.Errorf("message_start model = %v, want the request's claude-test", got)
	}
	if got := events[0].field("message", "id"); got != "msg_fake_1" {
		t.Errorf("message id = %v, want msg_fake_1", got)
	}
	if got := events[1].field("content_block", "type"); got != "text" {
		t.Errorf("content block type = %v, want text", got)
	}
	var text string
	for _, d := range deltas {
		if d.field("delta", "type") != "text_delta" {
			t.Fatalf("delta %v, want a text_delta", d.data)
		}
		text += d.field("delta", "text").(string)
	}
	if text != "hi from the fake model" || len(deltas) < 2 {
		t.Errorf("streamed text %q in %d deltas, want %q in several", text, len(deltas), "hi from the fake model")
	}
	md := events[len(events)-2]
	if got := md.field("delta", "stop_reason"); got != "end_turn" {
		t.Errorf("stop_reason = %v, want end_turn", got)
	}
	if got, ok := md.field("usage", "output_tokens").(float64); !ok || got < 1 {
		t.Errorf("message_delta usage.output_tokens = %v, want a count", md.field("usage", "output_tokens"))
	}
}

func TestStreamToolUse(t *testing.T) {
	s := startServer(t, slowGap)
	tests := []struct {
		prompt, tool, input string
	}{
		{"run touch probe.txt", "Bash", `{"command":"touch probe.txt","description":"Run touch probe.txt"}`},
		{"run sleep 8", "Bash", `{"command":"sleep 8","description":"Run sleep 8"}`},
		{"write out.txt", "Write", `{"file_path":"out.txt","content":"written by the fake model\n"}`},
		{"ask me", "AskUserQuestion", askInput},
		{"plan", "ExitPlanMode", `{"plan":"1. Read the code\n2. Fix the bug"}`},
	}
	ids := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			events := readStream(t, post(t, t.Context(), s, "/v1/messages", streamBody(tt.prompt)))
			deltas := checkSequence(t, events)
			start := events[1]
			if start.field("content_block", "type") != "tool_use" || start.field("content_block", "name") != tt.tool {
				t.Fatalf("content_block_start %v, want a tool_use of %s", start.data, tt.tool)
			}
			if in, _ := json.Marshal(start.field("content_block", "input")); string(in) != "{}" {
				t.Errorf("content_block_start input = %s, want {}", in)
			}
			id, _ := start.field("content_block", "id").(string)
			if !strings.HasPrefix(id, "toolu_fake_") || ids[id] {
				t.Errorf("tool use id %q: want a fresh toolu_fake_N (seen %v)", id, ids)
			}
			ids[id] = true
			var input string
			for _, d := range deltas {
				if d.field("delta", "type") != "input_json_delta" {
					t.Fatalf("delta %v, want an input_json_delta", d.data)
				}
				input += d.field("delta", "partial_json").(string)
			}
			if !sameJSON(t, []byte(input), []byte(tt.input)) {
				t.Errorf("tool input %s, want %s", input, tt.input)
			}
			if got := events[len(events)-2].field("delta", "stop_reason"); got != "tool_use" {
				t.Errorf("stop_reason = %v, want tool_use", got)
			}
		})
	}
}

func TestNotStreaming(t *testing.T) {
	s := startServer(t, slowGap)
	for _, tt := range []struct {
		prompt, stop string
		block        string
	}{
		{"say hi", "end_turn", `{"type":"text","text":"hi from the fake model"}`},
		{"slow", "end_turn", `{"type":"text","text":"` + slowText + `"}`},
		{"run ls -l", "tool_use", `{"type":"tool_use","id":"toolu_fake_1","name":"Bash","input":{"command":"ls -l","description":"Run ls -l"}}`},
	} {
		t.Run(tt.prompt, func(t *testing.T) {
			resp := post(t, t.Context(), s, "/v1/messages", prompt(tt.prompt, allTools))
			var m struct {
				Type, Role, Model string
				Content           []json.RawMessage
			}
			body, _ := io.ReadAll(resp.Body)
			if err := json.Unmarshal(body, &m); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, body %s: %v", resp.StatusCode, body, err)
			}
			var stop struct {
				StopReason string `json:"stop_reason"`
			}
			_ = json.Unmarshal(body, &stop)
			if m.Type != "message" || m.Role != "assistant" || m.Model != "claude-test" || stop.StopReason != tt.stop || len(m.Content) != 1 {
				t.Fatalf("message %s, want an assistant message of claude-test, one block, stop %s", body, tt.stop)
			}
			if !sameJSON(t, m.Content[0], []byte(tt.block)) {
				t.Errorf("content %s, want %s", m.Content[0], tt.block)
			}
		})
	}
}

func TestFail(t *testing.T) {
	s := startServer(t, slowGap)
	for _, body := range []string{streamBody("fail"), prompt("fail", allTools)} {
		resp := post(t, t.Context(), s, "/v1/messages?beta=true", body)
		got, _ := io.ReadAll(resp.Body)
		want := `{"type":"error","error":{"type":"invalid_request_error","message":"fake failure"}}`
		if resp.StatusCode != http.StatusBadRequest || !sameJSON(t, got, []byte(want)) {
			t.Errorf("status %d body %s, want 400 %s", resp.StatusCode, got, want)
		}
	}
}

// TestEndpoints drives the server Start returns: the other endpoints, and
// what Requests counts.
func TestEndpoints(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Errorf("URL %q, want loopback", s.URL)
	}
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		req, _ := http.NewRequestWithContext(t.Context(), method, s.URL+"/", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s / = %d, want 200", method, resp.StatusCode)
		}
	}

	resp := post(t, t.Context(), s, "/v1/messages/count_tokens?beta=true", prompt("say hi", allTools))
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !sameJSON(t, got, []byte(`{"input_tokens":10}`)) {
		t.Errorf("count_tokens: %d %s", resp.StatusCode, got)
	}

	for _, tt := range []struct{ method, path, body string }{
		{http.MethodGet, "/v1/models", ""},
		{http.MethodPost, "/v1/complete", "{}"},
		{http.MethodGet, "/v1/messages", ""},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), tt.method, s.URL+tt.path, strings.NewReader(tt.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Type  string
			Error struct{ Type string }
		}
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || err != nil || e.Type != "error" || e.Error.Type != "not_found_error" {
			t.Errorf("%s %s = %d %+v (%v), want a 404 not_found_error", tt.method, tt.path, resp.StatusCode, e, err)
		}
	}

	resp = post(t, t.Context(), s, "/v1/messages", "{not json")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad body = %d, want 400", resp.StatusCode)
	}

	if s.Requests() != 0 {
		t.Errorf("Requests = %d before any message was answered, want 0", s.Requests())
	}
	readStream(t, post(t, t.Context(), s, "/v1/messages", streamBody("say hi")))
	io.Copy(io.Discard, post(t, t.Context(), s, "/v1/messages", prompt("say hi", allTools)).Body)
	io.Copy(io.Discard, post(t, t.Context(), s, "/v1/messages", prompt("fail", allTools)).Body)
	if s.Requests() != 3 {
		t.Errorf("Requests = %d, want 3 (a stream, a plain message, a failure)", s.Requests())
	}
}

func TestSlow(t *testing.T) {
	const gap = 20 * time.Millisecond
	s := startServer(t, gap)
	began := time.Now()
	events := readStream(t, post(t, t.Context(), s, "/v1/messages", streamBody("slow")))
	took := time.Since(began)
	deltas := checkSequence(t, events)
	var text string
	for _, d := range deltas {
		text += d.field("delta", "text").(string)
	}
	if len(deltas) != slowDeltas || text != slowText {
		t.Errorf("%d deltas, text %q; want %d, %q", len(deltas), text, slowDeltas, slowText)
	}
	if took < (slowDeltas-1)*gap {
		t.Errorf("slow reply took %v, want at least %v", took, (slowDeltas-1)*gap)
	}
	if slowDeltas*slowGap != 10*time.Second {
		t.Errorf("a real slow reply lasts %v, want 10s", slowDeltas*slowGap)
	}
}

// waitStreams waits up to within for s to have no stream under way.
func waitStreams(t *testing.T, s *Server, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); s.streams.Load() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a stream still runs %v later", within)
		}
	}
}

func TestSlowStopsWhenClientGoes(t *testing.T) {
	s := startServer(t, 3*time.Second) // longer than the wait below: only the disconnect can end it
	ctx, cancel := context.WithCancel(t.Context())
	r := bufio.NewReader(post(t, ctx, s, "/v1/messages", streamBody("slow")).Body)
	for range 3 { // message_start, content_block_start, the first delta
		if _, ok := nextEvent(t, r); !ok {
			t.Fatal("stream ended early")
		}
	}
	if s.streams.Load() != 1 {
		t.Fatalf("%d streams under way, want 1", s.streams.Load())
	}
	cancel()
	waitStreams(t, s, time.Second)
}

func TestCloseEndsSlowStream(t *testing.T) {
	s := startServer(t, time.Minute)
	r := bufio.NewReader(post(t, t.Context(), s, "/v1/messages", streamBody("slow")).Body)
	for range 3 {
		if _, ok := nextEvent(t, r); !ok {
			t.Fatal("stream ended early")
		}
	}
	began := time.Now()
	s.Close()
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("Close took %v with a slow stream open, want it prompt", took)
	}
	if s.streams.Load() != 0 {
		t.Errorf("a stream still runs after Close")
	}
	if rest, _ := io.ReadAll(r); strings.Contains(string(rest), "message_stop") {
		t.Errorf("the stream cut by Close went on to its end: %s", rest)
	}
}
