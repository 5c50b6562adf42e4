package emit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/adapter/copilot"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wire"
)

// The emitter's whole hold path (read the payload, post it saying it can hold, wait, print
// the decision) against a daemon that holds at once and answers the first wait. Its
// allocs/op guard the payload being decoded once: each extra decode of the same bytes adds
// its own (issue 32). The daemon here only discards what it is sent, so that what it does is
// not counted.

// answeringDaemon holds every hook for prompt p1 and answers its wait with answer.
func answeringDaemon(b *testing.B, answer wire.PromptWait) string {
	b.Helper()
	ack, _ := json.Marshal(wire.HookAck{OK: true, Hold: &wire.Hold{PromptID: "p1", ExpiresAt: time.Now().Add(time.Hour)}})
	wait, _ := json.Marshal(answer)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			_, _ = w.Write(ack)
			return
		}
		_, _ = w.Write(wait)
	}))
	b.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// benchHold runs emit (one of the Emitter's entry points) for payload b.N times against a
// daemon answering with answer, and fails when it does not print want.
func benchHold(b *testing.B, payload string, answer wire.PromptWait, want string, emit func(*Emitter, context.Context) error) {
	addr := answeringDaemon(b, answer)
	dir := filepath.Join(b.TempDir(), "state")
	if _, err := statedir.EnsureToken(dir); err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	e := &Emitter{Addr: addr, StateDir: dir, Getenv: envOf(nil), Timeout: EmitTimeout, Now: time.Now, Hold: true, Stdout: &out}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		out.Reset()
		e.Stdin = strings.NewReader(payload)
		if err := emit(e, context.Background()); err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(out.String(), want) {
			b.Fatalf("printed %q, want %q in it", out.String(), want)
		}
	}
}

func BenchmarkHoldClaudePermissionRequest(b *testing.B) {
	var p struct {
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	_ = json.Unmarshal([]byte(bashRequest), &p)
	answer := answeredWith("allow", "", "")
	answer.Subject = claude.Subject(p.ToolName, p.ToolInput)
	benchHold(b, bashRequest, answer, `"behavior":"allow"`, (*Emitter).Emit)
}

func BenchmarkHoldOpenCodeQuestion(b *testing.B) {
	answer := answeredWith("2", "Blue", "")
	answer.Subject = "que_1"
	benchHold(b, openCodeQuestion, answer, `"answers":[["Blue"]]`, (*Emitter).EmitOpenCode)
}

func BenchmarkHoldCopilotPermission(b *testing.B) {
	answer := answeredWith("allow", "", "")
	answer.Subject = copilot.Subject("bash", json.RawMessage(`{"command":"touch x"}`))
	benchHold(b, copilotPermission, answer, `"behavior":"allow"`, func(e *Emitter, ctx context.Context) error {
		return e.EmitCopilot(ctx, copilot.PermissionRequest)
	})
}
