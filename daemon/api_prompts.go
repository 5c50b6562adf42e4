package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// promptRoutes adds the delivery routes (docs/delivery.md).
func (a *API) promptRoutes(r chi.Router) {
	r.Post(wire.RouteAnswer, a.answerPrompt)
	r.Get(wire.RouteWait, a.waitPrompt)
	r.Get(wire.RouteDeliveries, a.deliveries)
	r.Post(wire.RoutePTYReport, a.ptyReport)
	r.Get(wire.RoutePTYAnswers, a.ptyAnswers)
	r.Post(wire.RoutePTYWritten, a.ptyWritten)
}

func toPrompt(p *queue.Prompt) *wire.Prompt {
	if p == nil {
		return nil
	}
	out := &wire.Prompt{ID: p.ID, Kind: p.Ask.Kind, Question: p.Ask.Question, ExpiresAt: p.ExpiresAt, Secret: p.Ask.Secret,
		Choices: make([]wire.Choice, len(p.Ask.Choices))}
	for i, c := range p.Ask.Choices {
		out.Choices[i] = wire.Choice{Key: c.Key, Label: c.Label}
	}
	return out
}

// toClosedPrompt is what GET /v1/queue shows of a record that takes no answers.
func toClosedPrompt(p *queue.Prompt) *wire.ClosedPrompt {
	if p == nil {
		return nil
	}
	out := &wire.ClosedPrompt{ID: p.ID, Status: p.Status, ClosedAt: p.ClosedAt}
	if p.Status == queue.PromptAnswered {
		out.Channel, out.Answer = p.Channel, p.Answer
	}
	if out.ClosedAt.IsZero() && p.Status == queue.PromptExpired {
		out.ClosedAt = p.ExpiresAt
	}
	return out
}

func validPromptID(id string) bool {
	if len(id) != 17 || id[0] != 'p' {
		return false
	}
	for _, c := range id[1:] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

func (a *API) answerPrompt(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var ans wire.Answer
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ans); err != nil {
		writeError(w, http.StatusBadRequest, "the answer is not JSON of the form {\"choice\": \"KEY\"} or {\"text\": \"…\"}: "+adapter.CleanText(err.Error(), 200))
		return
	}
	if (ans.Choice == "") == (ans.Text == "") {
		writeError(w, http.StatusBadRequest, "give exactly one of \"choice\" and \"text\"")
		return
	}
	if !validPromptID(id) {
		writeError(w, http.StatusNotFound, "no prompt has id "+adapter.CleanText(id, 40))
		return
	}
	// The daemon says who this is, not the caller: what it said it was is kept as its claim.
	ans.Claimed, ans.Channel, ans.Actor = ans.Channel, ChannelAPI, actorOf(r)+inTmux(r, ans.Client)
	// The answer is applied whatever becomes of the request: it may be typed already.
	out, err := a.Deliver.Answer(context.WithoutCancel(r.Context()), id, ans)
	var refusal *PromptRefusal
	var badAnswer *BadAnswerError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, out)
	case errors.As(err, &refusal):
		writeJSON(w, http.StatusConflict, wire.Refused{Error: refusal.Msg, Reason: refusal.Reason})
	case errors.As(err, &badAnswer):
		writeError(w, http.StatusBadRequest, badAnswer.Msg)
	case errors.Is(err, ErrUnknownPrompt):
		writeError(w, http.StatusNotFound, "no prompt has id "+id)
	case errors.As(err, new(*NotSavedError)):
		writeError(w, http.StatusServiceUnavailable, err.Error()) // as an event that could not be stored
	default:
		writeError(w, http.StatusInternalServerError, "the answer could not be delivered: "+err.Error())
	}
}

// maxWait caps one long poll of GET /v1/prompts/{id}/wait.
const maxWait = 60 * time.Second

// waitPrompt answers when prompt id leaves pending, or when ?timeout= passes.
func (a *API) waitPrompt(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	timeout := 20 * time.Second
	if v := r.URL.Query().Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			writeError(w, http.StatusBadRequest, "timeout "+adapter.CleanText(v, 20)+" is not a duration such as 20s")
			return
		}
		timeout = min(d, maxWait)
	}
	changed, p, ok := a.Engine.PromptChanged(id)
	if !ok {
		rec, err := a.Engine.Prompt(r.Context(), id)
		if errors.Is(err, ErrUnknownPrompt) || !validPromptID(id) {
			writeError(w, http.StatusNotFound, "no prompt has id "+adapter.CleanText(id, 40))
			return
		}
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, wire.PromptWait{Status: rec.Status, Subject: rec.Ask.Subject})
		return
	}
	if p.Status == queue.PromptPending {
		// The server's read timeout would cancel a long poll.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout + 5*time.Second))
		a.Holds.begin(id)
		t := time.NewTimer(timeout)
		select {
		case <-changed:
		case <-t.C:
		case <-a.Done:
		case <-r.Context().Done():
		}
		t.Stop()
		a.Holds.end(id)
		if rec, err := a.Engine.Prompt(r.Context(), id); err == nil {
			p = rec
		}
	}
	out := wire.PromptWait{Status: p.Status, Subject: p.Ask.Subject}
	if p.Status == queue.PromptPending && !time.Now().Before(p.ExpiresAt) {
		out.Status = queue.PromptExpired
	}
	if p.Status == queue.PromptAnswered {
		out.Answer = &wire.GivenAnswer{Choice: p.Answer, Label: p.Ask.Label(p.Answer)}
		// The hook took the answer only if it is still there to read it: a hook that
		// Claude Code ended (Esc in the terminal) may keep its wait open here a moment
		// longer, and taking that for a delivery would report an answer nobody decided
		// by. A failed write leaves the deliverer to find the hook gone.
		writeJSON(w, http.StatusOK, out)
		if r.Context().Err() == nil && http.NewResponseController(w).Flush() == nil {
			a.Holds.took(id)
		}
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) deliveries(w http.ResponseWriter, r *http.Request) {
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 10000 {
			writeError(w, http.StatusBadRequest, "limit must be a number from 1 to 10000")
			return
		}
		limit = n
	}
	ds, err := a.Engine.store.Deliveries(r.Context(), limit)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, wire.Deliveries{Deliveries: ds})
}

// holdable reports whether a hook payload of harness may hold (holdables).
func holdable(harness string, body []byte) bool {
	h := holdables[harness]
	return h != nil && h(body)
}

// claudeHoldable reports whether a Claude Code payload may hold: a PermissionRequest, whose
// dialog is on screen while its hook runs; never a PreToolUse, which runs before its dialog
// is drawn.
func claudeHoldable(body []byte) bool {
	var p struct {
		Event string `json:"hook_event_name"`
	}
	return json.Unmarshal(body, &p) == nil && p.Event == "PermissionRequest"
}

// holdFor returns the prompt a PermissionRequest hook should hold for, if any: the record
// its own event opened (or the same wait's, res.Prompt), never the session's latest, which
// a second PermissionRequest posted at the same moment may have replaced; and only when no
// other hook holds that record.
func (a *API) holdFor(res Ingested) *wire.Hold {
	if !a.HoldPermissions || a.DeliveryOff != "" || res.Prompt == nil {
		return nil
	}
	p := res.Prompt
	if p.Ask.From != adapter.AskFromHook || (p.Ask.Kind != adapter.AskPermission && p.Ask.Kind != adapter.AskMenu) {
		return nil
	}
	if !a.Holds.Assign(p.ID) {
		return nil
	}
	return &wire.Hold{PromptID: p.ID, ExpiresAt: p.ExpiresAt}
}
