package openai

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The phrases the scripts match on, and what they answer.
const (
	titlePrefix = "Generate a concise, single-line task title"
	titleReply  = `{"title":"Greet the user"}`
	hiPhrase    = "say hi"
	hiReply     = "hi from the fake model"
	runPhrase   = "run "
	slowPhrase  = "slow"
	otherReply  = "ok"
	ranPrefix   = "ran it: "

	// ranQuoteLen is how many characters of a command's output "ran it" quotes.
	ranQuoteLen = 60
	slowDeltas  = 20
	slowPause   = 500 * time.Millisecond

	// shellTool is the name of Codex 0.169.0's shell tool in the request's tools list.
	shellTool = "exec_command"
)

// reply is what the fake model answers: either text, streamed as deltas with pause
// between them, or one function call.
type reply struct {
	deltas []string
	pause  time.Duration
	call   *functionCall
}

// text returns the whole text of a text reply.
func (r reply) text() string { return strings.Join(r.deltas, "") }

// functionCall is a call of one of the request's tools; arguments is a JSON object.
type functionCall struct {
	name      string
	arguments string
}

// inputItem is one item of a request's input: a message (type "message" or, in the short
// form, no type) or a function_call_output, among others the scripts ignore.
type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

// contentPart is one part of a message's content array, or of a function_call_output's
// output when that is an array.
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// choose returns the scripted reply to a request's input; see the package documentation.
func choose(input []inputItem) reply {
	if n := len(input); n > 0 && input[n-1].Type == "function_call_output" {
		return textReply(ranPrefix + quoteOutput(partsText(input[n-1].Output)))
	}
	text := lastUserText(input)
	switch {
	case indexFold(text, titlePrefix) == 0:
		return textReply(titleReply)
	case indexFold(text, hiPhrase) >= 0:
		return textReply(hiReply)
	case indexFold(text, runPhrase) >= 0:
		cmd := strings.TrimSpace(text[indexFold(text, runPhrase)+len(runPhrase):])
		return reply{call: runCall(cmd)}
	case indexFold(text, slowPhrase) >= 0:
		r := reply{pause: slowPause}
		for i := 1; i <= slowDeltas; i++ {
			d := fmt.Sprintf("slow-%d", i)
			if i < slowDeltas {
				d += " "
			}
			r.deltas = append(r.deltas, d)
		}
		return r
	default:
		return textReply(otherReply)
	}
}

// indexFold returns the byte index in s of the first match of the ASCII phrase, ignoring
// case, or -1 if there is none.
func indexFold(s, phrase string) int {
	for i := 0; i+len(phrase) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(phrase)], phrase) {
			return i
		}
	}
	return -1
}

// textReply returns a reply of text streamed word by word without pauses, so that clients
// see more than one delta.
func textReply(text string) reply {
	var r reply
	for rest := text; rest != ""; {
		i := strings.IndexByte(rest, ' ')
		if i < 0 {
			i = len(rest) - 1
		}
		r.deltas = append(r.deltas, rest[:i+1])
		rest = rest[i+1:]
	}
	return r
}

// runCall returns the exec_command call that runs cmd outside the sandbox. Asking for
// escalated permissions with a justification is what makes Codex ask the user for approval
// under approval_policy "on-request", whatever the sandbox would allow.
func runCall(cmd string) *functionCall {
	var args strings.Builder
	enc := json.NewEncoder(&args)
	enc.SetEscapeHTML(false) // keep "&&" readable in logs and transcripts
	err := enc.Encode(struct {
		Cmd                string `json:"cmd"`
		SandboxPermissions string `json:"sandbox_permissions"`
		Justification      string `json:"justification"`
	}{cmd, "require_escalated", "Run " + cmd + " outside the sandbox?"})
	if err != nil {
		panic(err) // strings always encode
	}
	return &functionCall{name: shellTool, arguments: strings.TrimSuffix(args.String(), "\n")}
}

// lastUserText returns the text of the last message with role "user", its input_text
// parts joined by newlines, or "" if there is none.
func lastUserText(input []inputItem) string {
	for i := len(input) - 1; i >= 0; i-- {
		it := input[i]
		if it.Role == "user" && (it.Type == "" || it.Type == "message") {
			return partsText(it.Content)
		}
	}
	return ""
}

// partsText returns the text of a message content or a function output, which the API
// allows to be a plain string or an array of parts; of an array it joins the text of the
// input_text and output_text parts with newlines.
func partsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []contentPart
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "input_text" || p.Type == "output_text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// quoteOutput returns the first ranQuoteLen characters of a command's output, without the
// header Codex puts before it.
func quoteOutput(out string) string {
	if _, body, ok := strings.Cut(out, "\nOutput:\n"); ok {
		out = body
	} else if body, ok := strings.CutPrefix(out, "Output:\n"); ok {
		out = body
	}
	out = strings.TrimSpace(out)
	if r := []rune(out); len(r) > ranQuoteLen {
		out = string(r[:ranQuoteLen])
	}
	return out
}
