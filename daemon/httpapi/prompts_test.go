package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/deliver"
	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/ptyhub"
	"github.com/trailboss/trailboss/daemon/wire"
)

// promptServer serves the API (holding on) over real HTTP, for long polls and streams.
type promptServer struct {
	engine *daemon.Engine
	holds  *daemon.Holds
	srv    *httptest.Server
	done   chan struct{}
}

func newPromptServer(t *testing.T) *promptServer {
	t.Helper()
	e := newEngine(t)
	holds, ptys := &daemon.Holds{}, &ptyhub.PTYHub{}
	done := make(chan struct{})
	core := &daemon.Core{Engine: e, Log: discard, HoldPermissions: true, Holds: holds, PTY: ptys,
		Done: done, Ingest: &daemon.Ingestor{Engine: e, Log: discard, Now: time.Now, SocketExists: func(path string) bool { return path == testSocket }},
		Deliver: &deliver.Deliverer{Engine: e, Log: discard, Holds: holds, PTY: ptys}}
	a := &httpapi.Server{Core: core, Token: testToken, Version: "v-test", Log: discard}
	s := &promptServer{engine: e, holds: holds, srv: httptest.NewServer(a.Handler()), done: done}
	t.Cleanup(func() { close(done); s.srv.Close() })
	return s
}

func (s *promptServer) request(t *testing.T, method, path, body string, headers ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		b.WriteString(sc.Text())
	}
	return resp.StatusCode, []byte(b.String())
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

const permissionTouch = `"tool_name":"Bash","tool_input":{"command":"touch x"}`

// holdingHook posts a PermissionRequest as a hook that can hold, and returns the hold.
func (s *promptServer) holdingHook(t *testing.T, session string) wire.Hold {
	t.Helper()
	code, body := s.request(t, http.MethodPost, "/v1/hooks/claude", hookBody(session, "PermissionRequest", permissionTouch),
		wire.HeaderPane, "%3", wire.HeaderTmux, testSocket+",1,0", wire.HeaderCanHold, "1")
	if code != http.StatusOK {
		t.Fatalf("hook: %d %s", code, body)
	}
	ack := decode[wire.HookAck](t, body)
	if ack.Hold == nil || ack.Hold.PromptID == "" {
		t.Fatalf("hook answer %s names no prompt to hold for", body)
	}
	return *ack.Hold
}

// A held PermissionRequest gets the operator's answer as its wait's result: the API answer
// says it went through the hook, and the queue item shows the prompt until then.
func TestHeldPermissionIsAnsweredThroughItsWait(t *testing.T) {
	s := newPromptServer(t)
	hold := s.holdingHook(t, "s1")

	_, qb := s.request(t, http.MethodGet, "/v1/queue", "")
	q := decode[wire.Queue](t, qb)
	if len(q.Items) != 1 || q.Items[0].Prompt == nil || q.Items[0].Prompt.ID != hold.PromptID ||
		q.Items[0].Prompt.Kind != wire.KindPermission || q.Items[0].Prompt.Question != "Bash: touch x" ||
		len(q.Items[0].Prompt.Choices) != 2 || q.Items[0].Prompt.Choices[0].Key != "allow" {
		t.Fatalf("queue = %s", qb)
	}

	waited := make(chan wire.PromptWait, 1)
	go func() {
		_, b := s.request(t, http.MethodGet, "/v1/prompts/"+hold.PromptID+"/wait?timeout=10s", "")
		waited <- decode[wire.PromptWait](t, b)
	}()
	code, body := s.request(t, http.MethodPost, "/v1/prompts/"+hold.PromptID+"/answer", `{"choice":"allow","channel":"popup"}`)
	if code != http.StatusOK {
		t.Fatalf("answer: %d %s", code, body)
	}
	if got := decode[wire.Delivered](t, body); got != (wire.Delivered{Delivered: true, Via: wire.ViaHook, Confirmed: true}) {
		t.Fatalf("answer = %+v", got)
	}
	select {
	case w := <-waited:
		if w.Status != wire.PromptAnswered || w.Answer == nil || w.Answer.Choice != "allow" || w.Answer.Label != "Allow" {
			t.Fatalf("wait = %+v", w)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the hook's wait did not return after the answer")
	}
	code, body = s.request(t, http.MethodPost, "/v1/prompts/"+hold.PromptID+"/answer", `{"choice":"allow"}`)
	if r := decode[wire.Refused](t, body); code != http.StatusConflict || r.Reason != wire.RefusedAnswered {
		t.Fatalf("second answer: %d %s", code, body)
	}
}

// When the terminal answers first (the tool ran: PostToolUse), the held hook's wait
// returns at once as withdrawn, so that the hook exits printing nothing.
func TestHeldPermissionAnsweredInTheTerminalReleasesTheHook(t *testing.T) {
	s := newPromptServer(t)
	hold := s.holdingHook(t, "s1")
	waited := make(chan wire.PromptWait, 1)
	go func() {
		_, b := s.request(t, http.MethodGet, "/v1/prompts/"+hold.PromptID+"/wait?timeout=10s", "")
		waited <- decode[wire.PromptWait](t, b)
	}()
	// Let the wait begin, so that it is released, not merely told: a hook holds the record
	// once its wait is registered.
	deadline := time.Now().Add(2 * time.Second)
	for !s.holds.Held(hold.PromptID) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	code, body := s.request(t, http.MethodPost, "/v1/hooks/claude", hookBody("s1", "PostToolUse", permissionTouch),
		wire.HeaderPane, "%3", wire.HeaderTmux, testSocket+",1,0")
	if code != http.StatusOK {
		t.Fatalf("PostToolUse: %d %s", code, body)
	}
	select {
	case w := <-waited:
		if w.Status != wire.PromptWithdrawn || w.Answer != nil {
			t.Fatalf("wait = %+v, want withdrawn", w)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the hook's wait did not return when the terminal answered")
	}
	code, body = s.request(t, http.MethodPost, "/v1/prompts/"+hold.PromptID+"/answer", `{"choice":"allow"}`)
	if r := decode[wire.Refused](t, body); code != http.StatusConflict || r.Reason != wire.RefusedChanged {
		t.Fatalf("late answer: %d %s", code, body)
	}
}

// Without holding, a PermissionRequest hook is told nothing and returns at once.
func TestNoHoldWhenHoldingIsOff(t *testing.T) {
	f := newAPI(t)
	rec := f.hook(hookBody("s1", "PermissionRequest", permissionTouch), "%3", header(wire.HeaderCanHold, "1"))
	mustStatus(t, rec, http.StatusOK)
	if strings.Contains(rec.Body.String(), "hold") {
		t.Fatalf("answer %s tells the hook to hold", rec.Body.String())
	}
}

// A trailboss run supervisor's prompt is answered through its stream, and the answer is
// delivered once it says it wrote it.
func TestPTYPromptIsAnsweredThroughTheSupervisorsStream(t *testing.T) {
	s := newPromptServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.srv.URL+"/v1/pty/answers?session=pty-0123456789abcdef", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || lines.Text() != "{}" {
		t.Fatalf("the stream does not open with a heartbeat: %q", lines.Text())
	}
	report := `{"session_id":"pty-0123456789abcdef","name":"deploy","state":"prompt","prompt":{"kind":"yes_no",
		"question":"Delete this file? (y/n)","choices":[{"key":"y","label":"yes"},{"key":"n","label":"no"}]}}`
	code, body := s.request(t, http.MethodPost, "/v1/pty/report", report)
	ack := decode[wire.PTYReportAck](t, body)
	if code != http.StatusOK || ack.PromptID == "" {
		t.Fatalf("report: %d %s", code, body)
	}
	// The same prompt reported again (a reconnect) keeps its record.
	if _, body := s.request(t, http.MethodPost, "/v1/pty/report", report); decode[wire.PTYReportAck](t, body).PromptID != ack.PromptID {
		t.Fatalf("the same prompt reported again got another record: %s", body)
	}

	answered := make(chan []byte, 1)
	go func() {
		_, b := s.request(t, http.MethodPost, "/v1/prompts/"+ack.PromptID+"/answer", `{"choice":"y"}`)
		answered <- b
	}()
	if !lines.Scan() {
		t.Fatal("no answer on the stream")
	}
	a := decode[wire.PTYAnswer](t, lines.Bytes())
	if a.PromptID != ack.PromptID || a.Data != "y\r" || a.AnswerID == "" {
		t.Fatalf("stream carried %+v", a)
	}
	s.request(t, http.MethodPost, "/v1/pty/written", `{"session_id":"pty-0123456789abcdef","answer_id":"`+a.AnswerID+`","ok":true}`)
	if got := decode[wire.Delivered](t, <-answered); got != (wire.Delivered{Delivered: true, Via: wire.ViaPTY, Confirmed: true}) {
		t.Fatalf("answer = %+v", got)
	}
}

// A report's answer names its prompt record even when an answer has claimed it already:
// the queue shows a record as soon as it is made, so an answer can be quicker than the
// reply to the report that made it (the Prompt Lab's answers are).
func TestPTYReportNamesItsRecordOnceClaimed(t *testing.T) {
	s := newPromptServer(t)
	// Both reports say what the supervisor saw before the answer came.
	seen := time.Now().UTC().Format(time.RFC3339Nano)
	report := `{"session_id":"pty-0123456789abcdef","name":"deploy","state":"prompt","at":"` + seen + `","prompt":{"kind":"yes_no",
		"question":"Delete this file? (y/n)","choices":[{"key":"y","label":"yes"},{"key":"n","label":"no"}]}}`
	_, body := s.request(t, http.MethodPost, "/v1/pty/report", report)
	id := decode[wire.PTYReportAck](t, body).PromptID
	if id == "" {
		t.Fatalf("report: %s", body)
	}
	if _, err := s.engine.ClaimPrompt(context.Background(), id, "y", "api"); err != nil {
		t.Fatal(err)
	}
	if _, body := s.request(t, http.MethodPost, "/v1/pty/report", report); decode[wire.PTYReportAck](t, body).PromptID != id {
		t.Fatalf("the report of a prompt claimed a moment ago is answered %s, want prompt_id %s", body, id)
	}
}

// Reports that are not of the protocol's shape are refused and change nothing.
func TestBadPTYReportsAreRefused(t *testing.T) {
	s := newPromptServer(t)
	for _, body := range []string{
		`{"session_id":"claude-1","state":"start"}`,
		`{"session_id":"pty-1","state":"sleeping"}`,
		`{"session_id":"pty-1","state":"prompt"}`,
		`{"session_id":"pty-1","state":"prompt","prompt":{"kind":"yes_no","question":"?"}}`,
		`{"session_id":"pty-1","state":"prompt","prompt":{"kind":"menu","question":"?","choices":[{"key":"1"}]}}`,
		`{"session_id":"pty-1","state":"prompt","prompt":{"kind":"choice","question":"?","choices":[{"key":"\u001b[A"}]}}`,
		`not json`,
	} {
		if code, b := s.request(t, http.MethodPost, "/v1/pty/report", body); code != http.StatusBadRequest {
			t.Errorf("report %s: %d %s, want 400", body, code, b)
		}
	}
	if len(s.engine.Snapshot()) != 0 {
		t.Fatalf("bad reports made sessions: %+v", s.engine.Snapshot())
	}
}

// The same question put again after it was answered (a program that did not like the
// answer) is a new prompt record, answerable again.
func TestPTYSameQuestionAfterItsAnswerIsAskedAnew(t *testing.T) {
	s := newPromptServer(t)
	report := func(at time.Time) string {
		return `{"session_id":"pty-0123456789abcdef","state":"prompt","at":"` + at.UTC().Format(time.RFC3339Nano) +
			`","prompt":{"kind":"yes_no","question":"Sure? (y/n)","choices":[{"key":"y","label":"yes"},{"key":"n","label":"no"}]}}`
	}
	_, body := s.request(t, http.MethodPost, "/v1/pty/report", report(time.Now()))
	first := decode[wire.PTYReportAck](t, body).PromptID
	if _, err := s.engine.ClaimPrompt(context.Background(), first, "n", "api"); err != nil {
		t.Fatal(err)
	}
	_, body = s.request(t, http.MethodPost, "/v1/pty/report", report(time.Now()))
	second := decode[wire.PTYReportAck](t, body).PromptID
	if second == "" || second == first {
		t.Fatalf("asked again after its answer: prompt %q, want a new record (first %s)", second, first)
	}
	if p, ok := s.engine.PendingPrompt("pty-0123456789abcdef"); !ok || p.ID != second {
		t.Fatalf("pending prompt = %+v %v, want %s", p, ok, second)
	}
}
