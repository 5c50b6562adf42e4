package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/fault"
	"github.com/trailboss/trailboss/daemon/wire"
)

// The daemon's side of trailboss run (docs/delivery.md): the supervisor reports what its
// child's output shows, and holds a stream open on which answers come back.

// ptyHeartbeat is how often an idle answer stream carries an empty object, so that either
// side notices a dead connection.
const ptyHeartbeat = 10 * time.Second

func (a *Server) ptyReport(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var rep wire.PTYReport
	if err := json.Unmarshal(body, &rep); err != nil {
		writeError(w, http.StatusBadRequest, "the report is not JSON of docs/delivery.md's shape: "+adapter.CleanText(err.Error(), 200))
		return
	}
	ack, err := a.Core.PTYReport(context.WithoutCancel(r.Context()), rep, r.Header.Get(wire.HeaderPane), r.Header.Get(wire.HeaderTmux))
	var refused *fault.RefusedError
	switch {
	case errors.As(err, &refused):
		writeError(w, http.StatusBadRequest, refused.Error())
	case err != nil:
		writeError(w, http.StatusServiceUnavailable, "not stored: "+err.Error())
	default:
		writeJSON(w, http.StatusOK, ack)
	}
}

// ptyAnswers holds the supervisor's answer stream open: one JSON object a line.
func (a *Server) ptyAnswers(w http.ResponseWriter, r *http.Request) {
	session, ok := sessionParam(w, r)
	if !ok {
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "this server cannot stream")
		return
	}
	answers, detach := a.Core.AttachPTY(session)
	defer detach()
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
		case <-a.Core.Stopping():
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

func (a *Server) ptyWritten(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var wr wire.PTYWritten
	if err := json.Unmarshal(body, &wr); err != nil || wr.SessionID == "" || wr.AnswerID == "" {
		writeError(w, http.StatusBadRequest, "expected {\"session_id\", \"answer_id\", \"ok\"}")
		return
	}
	writeJSON(w, http.StatusOK, wire.PTYWrittenAck{OK: true, Expected: a.Core.PTYWritten(wr)})
}
