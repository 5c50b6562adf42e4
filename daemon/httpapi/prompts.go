package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/hosts"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// promptRoutes adds the delivery routes (docs/delivery.md).
func (a *Server) promptRoutes(r chi.Router) {
	r.Post(wire.RouteAnswer, a.answerPrompt)
	// Another host's prompt, "host/id", when its "/" came unescaped.
	r.Post("/v1/prompts/{host}/{rid}/answer", func(w http.ResponseWriter, r *http.Request) {
		chi.RouteContext(r.Context()).URLParams.Add("id", hosts.Namespaced(chi.URLParam(r, "host"), chi.URLParam(r, "rid")))
		a.answerPrompt(w, r)
	})
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
		out.Choices[i] = wire.Choice(c)
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

func (a *Server) answerPrompt(w http.ResponseWriter, r *http.Request) {
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
	// Another host's prompt is "host/id" (hosts.Namespaced), which arrives escaped.
	if raw, err := url.PathUnescape(id); err == nil {
		id = raw
	}
	if host, remote, ok := hosts.SplitPrompt(id); ok && a.Hosts != nil {
		if !validPromptID(remote) {
			writeError(w, http.StatusNotFound, "no prompt has id "+adapter.CleanText(id, 80))
			return
		}
		a.forwardAnswer(w, r, host, remote, ans)
		return
	}
	if !validPromptID(id) {
		writeError(w, http.StatusNotFound, "no prompt has id "+adapter.CleanText(id, 40))
		return
	}
	// The daemon says who this is, not the caller: what it said it was is kept as its claim.
	ans.Claimed, ans.Channel, ans.Actor = ans.Channel, wire.ChannelAPI, actorOf(r)+inTmux(r, ans.Client)
	// The answer is applied whatever becomes of the request: it may be typed already.
	out, err := a.Core.Answer(context.WithoutCancel(r.Context()), id, ans)
	switch o := wire.OutcomeOf(out, err); {
	case o.Delivered():
		writeJSON(w, http.StatusOK, out)
	case o.Kind == wire.OutcomeRefused:
		writeJSON(w, http.StatusConflict, wire.Refused{Error: o.Message, Reason: o.Reason})
	case o.Kind == wire.OutcomeBadAnswer:
		writeError(w, http.StatusBadRequest, o.Message)
	case o.Kind == wire.OutcomeUnknownPrompt:
		writeError(w, http.StatusNotFound, "no prompt has id "+id)
	case errors.As(err, new(*fault.NotSavedError)):
		writeError(w, http.StatusServiceUnavailable, err.Error()) // as an event that could not be stored
	default:
		writeError(w, http.StatusInternalServerError, "the answer could not be delivered: "+err.Error())
	}
}

// waitPrompt answers when prompt id leaves pending, or when ?timeout= (capped by the core)
// passes.
func (a *Server) waitPrompt(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	var asked time.Duration
	if v := r.URL.Query().Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			writeError(w, http.StatusBadRequest, "timeout "+adapter.CleanText(v, 20)+" is not a duration such as 20s")
			return
		}
		asked = d
	}
	if !validPromptID(id) {
		writeError(w, http.StatusNotFound, "no prompt has id "+adapter.CleanText(id, 40))
		return
	}
	wait := a.Core.WaitLimit(asked)
	// The server's read timeout would cancel a long poll.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(wait + 5*time.Second))
	out, err := a.Core.WaitPrompt(r.Context(), id, wait)
	switch {
	case errors.Is(err, wire.ErrUnknownPrompt):
		writeError(w, http.StatusNotFound, "no prompt has id "+adapter.CleanText(id, 40))
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, out)
	// The hook took the answer only if it is still there to read it: a hook that Claude
	// Code ended (Esc in the terminal) may keep its wait open here a moment longer, and
	// taking that for a delivery would report an answer nobody decided by. A failed write
	// leaves the deliverer to find the hook gone.
	if out.Answer != nil && r.Context().Err() == nil && http.NewResponseController(w).Flush() == nil {
		a.Core.TookAnswer(id)
	}
}

func (a *Server) deliveries(w http.ResponseWriter, r *http.Request) {
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 10000 {
			writeError(w, http.StatusBadRequest, "limit must be a number from 1 to 10000")
			return
		}
		limit = n
	}
	ds, err := a.Core.Deliveries(r.Context(), limit)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, wire.Deliveries{Deliveries: ds})
}
