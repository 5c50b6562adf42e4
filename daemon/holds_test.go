package daemon

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/store"
)

// Ingest returns the record its event opened, and what the record asks about is kept on
// disk: after a restart the hook still learns it.
func TestPromptSubjectIsStored(t *testing.T) {
	e, path := newEngine(t)
	ev := event("s1", adapter.KindStuck, time.Now(), "%3")
	ev.Reason, ev.Summary = adapter.ReasonPermission, "Bash: touch x"
	ev.Ask = adapter.PermissionAsk("Bash: touch x", adapter.AskFromHook)
	ev.Ask.Subject = claudeSubject("Bash", json.RawMessage(`{"command":"touch x"}`))
	out, err := e.Ingest(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if out.Prompt == nil || out.Prompt.Ask.Subject != ev.Ask.Subject {
		t.Fatalf("Ingest returned the record %+v, want the one its event opened", out.Prompt)
	}
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, found, err := st.LoadPrompt(context.Background(), out.Prompt.ID)
	if err != nil || !found || got.Ask.Subject != ev.Ask.Subject {
		t.Fatalf("stored %+v (found %v, %v), want subject %s", got.Ask, found, err, ev.Ask.Subject)
	}
}

// claudeSubject is what a Claude Code call of tool with input asks about: the Subject of its
// pending call, as Claude Code's transcript reader (harnesses.go) makes it, which its
// PermissionRequest's hook says too.
func claudeSubject(tool string, input json.RawMessage) string {
	return transcriptReaders[adapter.HarnessClaude].PendingCall("", tool, "", input).Ask.Subject
}
