// Package generic reads the versioned event envelope that anything without a harness
// adapter of its own can send (a script, a CI job, an agent pipeline that pauses at a
// checkpoint): POST /v1/events, or `trailboss emit --generic` from a shell.
package generic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Version is the envelope version this package reads.
const Version = 1

// Envelope is one event as a sender writes it.
type Envelope struct {
	V       *int    `json:"v"`       // the envelope version: 1
	ID      *string `json:"id"`      // unique per event: a repeat is acknowledged once and then ignored
	Type    *string `json:"type"`    // session.stuck, session.unstuck, session.start, session.end
	Session *string `json:"session"` // the session's id, stable across its events
	Pane    string  `json:"pane"`    // tmux pane id ("%3"), or "" outside tmux
	Tmux    string  `json:"tmux"`    // the TMUX value ("socket,pid,index") or the socket path
	Harness string  `json:"harness"` // what sent it; "generic" when empty
	Reason  string  `json:"reason"`  // for session.stuck: "permission" or "stopped" (default)
	Detail  string  `json:"detail"`  // finer display detail
	Summary string  `json:"summary"` // what it waits for, for the operator
	Cwd     string  `json:"cwd"`
	At      *string `json:"at"` // RFC 3339; the time of receipt when absent
}

var kinds = map[string]adapter.Kind{
	"session.stuck":   adapter.KindStuck,
	"session.unstuck": adapter.KindUnstuck,
	"session.start":   adapter.KindStart,
	"session.end":     adapter.KindEnd,
}

// Reasons a refusal gives, for senders that branch on them.
const (
	ReasonInvalidJSON        = "invalid_json"
	ReasonUnsupportedVersion = "unsupported_version"
	ReasonInvalidEnvelope    = "invalid_envelope"
)

// Error is a refused envelope: why (one of the Reason constants) and every problem found.
type Error struct {
	Reason   string
	Problems []string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Reason, strings.Join(e.Problems, "; "))
}

// Unwrap makes every Error an adapter.ErrInvalid.
func (e *Error) Unwrap() error { return adapter.ErrInvalid }

// Parsed is a valid envelope: its id, and the Event it says.
type Parsed struct {
	ID    string
	Event adapter.Event
}

// Parse reads one envelope. now stands for "at" when the sender gave none. It returns an
// *Error listing every problem at once: an unknown version is refused before anything else
// is looked at, since a later version may mean other things by the same fields.
func Parse(body []byte, now time.Time) (Parsed, error) {
	// Decode field by field, so that every wrongly typed field is reported, not the first.
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil {
		return Parsed{}, &Error{Reason: ReasonInvalidJSON, Problems: []string{adapter.JSONProblem(err)}}
	}
	if dec.More() {
		return Parsed{}, &Error{Reason: ReasonInvalidJSON, Problems: []string{"more than one JSON value"}}
	}
	var env Envelope
	var typeProblems []string
	for _, f := range []struct {
		name, want string
		dst        any
	}{
		{"v", "number", &env.V}, {"id", "string", &env.ID}, {"type", "string", &env.Type},
		{"session", "string", &env.Session}, {"pane", "string", &env.Pane}, {"tmux", "string", &env.Tmux},
		{"harness", "string", &env.Harness}, {"reason", "string", &env.Reason}, {"detail", "string", &env.Detail},
		{"summary", "string", &env.Summary}, {"cwd", "string", &env.Cwd}, {"at", "string", &env.At},
	} {
		if r, ok := raw[f.name]; ok && json.Unmarshal(r, f.dst) != nil {
			typeProblems = append(typeProblems, fmt.Sprintf("%s must be a %s", f.name, f.want))
		}
	}
	// A field that failed to decode may be half set (a pointer allocated, then the error):
	// it counts as not given, and its problem is already listed.
	for _, p := range typeProblems {
		switch strings.Fields(p)[0] {
		case "v":
			env.V = nil
		case "id":
			env.ID = nil
		case "type":
			env.Type = nil
		case "session":
			env.Session = nil
		case "at":
			env.At = nil
		}
	}
	if env.V != nil && *env.V != Version {
		return Parsed{}, &Error{Reason: ReasonUnsupportedVersion,
			Problems: []string{fmt.Sprintf("v %d is not supported: this daemon reads v %d", *env.V, Version)}}
	}

	problems := typeProblems
	missing := func(name string) {
		if _, present := raw[name]; !present {
			problems = append(problems, "missing "+name)
		}
	}
	if env.V == nil {
		missing("v")
	}
	if env.ID == nil || *env.ID == "" {
		missing("id")
		if env.ID != nil {
			problems = append(problems, "id is empty")
		}
	} else if len(*env.ID) > 200 {
		problems = append(problems, "id longer than 200 bytes")
	}
	kind, known := adapter.Kind(""), false
	if env.Type == nil || *env.Type == "" {
		missing("type")
		if env.Type != nil {
			problems = append(problems, "type is empty")
		}
	} else if kind, known = kinds[*env.Type]; !known {
		problems = append(problems, fmt.Sprintf("type %q is not one of %s", adapter.CleanText(*env.Type, 40), typeList()))
	}
	if env.Session == nil || *env.Session == "" {
		missing("session")
		if env.Session != nil {
			problems = append(problems, "session is empty")
		}
	}
	at := now
	if env.At != nil {
		t, err := time.Parse(time.RFC3339Nano, *env.At)
		if err != nil {
			problems = append(problems, fmt.Sprintf("at %q is not an RFC 3339 time such as 2026-11-21T09:00:00Z",
				adapter.CleanText(*env.At, 40)))
		} else if t.Before(now.Add(2 * time.Second)) { // a clock in the future is not believed
			at = t
		}
	}
	reason := env.Reason
	if kind == adapter.KindStuck && reason == "" {
		reason = adapter.ReasonStopped
	}
	if reason != "" && reason != adapter.ReasonPermission && reason != adapter.ReasonStopped {
		problems = append(problems, fmt.Sprintf("reason %q is neither %q nor %q", adapter.CleanText(reason, 40),
			adapter.ReasonPermission, adapter.ReasonStopped))
	}
	socket := env.Tmux
	if strings.Contains(socket, ",") {
		s, err := adapter.SocketFromTmuxEnv(socket)
		if err != nil {
			problems = append(problems, "tmux: "+strings.TrimPrefix(err.Error(), adapter.ErrInvalid.Error()+": "))
		}
		socket = s
	} else if socket != "" && !strings.HasPrefix(socket, "/") {
		problems = append(problems, "tmux must be the TMUX value or an absolute socket path")
	}
	if env.Pane != "" && !adapter.ValidPane(env.Pane) {
		problems = append(problems, fmt.Sprintf("pane %q is not a tmux pane id (%% and digits)", adapter.CleanText(env.Pane, 40)))
	}
	if len(problems) > 0 {
		return Parsed{}, &Error{Reason: ReasonInvalidEnvelope, Problems: problems}
	}

	harness := env.Harness
	if harness == "" {
		harness = "generic"
	}
	ev := adapter.Event{
		Harness: adapter.CleanText(harness, 40), SessionID: *env.Session, Kind: kind, Pane: env.Pane,
		TmuxSocket: socket, Reason: reason, Detail: adapter.CleanText(env.Detail, 80),
		Summary: adapter.CleanText(env.Summary, adapter.MaxSummaryLen), Cwd: env.Cwd, At: at,
	}
	if kind != adapter.KindStuck {
		ev.Reason = ""
	}
	if err := ev.Validate(); err != nil {
		return Parsed{}, &Error{Reason: ReasonInvalidEnvelope,
			Problems: []string{strings.TrimPrefix(err.Error(), adapter.ErrInvalid.Error()+": ")}}
	}
	return Parsed{ID: *env.ID, Event: ev}, nil
}

func typeList() string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
