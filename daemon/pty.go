package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// The daemon's side of trailboss run (docs/delivery.md): the supervisor reports what its
// child's output shows, and holds a stream open on which answers come back.

// ptyHeartbeat is how often an idle answer stream carries an empty object, so that either
// side notices a dead connection.
const ptyHeartbeat = 10 * time.Second

// maxPTYChoices caps a reported menu: a choice is one key.
const maxPTYChoices = 20

// ptyEvent turns a supervisor's report into the event it says.
func ptyEvent(rep wire.PTYReport, pane, tmux string, now time.Time) (adapter.Event, error) {
	if !strings.HasPrefix(rep.SessionID, "pty-") || len(rep.SessionID) > 64 {
		return adapter.Event{}, fmt.Errorf("session_id %q is not a trailboss run session (pty-…)", adapter.CleanText(rep.SessionID, 40))
	}
	socket, err := adapter.SocketFromTmuxEnv(tmux)
	if err != nil {
		return adapter.Event{}, err
	}
	if pane != "" && !adapter.ValidPane(pane) {
		return adapter.Event{}, fmt.Errorf("pane %q is not a tmux pane id", adapter.CleanText(pane, 20))
	}
	at := rep.At
	if at.IsZero() || at.After(now.Add(2*time.Second)) {
		at = now
	}
	name := adapter.CleanText(rep.Name, 80)
	ev := adapter.Event{Harness: queue.HarnessPTY, SessionID: rep.SessionID, Pane: pane, TmuxSocket: socket,
		Cwd: adapter.CleanText(rep.Cwd, adapter.MaxPathLen), At: at}
	switch rep.State {
	case wire.PTYStart:
		ev.Kind = adapter.KindStart
	case wire.PTYWorking:
		ev.Kind = adapter.KindUnstuck
	case wire.PTYExit:
		ev.Kind, ev.Detail = adapter.KindEnd, fmt.Sprintf("exit %d", rep.ExitCode)
	case wire.PTYPrompt:
		ask, err := ptyAsk(rep.Prompt)
		if err != nil {
			return adapter.Event{}, err
		}
		what := ask.Question
		if what == "" {
			what = adapter.CleanText(rep.Prompt.Excerpt, 300)
		}
		summary := what
		if name != "" {
			summary = name + ": " + what
		}
		reason, detail := adapter.ReasonPermission, ask.Kind
		if ask.Kind == adapter.AskFreeText {
			reason, detail = adapter.ReasonStopped, "input"
		}
		if rep.Prompt.LowConfidence {
			detail = "unsure"
		}
		ev.Stuck(reason, detail, summary)
		ev.Ask = ask
	default:
		return adapter.Event{}, fmt.Errorf("state %q is not start, prompt, working or exit", adapter.CleanText(rep.State, 20))
	}
	return adapter.Finish(ev, true, rep.State, nil)
}

func ptyAsk(p *wire.PTYPromptReport) (*adapter.Ask, error) {
	if p == nil {
		return nil, fmt.Errorf("state prompt needs a prompt")
	}
	ask := &adapter.Ask{Kind: p.Kind, Question: adapter.CleanText(p.Question, 300), From: adapter.AskFromPTY}
	switch p.Kind {
	case adapter.AskYesNo, adapter.AskMenu, adapter.AskPressEnter:
		if len(p.Choices) == 0 || len(p.Choices) > maxPTYChoices {
			return nil, fmt.Errorf("a %s prompt needs 1 to %d choices", p.Kind, maxPTYChoices)
		}
	case adapter.AskFreeText:
		if len(p.Choices) > 0 {
			return nil, fmt.Errorf("a free_text prompt has no choices")
		}
		// The supervisor says so; the question is read here too, so that a supervisor that
		// does not say (an older trailboss run) still has its password prompts kept secret.
		ask.Secret = p.Secret || termprompt.Classify(ask.Question).Secret
	default:
		return nil, fmt.Errorf("prompt kind %q is not yes_no, choice, press_enter or free_text", adapter.CleanText(p.Kind, 20))
	}
	for _, c := range p.Choices {
		key := strings.TrimSpace(c.Key)
		if key == "" || len(key) > 16 || strings.ContainsFunc(key, func(r rune) bool { return r < ' ' && r != '\r' }) {
			return nil, fmt.Errorf("choice key %q is not a short printable key", adapter.CleanText(c.Key, 20))
		}
		ask.Choices = append(ask.Choices, adapter.AskChoice{Key: key, Label: adapter.CleanText(c.Label, 200)})
	}
	return ask, nil
}

func (a *API) ptyReport(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var rep wire.PTYReport
	if err := json.Unmarshal(body, &rep); err != nil {
		writeError(w, http.StatusBadRequest, "the report is not JSON of docs/delivery.md's shape: "+adapter.CleanText(err.Error(), 200))
		return
	}
	ev, err := ptyEvent(rep, r.Header.Get(wire.HeaderPane), r.Header.Get(wire.HeaderTmux), time.Now())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !a.Ingest.socketOK(ev.TmuxSocket) {
		writeError(w, http.StatusBadRequest, "tmux socket "+adapter.CleanText(ev.TmuxSocket, 200)+" does not exist or is not a socket")
		return
	}
	if _, err := a.Engine.Ingest(context.WithoutCancel(r.Context()), ev); err != nil {
		writeError(w, http.StatusServiceUnavailable, "not stored: "+err.Error())
		return
	}
	a.Ingest.events.Add(1)
	out := wire.PTYReportAck{OK: true}
	if rep.State == wire.PTYPrompt {
		// Its record, even when an answer claimed it already: the queue shows a record as
		// soon as it is made, so a quick answer can come before this reply (the answer
		// then waits on the stream for the supervisor to know the id).
		if p, ok := a.Engine.CurrentPrompt(rep.SessionID); ok {
			out.PromptID = p.ID
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// ptyAnswers holds the supervisor's answer stream open: one JSON object a line.
func (a *API) ptyAnswers(w http.ResponseWriter, r *http.Request) {
	session, ok := sessionParam(w, r)
	if !ok {
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "this server cannot stream")
		return
	}
	answers, detach := a.PTY.Attach(session)
	defer detach()
	defer a.retireUnlessBack(session)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	// No deadlines for this one connection: it lives as long as the supervisor (the
	// server's read timeout would cancel the request).
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	_ = enc.Encode(wire.PTYAnswer{})
	flusher.Flush()
	beat := time.NewTicker(ptyHeartbeat)
	defer beat.Stop()
	for {
		var msg wire.PTYAnswer
		select {
		case <-r.Context().Done():
			return
		case <-a.Done:
			return
		case msg = <-answers:
		case <-beat.C:
		}
		if err := enc.Encode(msg); err != nil {
			return
		}
		flusher.Flush()
	}
}

// ptyGone is how long a supervisor whose stream closed has to come back before its session
// is taken for dead (killed without a word): a daemon restart or a network hiccup costs a
// reconnect well within it.
const ptyGone = 10 * time.Second

// retireUnlessBack ends session's record unless its supervisor holds a stream again within
// ptyGone; not when the daemon itself is stopping.
func (a *API) retireUnlessBack(session string) {
	select {
	case <-a.Done:
		return
	default:
	}
	time.AfterFunc(ptyGone, func() {
		if a.PTY.Attached(session) {
			return
		}
		if s, ok := a.Engine.Session(session); !ok || s.Harness != queue.HarnessPTY {
			return
		}
		if err := a.Engine.Retire(context.Background(), []string{session}, time.Now()); err != nil {
			a.Log.Warn("retire a trailboss run session whose supervisor is gone", "session", session, "err", err)
		} else {
			a.Log.Info("trailboss run session ended: its supervisor went away without a word", "session", session)
		}
	})
}

func (a *API) ptyWritten(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var wr wire.PTYWritten
	if err := json.Unmarshal(body, &wr); err != nil || wr.SessionID == "" || wr.AnswerID == "" {
		writeError(w, http.StatusBadRequest, "expected {\"session_id\", \"answer_id\", \"ok\"}")
		return
	}
	writeJSON(w, http.StatusOK, wire.PTYWrittenAck{OK: true, Expected: a.PTY.Written(wr)})
}
