package daemon

import (
	"context"
	"errors"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/codex"
)

// codexHook takes one Codex CLI payload: what its notify program got as an argument, or what
// one of its hooks got on stdin (adapter/codex tells them apart). Headers as for
// /v1/hooks/claude.
func (a *API) codexHook(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var at time.Time
	if v := r.Header.Get(HeaderEmittedAt); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			writeError(w, http.StatusBadRequest, HeaderEmittedAt+" is not an RFC 3339 time: "+adapter.CleanText(v, 60))
			return
		}
		at = t
	}
	// Committed even if the emitter gives up waiting: it may have spooled the payload too,
	// and applying it twice changes nothing.
	res := a.ingestCodex(context.WithoutCancel(r.Context()), body,
		codex.Meta{Pane: r.Header.Get(HeaderPane), Tmux: r.Header.Get(HeaderTmux), EmittedAt: at})
	if res.code != http.StatusOK {
		writeError(w, res.code, res.msg)
		return
	}
	out := map[string]any{"ok": true, "changed": res.changed}
	if res.msg != "" {
		out["ignored"] = res.msg
	}
	writeJSON(w, http.StatusOK, out)
}

// ingestCodex turns one Codex payload into its events and applies them in order; the API and
// the spool drain both come through here. Times as ingestClaudeHook: zero means now, and a
// time in the future is not believed.
func (a *API) ingestCodex(ctx context.Context, body []byte, meta codex.Meta) ingestResult {
	now := a.Now()
	if meta.EmittedAt.IsZero() || !meta.EmittedAt.Before(now.Add(2*time.Second)) {
		meta.EmittedAt = now
	}
	if !utf8.Valid(body) {
		return ingestResult{code: http.StatusBadRequest, msg: "body is not valid UTF-8"}
	}
	evs, err := codex.Parse(body, meta)
	switch {
	case errors.Is(err, codex.ErrUnknownEvent):
		return ingestResult{code: http.StatusOK, msg: err.Error()}
	case err != nil:
		return ingestResult{code: http.StatusBadRequest, msg: err.Error()}
	}
	// Every event of one payload comes from the same place.
	if socket := evs[0].TmuxSocket; !a.socketOK(socket) {
		return ingestResult{code: http.StatusBadRequest,
			msg: "tmux socket " + adapter.CleanText(socket, 200) + " (from TMUX) does not exist or is not a socket"}
	}
	var changed bool
	for _, ev := range evs {
		c, err := a.Engine.Ingest(ctx, ev)
		if err != nil {
			a.Log.Error("ingest", "session", ev.SessionID, "err", err)
			return ingestResult{code: http.StatusServiceUnavailable, msg: "event not stored: " + err.Error()}
		}
		changed = changed || c
	}
	a.events.Add(1)
	return ingestResult{code: http.StatusOK, changed: changed}
}
