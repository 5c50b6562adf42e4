package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/deliver"
	"github.com/trailboss/trailboss/daemon/httpapi"
	"github.com/trailboss/trailboss/daemon/ptyhub"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/wire"
)

const ptySession = "pty-0123456789abcdef"

// ptyDaemon serves the real API, with the PTY hub and delivery, over real HTTP.
func ptyDaemon(t *testing.T) *client.Client {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	tok, err := statedir.EnsureToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(dir, statedir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.DiscardHandler)
	engine, err := daemon.NewEngine(ctx, st, time.Minute, log)
	if err != nil {
		t.Fatal(err)
	}
	ptys, done := &ptyhub.PTYHub{}, make(chan struct{})
	api := &httpapi.Server{Token: tok, Version: "v", Log: log, Core: &daemon.Core{Engine: engine, Log: log, PTY: ptys, Done: done,
		Ingest:  &daemon.Ingestor{Engine: engine, Log: log, Now: time.Now, SocketExists: func(p string) bool { return p == "/tmp/tb-test-sock" }},
		Deliver: &deliver.Deliverer{Engine: engine, Log: log, PTY: ptys}}}
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(func() { close(done); srv.Close() })
	c, err := client.New(strings.TrimPrefix(srv.URL, "http://"), dir, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The supervisor's three calls against the real API: start and prompt reports (from a
// tmux pane), the answer stream carrying a person's answer, and the written
// acknowledgement that makes the answer delivered.
func TestPTYProtocolAgainstTheRealAPI(t *testing.T) {
	c := ptyDaemon(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := wire.PTYReport{SessionID: ptySession, Name: "deploy", Cwd: "/src", PID: os.Getpid(), At: time.Now()}
	start := base
	start.State = wire.PTYStart
	if _, err := c.PTYReport(ctx, start, "%3", "/tmp/tb-test-sock,1,0"); err != nil {
		t.Fatal(err)
	}
	got := make(chan wire.PTYAnswer, 1)
	streamDone := make(chan struct{})
	var streamErr error
	go func() {
		defer close(streamDone)
		streamErr = c.PTYAnswers(ctx, ptySession, func(a wire.PTYAnswer) { got <- a })
	}()
	rep := base
	rep.State = wire.PTYPrompt
	rep.Prompt = &wire.PTYPromptReport{Kind: wire.KindYesNo, Question: "Delete this file? (y/n)",
		Choices: []wire.Choice{{Key: "y", Label: "Yes"}, {Key: "n", Label: "No"}}, Excerpt: "Delete this file? (y/n)"}
	ack, err := c.PTYReport(ctx, rep, "%3", "/tmp/tb-test-sock,1,0")
	if err != nil || !ack.OK || !strings.HasPrefix(ack.PromptID, "p") {
		t.Fatalf("prompt report: %+v %v", ack, err)
	}
	items, err := c.Queue(ctx)
	if err != nil || len(items) != 1 || items[0].Pane != "%3" || items[0].Prompt == nil || items[0].Prompt.ID != ack.PromptID {
		t.Fatalf("queue %+v %v: want the session in pane %%3 with its prompt", items, err)
	}

	delivered := make(chan error, 1)
	go func() {
		var err error
		deadline := time.Now().Add(5 * time.Second)
		for {
			var out wire.Delivered
			out, err = c.Answer(ctx, ack.PromptID, wire.Answer{Choice: "y"})
			if err == nil && !out.Delivered {
				err = fmt.Errorf("answer %+v", out)
			}
			// The stream may not be attached yet: the daemon refuses until it is.
			var refused *client.AnswerRefusedError
			if err == nil || !errors.As(err, &refused) || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		delivered <- err
	}()
	var a wire.PTYAnswer
	select {
	case a = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("no answer came on the stream")
	}
	if a.PromptID != ack.PromptID || a.Data != "y\r" || a.AnswerID == "" {
		t.Fatalf("stream carried %+v", a)
	}
	if err := c.PTYWritten(ctx, wire.PTYWritten{SessionID: ptySession, AnswerID: a.AnswerID, OK: true}); err != nil {
		t.Fatal(err)
	}
	if err := <-delivered; err != nil {
		t.Fatalf("the answer was not delivered: %v", err)
	}
	cancel()
	<-streamDone
	if !errors.Is(streamErr, context.Canceled) {
		t.Fatalf("the stream ended with %v, want the context's end", streamErr)
	}
}

// A refused report and a refused stream are *RefusedError; a daemon that is not there is
// ErrDown; a stream the daemon closes is an error that says so.
func TestPTYErrors(t *testing.T) {
	c := ptyDaemon(t)
	ctx := context.Background()
	var refused *client.RefusedError
	if _, err := c.PTYReport(ctx, wire.PTYReport{SessionID: "claude-1", State: wire.PTYStart}, "", ""); !errors.As(err, &refused) {
		t.Fatalf("a report of another harness's session: %v, want refused", err)
	}
	if err := c.PTYAnswers(ctx, "", func(wire.PTYAnswer) {}); !errors.As(err, &refused) {
		t.Fatalf("a stream without a session: %v, want refused", err)
	}

	closing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, `{}`)
		fmt.Fprintln(w, `{"answer_id":"a1","prompt_id":"p1","data":"y\r"}`)
	}))
	defer closing.Close()
	dir := t.TempDir()
	if _, err := statedir.EnsureToken(dir); err != nil {
		t.Fatal(err)
	}
	cc, err := client.New(strings.TrimPrefix(closing.URL, "http://"), dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var answers []wire.PTYAnswer
	err = cc.PTYAnswers(ctx, ptySession, func(a wire.PTYAnswer) { answers = append(answers, a) })
	if len(answers) != 1 || answers[0].Data != "y\r" || err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("answers %+v, err %v: want the one answer (not the heartbeat), then an error that the stream closed", answers, err)
	}
	closing.Close()
	if err := cc.PTYAnswers(ctx, ptySession, func(wire.PTYAnswer) {}); !errors.Is(err, client.ErrDown) {
		t.Fatalf("no daemon: %v, want ErrDown", err)
	}
}
