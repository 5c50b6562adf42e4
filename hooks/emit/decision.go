package emit

// What a held PermissionRequest hook prints: Claude Code's decision for a person's answer
// (CLAUDE-CODE.md, "Answering through a hook"). Pure: payload and answer in, bytes out.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/daemon/wire"
)

// permissionRequest is a Claude Code PermissionRequest, decoded once (claude.Payload), as
// the hold handshake asks it (heldRequest).
type permissionRequest struct {
	claude.Payload
}

// owns returns nil when subject, what the held prompt record asks about, is this very
// request: its tool and its whole input (claude.Subject). Anything else, and a daemon that
// does not say, is an error: a decision printed for another tool call would run it.
func (r *permissionRequest) owns(subject string) error {
	switch subject {
	case "":
		return errors.New("the daemon did not say which tool call it asks about (a daemon older than this hook? restart it: trailboss stop, then trailboss start)")
	case claude.Subject(r.ToolName, r.ToolInput):
		return nil
	}
	return fmt.Errorf("it asks about another tool call than this hook's (%s)", adapter.CleanText(r.ToolName, 40))
}

// The tools whose "permission" is a question to the person, or the approval of a plan.
const (
	askUserQuestion = "AskUserQuestion"
	exitPlanMode    = "ExitPlanMode"
)

// permissionRequestOf returns the PermissionRequest that body is, or nil when body is any
// other event (or not readable: the daemon says why).
func permissionRequestOf(body []byte) *permissionRequest {
	// Every hook runs this: a payload that cannot be a PermissionRequest (a Stop with a
	// long last message, a tool's whole output) is not decoded at all.
	if !bytes.Contains(body, []byte(`"PermissionRequest"`)) {
		return nil
	}
	p, err := claude.DecodeHook(body)
	if err != nil || !p.Holdable() {
		return nil
	}
	return &permissionRequest{p}
}

// decision is decisionFor r.
func (r *permissionRequest) decision(a *wire.GivenAnswer) ([]byte, error) { return decisionFor(r, a) }

// DenyMessage is what Claude Code tells the model when the operator refused through Trail
// Boss.
const DenyMessage = "The operator refused this through Trail Boss. Stop here and wait for their instructions."

type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName string   `json:"hookEventName"`
		Decision      decision `json:"decision"`
	} `json:"hookSpecificOutput"`
}

type decision struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
	Interrupt    bool            `json:"interrupt,omitempty"`
}

// errNoDecision says an answer does not make a decision for the request it was given for.
var errNoDecision = errors.New("the answer makes no decision for this request")

// decisionFor returns the line (with its newline) that a PermissionRequest hook prints to
// give Claude Code the answer a: choice allow or deny for a tool (Bash, Write, …); for
// ExitPlanMode the same, an allow handing its input (the plan) back; for an AskUserQuestion, allow with updatedInput = the tool input plus "answers":
// {question: label} for a chosen option (or for a line of text, which Claude Code takes as
// the person's own "Other" answer), or deny. deny is the terminal's "No": the agent stops and
// waits for its person. An answer that decides nothing is an error wrapping errNoDecision.
func decisionFor(r *permissionRequest, a *wire.GivenAnswer) ([]byte, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: no answer", errNoDecision)
	}
	var d decision
	switch {
	case a.Choice == wire.ChoiceDeny:
		d = decision{Behavior: "deny", Message: DenyMessage, Interrupt: true}
	case r.ToolName == askUserQuestion:
		input, err := answered(r.ToolInput, a)
		if err != nil {
			return nil, err
		}
		d = decision{Behavior: "allow", UpdatedInput: input}
	case a.Choice == wire.ChoiceAllow && r.ToolName == exitPlanMode:
		// Claude Code 2.1.332 keeps the plan dialog open after a bare allow (observed); with
		// the input handed back it approves the plan. 2.1.197 takes either.
		d = decision{Behavior: "allow", UpdatedInput: r.ToolInput}
	case a.Choice == wire.ChoiceAllow:
		d = decision{Behavior: "allow"}
	default:
		return nil, fmt.Errorf("%w: %q for %s", errNoDecision, a.Choice, r.ToolName)
	}
	var out hookOutput
	out.HookSpecificOutput.HookEventName = "PermissionRequest"
	out.HookSpecificOutput.Decision = d
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // one line, and a newline after it
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// question is one question of AskUserQuestion's input.
type question struct {
	Question string `json:"question"`
	Options  []struct {
		Label string `json:"label"`
	} `json:"options"`
}

// answered returns AskUserQuestion's input with "answers" set for its first question (the
// one the prompt record asks): every other field of the input is kept as it was.
func answered(toolInput json.RawMessage, a *wire.GivenAnswer) (json.RawMessage, error) {
	var input map[string]json.RawMessage
	if err := json.Unmarshal(toolInput, &input); err != nil {
		return nil, fmt.Errorf("%w: AskUserQuestion's input is not an object: %v", errNoDecision, err)
	}
	var qs []question
	if err := json.Unmarshal(input["questions"], &qs); err != nil || len(qs) == 0 {
		return nil, fmt.Errorf("%w: AskUserQuestion asks no question", errNoDecision)
	}
	reply := chosenLabel(qs[0], a)
	if reply == "" {
		return nil, fmt.Errorf("%w: choice %q is none of the %d options of %q", errNoDecision, a.Choice, len(qs[0].Options), qs[0].Question)
	}
	answers, err := json.Marshal(map[string]string{qs[0].Question: reply})
	if err != nil {
		return nil, err
	}
	input["answers"] = answers
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(input); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// chosenLabel returns what to answer q with: the option whose label the answer names, else
// the option its key numbers (1 is the first), else a line of text (the "Other" answer);
// "" when the answer names nothing.
func chosenLabel(q question, a *wire.GivenAnswer) string {
	for _, o := range q.Options {
		if a.Label != "" && o.Label == a.Label {
			return o.Label
		}
	}
	if n, err := strconv.Atoi(a.Choice); err == nil && n >= 1 && n <= len(q.Options) {
		return q.Options[n-1].Label
	}
	if a.Choice == "" {
		return a.Text
	}
	return ""
}
