package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// titlePrompt is the hidden title request's user text as Codex 0.169.0 sends it; it quotes the
// user's prompt, which here would match other scripts too.
const titlePrompt = "Generate a concise, single-line task title of at most 36 characters and under five " +
	"words where possible. Start with an imperative verb. Do not answer the request.\n\n" +
	"User prompt:\nsay hi and run ls slowly"

// execCommandParams are the parameters of exec_command in the tools list of Codex 0.169.0's
// requests.
var execCommandParams = []string{"cmd", "justification", "login", "max_output_tokens", "prefix_rule",
	"sandbox_permissions", "shell", "tty", "workdir", "yield_time_ms"}

// textEvents and callEvents are the event sequences of a text and a function call reply, with
// runs of deltas shown once.
var (
	textEvents = []string{"response.created", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.done", "response.content_part.done",
		"response.output_item.done", "response.completed"}
	callEvents = []string{"response.created", "response.output_item.added",
		"response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.output_item.done", "response.completed"}
)

type event struct {
	name string
	data map[string]any
}

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func message(role, text string) map[string]any {
	return map[string]any{"type": "message", "role": role,
		"content": []any{map[string]any{"type": "input_text", "text": text}}}
}

// codexInput returns a request input shaped like Codex's: instructions, the environment
// context as a user message, then the user's prompt, then extra items.
func codexInput(prompt string, extra ...map[string]any) []map[string]any {
	in := []map[string]any{
		message("developer", "You are a coding agent running in the Codex CLI. say hi. run. slow."),
		message("user", "<environment_context>\n  <cwd>/tmp/work</cwd>\n</environment_context>"),
		message("user", prompt),
	}
	return append(in, extra...)
}

// post sends a Responses request with input and returns the response.
func post(t *testing.T, ctx context.Context, s *Server, input []map[string]any) *http.Response {
	t.Helper()
	body, err := json.Marshal(map[string]any{"model": "fake-model", "stream": true, "input": input,
		"tools": []any{map[string]any{"type": "function", "name": "exec_command"}}})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, "POST", s.URL+"/responses", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("POST /v1/responses: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	return resp
}

// nextEvent reads one event from an SSE stream, checking that its data names it and carries
// the next sequence number; it returns false at the end of the stream.
func nextEvent(t *testing.T, sc *bufio.Scanner, seq int) (event, bool) {
	t.Helper()
	var ev event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data); err != nil {
				t.Fatalf("event %q data: %v", ev.name, err)
			}
		case line == "" && ev.name != "":
			if ev.data["type"] != ev.name || ev.data["sequence_number"] != float64(seq) {
				t.Fatalf("event %q has type %v, sequence_number %v, want %d", ev.name, ev.data["type"], ev.data["sequence_number"], seq)
			}
			return ev, true
		case line == "":
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if ev.name != "" {
		t.Fatalf("stream ended inside event %q", ev.name)
	}
	return event{}, false
}

// events posts input and returns every event of the reply.
func events(t *testing.T, s *Server, input []map[string]any) []event {
	t.Helper()
	resp := post(t, context.Background(), s, input)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var evs []event
	for {
		ev, ok := nextEvent(t, sc, len(evs))
		if !ok {
			return evs
		}
		evs = append(evs, ev)
	}
}

// names returns the events' names with each run of one name shown once.
func names(evs []event) []string {
	var ns []string
	for _, ev := range evs {
		ns = append(ns, ev.name)
	}
	return slices.Compact(ns)
}

func field[T any](t *testing.T, m any, path ...string) T {
	t.Helper()
	for _, k := range path {
		mm, ok := m.(map[string]any)
		if !ok {
			t.Fatalf("%v is not an object on the way to %v", m, path)
		}
		m = mm[k]
	}
	v, ok := m.(T)
	if !ok {
		t.Fatalf("%v: %#v is a %T", path, m, m)
	}
	return v
}

// replyText checks that evs are a whole text reply, that its deltas, done event, item and
// completed response agree, and returns its text.
func replyText(t *testing.T, evs []event) string {
	t.Helper()
	if got := names(evs); !slices.Equal(got, textEvents) {
		t.Fatalf("events %q, want %q", got, textEvents)
	}
	var deltas strings.Builder
	for _, ev := range evs {
		if ev.name == "response.output_text.delta" {
			deltas.WriteString(field[string](t, ev.data, "delta"))
		}
	}
	text := deltas.String()
	// The events end output_text.done, content_part.done, output_item.done, completed.
	end := evs[len(evs)-4:]
	if got := field[string](t, end[0].data, "text"); got != text {
		t.Errorf("output_text.done text %q, deltas %q", got, text)
	}
	if got := field[string](t, end[1].data, "part", "text"); got != text {
		t.Errorf("content_part.done text %q, deltas %q", got, text)
	}
	item := field[map[string]any](t, end[2].data, "item")
	if item["type"] != "message" || item["role"] != "assistant" {
		t.Errorf("output item %v is not an assistant message", item)
	}
	if got := field[string](t, item["content"].([]any)[0], "text"); got != text {
		t.Errorf("output item text %q, deltas %q", got, text)
	}
	checkCompleted(t, evs[len(evs)-1], item)
	return text
}

// checkCompleted checks that a response.completed event carries item as its output, and usage.
func checkCompleted(t *testing.T, ev event, item map[string]any) {
	t.Helper()
	resp := field[map[string]any](t, ev.data, "response")
	if resp["status"] != "completed" {
		t.Errorf("completed response status %v", resp["status"])
	}
	out := field[[]any](t, resp, "output")
	if len(out) != 1 || !jsonEqual(out[0], item) {
		t.Errorf("completed output %v, want [%v]", out, item)
	}
	in, outTok := field[float64](t, resp, "usage", "input_tokens"), field[float64](t, resp, "usage", "output_tokens")
	if total := field[float64](t, resp, "usage", "total_tokens"); in <= 0 || outTok <= 0 || total != in+outTok {
		t.Errorf("usage %v", resp["usage"])
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func TestTextScripts(t *testing.T) {
	t.Parallel()
	s := start(t)
	callOutput := func(out any) []map[string]any {
		return codexInput("say hi",
			map[string]any{"type": "function_call", "call_id": "call_1", "name": "exec_command", "arguments": "{}"},
			map[string]any{"type": "function_call_output", "call_id": "call_1", "output": out})
	}
	tests := []struct {
		name  string
		input []map[string]any
		want  string
	}{
		{"say hi", codexInput("say hi"), "hi from the fake model"},
		{"say hi in any case, anywhere", codexInput("Could you SAY HI please"), "hi from the fake model"},
		{"the last user message counts", append(codexInput("say hi"), message("user", "what now")), "ok"},
		{"title request before the prompt it quotes", codexInput(titlePrompt), `{"title":"Greet the user"}`},
		{"say hi before run", codexInput("say hi, then run ls"), "hi from the fake model"},
		{"anything else", codexInput("what is 2+2?"), "ok"},
		{"no user message", []map[string]any{message("developer", "say hi")}, "ok"},
		{"short message form", []map[string]any{{"role": "user", "content": "say hi"}}, "hi from the fake model"},
		{"command output after Codex's header", callOutput("Chunk ID: 555142\nWall time: 0.0000 seconds\n" +
			"Process exited with code 0\nOriginal token count: 3\nOutput:\nprobe.txt\n"), "ran it: probe.txt"},
		{"command output as parts", callOutput([]any{map[string]any{"type": "input_text", "text": "a.txt\nb.txt"}}),
			"ran it: a.txt\nb.txt"},
		{"command output cut at 60 characters", callOutput(strings.Repeat("é", 59) + "xyz"),
			"ran it: " + strings.Repeat("é", 59) + "x"},
		{"command refused", callOutput("approval policy is Never; reject command — you cannot ask for escalated permissions"),
			"ran it: approval policy is Never; reject command — you cannot ask fo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := replyText(t, events(t, s, tt.input)); got != tt.want {
				t.Errorf("reply %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRunScriptCallsExecCommandForApproval(t *testing.T) {
	t.Parallel()
	s := start(t)
	tests := []struct{ prompt, cmd string }{
		{"run touch probe.txt && ls", "touch probe.txt && ls"},
		{"Please RUN echo \"slow\" > out.txt", "echo \"slow\" > out.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			evs := events(t, s, codexInput(tt.prompt))
			if got := names(evs); !slices.Equal(got, callEvents) {
				t.Fatalf("events %q, want %q", got, callEvents)
			}
			added := field[map[string]any](t, evs[1].data, "item")
			item := field[map[string]any](t, evs[len(evs)-2].data, "item")
			if item["type"] != "function_call" || item["name"] != "exec_command" || item["call_id"] == "" ||
				item["call_id"] != added["call_id"] || item["id"] != added["id"] {
				t.Fatalf("output item %v (added as %v) is not one exec_command call", item, added)
			}
			raw := field[string](t, item, "arguments")
			if d, done := field[string](t, evs[2].data, "delta"), field[string](t, evs[3].data, "arguments"); d != raw || done != raw {
				t.Errorf("arguments delta %q, done %q, item %q", d, done, raw)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(raw), &args); err != nil {
				t.Fatalf("arguments %q: %v", raw, err)
			}
			for k := range args {
				if !slices.Contains(execCommandParams, k) {
					t.Errorf("argument %q is not a parameter of exec_command", k)
				}
			}
			if args["cmd"] != tt.cmd || args["sandbox_permissions"] != "require_escalated" ||
				!strings.Contains(field[string](t, args, "justification"), tt.cmd) {
				t.Errorf("arguments %v, want cmd %q escalated with a justification", args, tt.cmd)
			}
			checkCompleted(t, evs[len(evs)-1], item)
		})
	}
}

func TestSlowScriptStreamsForTenSeconds(t *testing.T) {
	t.Parallel()
	s := start(t)
	began := time.Now()
	evs := events(t, s, codexInput("go slow"))
	took := time.Since(began)
	want := "slow-1 slow-2 slow-3 slow-4 slow-5 slow-6 slow-7 slow-8 slow-9 slow-10 slow-11 slow-12 " +
		"slow-13 slow-14 slow-15 slow-16 slow-17 slow-18 slow-19 slow-20"
	if got := replyText(t, evs); got != want {
		t.Errorf("reply %q, want %q", got, want)
	}
	deltas := 0
	for _, ev := range evs {
		if ev.name == "response.output_text.delta" {
			deltas++
		}
	}
	if deltas != 20 || took < 9*time.Second || took > 12*time.Second {
		t.Errorf("%d deltas in %v, want 20 in about 10s", deltas, took)
	}
}

// startSlow posts a slow request and returns its stream once the first delta has arrived.
func startSlow(t *testing.T, ctx context.Context, s *Server) (*http.Response, *bufio.Scanner) {
	t.Helper()
	resp := post(t, ctx, s, codexInput("slow"))
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	for seq := 0; ; seq++ {
		ev, ok := nextEvent(t, sc, seq)
		if !ok {
			t.Fatal("slow stream ended before its first delta")
		}
		if ev.name == "response.output_text.delta" {
			return resp, sc
		}
	}
}

func TestSlowScriptStopsWhenClientLeaves(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	startSlow(t, ctx, s)
	if n := s.streams.Load(); n != 1 {
		t.Fatalf("%d streams under way, want 1", n)
	}
	cancel()
	// Promptly means before the next delta is due, 500 ms on: waiting for a write to fail
	// would take at least that long.
	deadline := time.Now().Add(400 * time.Millisecond)
	for s.streams.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slow stream is still being written 400ms after its client left")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCloseEndsSlowStream(t *testing.T) {
	t.Parallel()
	s := start(t)
	resp, _ := startSlow(t, context.Background(), s)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(400 * time.Millisecond): // before the next delta is due
		t.Fatal("Close did not return within 400ms during a slow stream")
	}
	rest, _ := io.ReadAll(resp.Body) // an error is what a cut stream gives
	if bytes.Contains(rest, []byte("response.completed")) {
		t.Error("the slow stream completed although the server closed")
	}
}

func TestRequestsCountsAnsweredResponses(t *testing.T) {
	t.Parallel()
	s := start(t)
	events(t, s, codexInput("say hi"))
	events(t, s, codexInput(titlePrompt))
	resp, err := http.Post(s.URL+"/responses", "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad request body: %s, want 400", resp.Status)
	}
	if got := s.Requests(); got != 2 {
		t.Errorf("Requests() = %d, want 2", got)
	}
}

func TestOtherPaths(t *testing.T) {
	t.Parallel()
	s := start(t)
	tests := []struct {
		method, path string
		status       int
		check        func(t *testing.T, body map[string]any)
	}{
		{"GET", "/models", http.StatusOK, func(t *testing.T, body map[string]any) {
			data := field[[]any](t, body, "data")
			if body["object"] != "list" || len(data) != 1 || field[string](t, data[0], "id") != "fake-model" {
				t.Errorf("models %v, want a list of fake-model", body)
			}
		}},
		{"GET", "/responses", http.StatusNotFound, nil},
		{"GET", "/chat/completions", http.StatusNotFound, nil},
		{"POST", "/responses/compact", http.StatusNotFound, nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, s.URL+tt.path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("%s: body: %v", resp.Status, err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("%s, want %d", resp.Status, tt.status)
			}
			if tt.check != nil {
				tt.check(t, body)
			} else if field[string](t, body, "error", "message") == "" {
				t.Errorf("error body %v has no message", body)
			}
		})
	}
	if got := s.Requests(); got != 0 {
		t.Errorf("Requests() = %d after no responses, want 0", got)
	}
}

func TestProviderConfig(t *testing.T) {
	t.Parallel()
	s := start(t)
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.HasSuffix(s.URL, "/v1") {
		t.Errorf("URL %q, want http://127.0.0.1:PORT/v1", s.URL)
	}
	toml, env := s.ProviderConfig()
	// Read the lines as TOML key = value pairs under their table.
	got := map[string]string{}
	table := ""
	for _, line := range strings.Split(toml, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "[") {
			table = strings.Trim(line, "[]") + "."
			continue
		}
		k, v, ok := strings.Cut(line, " = ")
		if !ok {
			t.Fatalf("line %q is not key = value", line)
		}
		got[table+k] = v
	}
	want := map[string]string{
		"model":                                    `"fake-model"`,
		"model_provider":                           `"fake"`,
		"model_providers.fake.name":                `"fake"`,
		"model_providers.fake.base_url":            `"` + s.URL + `"`,
		"model_providers.fake.wire_api":            `"responses"`,
		"model_providers.fake.env_key":             `"` + env + `"`,
		"model_providers.fake.request_max_retries": "0",
		"model_providers.fake.stream_max_retries":  "0",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("config has %d keys, want %d:\n%s", len(got), len(want), toml)
	}
	if env == "" || strings.ContainsAny(env, " =\"") {
		t.Errorf("env key %q is not a variable name", env)
	}
}
