package anthropic

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// request is the part of a Messages API request body the fake reads.
type request struct {
	Model    string           `json:"model"`
	Messages []requestMessage `json:"messages"`
	Tools    []tool           `json:"tools"`
	Stream   bool             `json:"stream"`
	// OutputConfig.Format asks for structured output: Claude Code's side
	// requests (the session title) send a JSON schema here.
	OutputConfig struct {
		Format struct {
			Type   string `json:"type"`
			Schema struct {
				Properties map[string]schemaProperty `json:"properties"`
			} `json:"schema"`
		} `json:"format"`
	} `json:"output_config"`
}

type schemaProperty struct {
	Type string `json:"type"`
}

type tool struct {
	Name string `json:"name"`
}

// requestMessage is one entry of a request's messages.
type requestMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// block is one content block of a message; Content is a tool_result's
// content, itself a string or an array of blocks.
type block struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

// reply is what the fake model answers to one request.
type reply struct {
	text  string          // a text block, when tool is ""
	tool  string          // a tool_use block calling this tool
	input json.RawMessage // the tool's input
	slow  bool            // stream text in slowDeltas deltas, slowGap apart
	pause bool            // think for wakePause before the text, as a turn someone can watch at work
	fail  bool            // answer HTTP 400 instead of a message
}

// stopReason returns the stop_reason that ends the reply's message.
func (r reply) stopReason() string {
	if r.tool != "" {
		return "tool_use"
	}
	return "end_turn"
}

// askInput is the AskUserQuestion input of the "ask me" script.
const askInput = `{"questions":[{"question":"Which colour?","header":"Colour","multiSelect":false,` +
	`"options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}]}]}`

// planText is the plan of the "plan" script.
const planText = "1. Read the code\n2. Fix the bug"

// exitPlan is ExitPlanMode's input.
type exitPlan struct {
	Plan string `json:"plan"`
}

// planFileRe finds the plan file Claude Code asks the model to write in plan mode (2.1.197
// and 2.1.332 both say so in a system reminder).
var planFileRe = regexp.MustCompile(`You should create your plan at (\S+) using the Write tool`)

// planFilePath returns the plan file that msgs ask the model to create, or "".
func planFilePath(msgs []requestMessage) string {
	for _, m := range msgs {
		for _, b := range blocks(m.Content) {
			if sub := planFileRe.FindStringSubmatch(b.Text); sub != nil {
				return sub[1]
			}
		}
	}
	return ""
}

// deferredHeading opens the list of deferred tools (one name a line, up to a
// blank line) that Claude Code 2.1.332 sends in a system entry instead of
// their schemas, ExitPlanMode among them. A model may call one directly
// (observed: ExitPlanMode runs), although the list says to load it with
// ToolSearch first.
const deferredHeading = "The following deferred tools are now available via ToolSearch."

// deferredTools returns the names msgs list as deferred tools.
func deferredTools(msgs []requestMessage) []string {
	var names []string
	for _, m := range msgs {
		for _, b := range blocks(m.Content) {
			_, list, ok := strings.Cut(b.Text, deferredHeading)
			if !ok {
				continue
			}
			lines := strings.Split(list, "\n")
			for _, l := range lines[1:] { // the rest of the heading's line
				l = strings.TrimSpace(l)
				if l == "" {
					break
				}
				names = append(names, l)
			}
		}
	}
	return names
}

// choose returns the scripted reply to req: see the package documentation.
func choose(req request) reply {
	if f := req.OutputConfig.Format; f.Type == "json_schema" {
		return reply{text: schemaText(f.Schema.Properties)}
	}
	// offered returns a call of the tool name with input, or a text saying
	// the request did not offer that tool (title and other side requests).
	offered := func(name string, input any) reply {
		if !slices.Contains(req.Tools, tool{name}) && !slices.Contains(deferredTools(req.Messages), name) {
			return reply{text: fmt.Sprintf("tool %s not offered", name)}
		}
		raw, ok := input.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(input); err != nil {
				panic(err) // the inputs below are plain structs of strings
			}
		}
		return reply{tool: name, input: raw}
	}
	planFile := planFilePath(req.Messages)
	prompt, result, isResult := lastUserTurn(req.Messages)
	if next, ok := secondOfTwo(req.Messages); isResult && ok && slices.Contains(req.Tools, tool{"Bash"}) {
		return reply{tool: "Bash", input: bashInput(next, "Second of two: "+next, false)}
	}
	if isResult {
		if planFile != "" && strings.HasPrefix(result, "File created successfully at: "+planFile) {
			return offered("ExitPlanMode", exitPlan{planText})
		}
		return reply{text: "done: " + firstRunes(result, 60)}
	}
	if strings.HasPrefix(prompt, taskNotification) {
		// Claude Code's own prompt when a background task ends: never a script's words. The
		// turn it wakes takes a moment, so that a test sees the session at work.
		return reply{text: "background done", pause: true}
	}
	if indexFold(prompt, "say hi") >= 0 {
		return reply{text: "hi from the fake model"}
	}
	if cmd := argument(prompt, "background ", true); cmd != "" {
		return offered("Bash", bashInput(cmd, "In the background: "+cmd, true))
	}
	if cmds := argument(prompt, "twice ", true); strings.Contains(cmds, " ; ") {
		first, second, _ := strings.Cut(cmds, " ; ")
		return offered("Bash", bashInput(first, firstOfTwo+second, false))
	}
	if cmd := argument(prompt, "run ", true); cmd != "" {
		return offered("Bash", struct {
			Command     string `json:"command"`
			Description string `json:"description"`
		}{cmd, "Run " + cmd})
	}
	if file := argument(prompt, "write ", false); file != "" {
		return offered("Write", struct {
			FilePath string `json:"file_path"`
			Content  string `json:"content"`
		}{file, "written by the fake model\n"})
	}
	if indexFold(prompt, "ask me") >= 0 {
		return offered("AskUserQuestion", json.RawMessage(askInput))
	}
	if indexFold(prompt, "plan") >= 0 {
		if planFile != "" {
			// Plan mode: the plan goes into the file Claude Code named first.
			return offered("Write", struct {
				FilePath string `json:"file_path"`
				Content  string `json:"content"`
			}{planFile, planText})
		}
		return offered("ExitPlanMode", exitPlan{planText})
	}
	if indexFold(prompt, "slow") >= 0 {
		return reply{text: slowText, slow: true}
	}
	if indexFold(prompt, "fail") >= 0 {
		return reply{fail: true}
	}
	return reply{text: "ok"}
}

// taskNotification opens the prompt Claude Code submits by itself when a background task ends.
const taskNotification = "<task-notification>"

// firstOfTwo opens the description of the first Bash call of the "twice" script; the
// second command follows it.
const firstOfTwo = "First of two, then: "

// bashInput is a Bash tool input.
func bashInput(cmd, description string, background bool) json.RawMessage {
	in := map[string]any{"command": cmd, "description": description}
	if background {
		in["run_in_background"] = true
	}
	b, err := json.Marshal(in)
	if err != nil {
		panic(err) // strings and a bool
	}
	return b
}

// secondOfTwo returns the second command of the "twice" script when the last assistant
// message is its first call: the fake keeps no state, the conversation does.
func secondOfTwo(msgs []requestMessage) (string, bool) {
	for _, m := range slices.Backward(msgs) {
		if m.Role != "assistant" {
			continue
		}
		var calls []struct {
			Type  string `json:"type"`
			Input struct {
				Description string `json:"description"`
			} `json:"input"`
		}
		if json.Unmarshal(m.Content, &calls) != nil {
			return "", false
		}
		for _, c := range calls {
			if next, ok := strings.CutPrefix(c.Input.Description, firstOfTwo); c.Type == "tool_use" && ok {
				return next, true
			}
		}
		return "", false
	}
	return "", false
}

// schemaText returns a JSON object with every property given: a string
// "fake NAME", or the zero value of a property of another type.
func schemaText(props map[string]schemaProperty) string {
	obj := make(map[string]any, len(props))
	for name, p := range props {
		switch p.Type {
		case "string":
			obj[name] = "fake " + name
		case "number", "integer":
			obj[name] = 0
		case "boolean":
			obj[name] = false
		case "array":
			obj[name] = []any{}
		default:
			obj[name] = map[string]any{}
		}
	}
	b, err := json.Marshal(obj) // keys sorted: deterministic
	if err != nil {
		panic(err)
	}
	return string(b)
}

// lastUserTurn reads the last user message that says something: one with a
// tool_result or a text that is not noise (see stripNoise). Its last such
// block decides: a tool_result gives that result's text with isResult true
// (a follow-up turn), a text gives the text. Claude Code merges into one
// message a denied tool's result, the interrupt marker and the next prompt,
// so the last block, not the first, is what the model answers. All are
// empty when no message says anything.
func lastUserTurn(msgs []requestMessage) (text, result string, isResult bool) {
	for _, m := range slices.Backward(msgs) {
		if m.Role != "user" {
			continue
		}
		var said bool
		for _, b := range blocks(m.Content) {
			switch b.Type {
			case "tool_result":
				text, result, isResult, said = "", resultText(b.Content), true, true
			case "text":
				if t := stripNoise(b.Text); t != "" {
					text, result, isResult, said = t, "", false, true
				} else if i := strings.Index(b.Text, taskNotification); i >= 0 {
					// Claude Code (2.1.332) wraps a background task's notification in a
					// system reminder: it is what this turn says.
					text, result, isResult, said = b.Text[i:], "", false, true
				}
			}
		}
		if said {
			return text, result, isResult
		}
	}
	return "", "", false
}

// blocks returns the content blocks of raw, a string (one text block) or an
// array of blocks; nil when it is neither.
func blocks(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	if json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	return bs
}

// resultText returns the text of a tool_result's content, its text blocks
// joined by newlines.
func resultText(raw json.RawMessage) string {
	var texts []string
	for _, b := range blocks(raw) {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// stripNoise returns s without its <system-reminder>…</system-reminder>
// spans, trimmed, or "" for an interrupt marker ("[Request interrupted by
// user…"): Claude Code adds both to user turns, and they are not the
// person's words.
func stripNoise(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "[Request interrupted by user") {
		return ""
	}
	const open, closing = "<system-reminder>", "</system-reminder>"
	var out strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		out.WriteString(s[:i])
		j := strings.Index(s[i:], closing)
		if j < 0 {
			s = ""
			break
		}
		s = s[i+j+len(closing):]
	}
	out.WriteString(s)
	return strings.TrimSpace(out.String())
}

// argument returns what follows keyword (matched case-insensitively) in s, as
// written: the rest of that line when line is true, else the next word. It
// returns "" when keyword is absent or nothing follows it.
func argument(s, keyword string, line bool) string {
	i := indexFold(s, keyword)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(s[i+len(keyword):], " \t")
	if line {
		rest, _, _ = strings.Cut(rest, "\n")
		return strings.TrimSpace(rest)
	}
	if f := strings.Fields(rest); len(f) > 0 {
		return f[0]
	}
	return ""
}

// indexFold returns the byte index of the first case-insensitive occurrence
// of the ASCII keyword in s, or -1.
func indexFold(s, keyword string) int {
	for i := 0; i+len(keyword) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(keyword)], keyword) {
			return i
		}
	}
	return -1
}

// firstRunes returns the first n runes of s (all of s when it is shorter).
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
