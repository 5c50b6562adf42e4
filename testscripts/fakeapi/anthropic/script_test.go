package anthropic

import (
	"encoding/json"
	"strings"
	"testing"
)

// reminder is the noise Claude Code puts before the prompt in a user turn.
const reminder = `{"type":"text","text":"<system-reminder>\nToday's date is 2026-11-22.\n</system-reminder>"}`

// allTools is the tools list of a request that offers every scripted tool.
const allTools = `[{"name":"Bash"},{"name":"Write"},{"name":"AskUserQuestion"},{"name":"ExitPlanMode"}]`

// prompt returns a request body as Claude Code 2.1.197 sends it: a reminder
// and the prompt in one user message, then a system entry, offering tools.
func prompt(text, tools string) string {
	t, _ := json.Marshal(text)
	return `{"model":"claude-test","tools":` + tools + `,"messages":[` +
		`{"role":"user","content":[` + reminder + `,{"type":"text","text":` + string(t) + `}]},` +
		`{"role":"system","content":"Available agent types: run nothing, plan nothing"}]}`
}

// planMode returns a request as Claude Code sends it in plan mode: the reminder naming the
// plan file with the prompt, then, after a Write of the fake model, result (if given).
func planMode(text string, result ...string) string {
	t, _ := json.Marshal(text)
	info, _ := json.Marshal("<system-reminder>\nPlan mode is active.\n## Plan File Info:\nNo plan file exists yet. " +
		"You should create your plan at /h/.claude/plans/p.md using the Write tool.\n</system-reminder>")
	body := `{"tools":` + allTools + `,"messages":[{"role":"user","content":[{"type":"text","text":` + string(t) + `},` +
		`{"type":"text","text":` + string(info) + `}]}`
	for _, r := range result {
		body += `,{"role":"assistant","content":[{"type":"tool_use","id":"toolu_fake_1","name":"Write","input":{}}]},` +
			`{"role":"user","content":[` + r + `]}`
	}
	return body + `]}`
}

func TestChoose(t *testing.T) {
	long := strings.Repeat("é", 70) // 60 runes are 120 bytes
	tests := []struct {
		name string
		body string
		want reply // input is compared as JSON
	}{
		{"say hi", prompt("say hi", allTools), reply{text: "hi from the fake model"}},
		{"string content", `{"messages":[{"role":"user","content":"Say HI please"}]}`,
			reply{text: "hi from the fake model"}},
		{"first script wins", prompt("say hi, then run ls", allTools), reply{text: "hi from the fake model"}},
		{"run", prompt("Run touch probe.txt", allTools), reply{tool: "Bash",
			input: json.RawMessage(`{"command":"touch probe.txt","description":"Run touch probe.txt"}`)}},
		{"run takes the rest of the line", prompt("please run sleep 8\nthanks", allTools), reply{tool: "Bash",
			input: json.RawMessage(`{"command":"sleep 8","description":"Run sleep 8"}`)}},
		{"run needs a command", prompt("run ", allTools), reply{text: "ok"}},
		{"background", prompt("background sleep 3", allTools), reply{tool: "Bash",
			input: json.RawMessage(`{"command":"sleep 3","description":"In the background: sleep 3","run_in_background":true}`)}},
		{"twice", prompt("twice touch a ; touch b", allTools), reply{tool: "Bash",
			input: json.RawMessage(`{"command":"touch a","description":"First of two, then: touch b"}`)}},
		{"twice: the second call after the first's result", `{"tools":` + allTools + `,"messages":[` +
			`{"role":"user","content":"twice touch a ; touch b"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"touch a","description":"First of two, then: touch b"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":""}]}]}`,
			reply{tool: "Bash", input: json.RawMessage(`{"command":"touch b","description":"Second of two: touch b"}`)}},
		{"twice: the second's result ends the turn", `{"tools":` + allTools + `,"messages":[` +
			`{"role":"user","content":"twice touch a ; touch b"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"touch b","description":"Second of two: touch b"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}]}`,
			reply{text: "done: ok"}},
		{"a background task's end, in a system reminder as 2.1.332 sends it", `{"tools":` + allTools + `,"messages":[` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"started"}]},` +
			`{"role":"assistant","content":[{"type":"text","text":"done: started"}]},` +
			`{"role":"user","content":[{"type":"text","text":"<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n\n<task-notification>\n<summary>Background command \"Run x\" completed</summary>\n</task-notification>\n</system-reminder>"}]}]}`,
			reply{text: "background done"}},
		{"a background task's end is not a script", prompt("<task-notification>\n<summary>Background command \"Run x\" completed</summary>\n</task-notification>", allTools),
			reply{text: "background done"}},
		{"running is not run", prompt("keep running", allTools), reply{text: "ok"}},
		{"run not offered", prompt("run touch probe.txt", `[{"name":"Read"}]`),
			reply{text: "tool Bash not offered"}},
		{"write", prompt("write notes/out.txt now", allTools), reply{tool: "Write",
			input: json.RawMessage(`{"file_path":"notes/out.txt","content":"written by the fake model\n"}`)}},
		{"write absolute", prompt("write /tmp/x/y.txt", allTools), reply{tool: "Write",
			input: json.RawMessage(`{"file_path":"/tmp/x/y.txt","content":"written by the fake model\n"}`)}},
		{"ask me", prompt("Ask me something", allTools), reply{tool: "AskUserQuestion", input: json.RawMessage(askInput)}},
		{"ask me not offered", prompt("ask me", `[]`), reply{text: "tool AskUserQuestion not offered"}},
		{"plan", prompt("make a PLAN", allTools), reply{tool: "ExitPlanMode",
			input: json.RawMessage(`{"plan":"1. Read the code\n2. Fix the bug"}`)}},
		{"plan in plan mode: the plan file first", planMode("make a plan"), reply{tool: "Write",
			input: json.RawMessage(`{"file_path":"/h/.claude/plans/p.md","content":"1. Read the code\n2. Fix the bug"}`)}},
		{"plan mode: the plan file written, then ExitPlanMode", planMode("make a plan",
			`{"type":"tool_result","tool_use_id":"toolu_fake_1","content":"File created successfully at: /h/.claude/plans/p.md (file state is current)"}`),
			reply{tool: "ExitPlanMode", input: json.RawMessage(`{"plan":"1. Read the code\n2. Fix the bug"}`)}},
		{"plan mode: another file written", planMode("make a plan",
			`{"type":"tool_result","tool_use_id":"toolu_fake_1","content":"File created successfully at: /h/notes.md"}`),
			reply{text: "done: File created successfully at: /h/notes.md"}},
		{"a deferred tool (2.1.332) is offered", `{"tools":[{"name":"ToolSearch"}],"messages":[` +
			`{"role":"user","content":"plan"},{"role":"system","content":[{"type":"text","text":` +
			`"# Environment\n` + deferredHeading + ` Their schemas are NOT loaded:\nCronCreate\nExitPlanMode\n\nAvailable agent types: Bash"}]}]}`,
			reply{tool: "ExitPlanMode", input: json.RawMessage(`{"plan":"1. Read the code\n2. Fix the bug"}`)}},
		{"a deferred list without the tool", `{"tools":[{"name":"ToolSearch"}],"messages":[` +
			`{"role":"user","content":"plan"},{"role":"system","content":"` + deferredHeading + ` Load them:\nCronCreate\n\nBash"}]}`,
			reply{text: "tool ExitPlanMode not offered"}},
		{"slow", prompt("go slow", allTools), reply{text: slowText, slow: true}},
		{"fail", prompt("this should fail", allTools), reply{fail: true}},
		{"anything else", prompt("hello there", allTools), reply{text: "ok"}},
		{"no messages", `{}`, reply{text: "ok"}},
		{"only noise in the last turn", `{"tools":` + allTools + `,"messages":[` +
			`{"role":"user","content":"say hi"},{"role":"assistant","content":"x"},` +
			`{"role":"user","content":[` + reminder + `]}]}`,
			reply{text: "hi from the fake model"}},
		{"follow-up, string result", `{"tools":` + allTools + `,"messages":[` +
			`{"role":"user","content":"run ls"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_fake_1","name":"Bash","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_fake_1","content":"(Bash completed with no output)"},` +
			reminder + `]}]}`,
			reply{text: "done: (Bash completed with no output)"}},
		{"follow-up, block result cut at 60 runes", `{"messages":[` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"` + long + `"}]}]}]}`,
			reply{text: "done: " + strings.Repeat("é", 60)}},
		{"a prompt after a denied tool", `{"tools":` + allTools + `,"messages":[` +
			`{"role":"user","content":"plan it"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_fake_1","name":"ExitPlanMode","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_fake_1","is_error":true,"content":"The user doesn't want to proceed"},` +
			`{"type":"text","text":"[Request interrupted by user for tool use]\n"},{"type":"text","text":"say hi"}]}]}`,
			reply{text: "hi from the fake model"}},
		{"structured output wins", `{"output_config":{"format":{"type":"json_schema","schema":{"type":"object",` +
			`"properties":{"title":{"type":"string"},"n":{"type":"integer"}},"required":["title"]}}},` +
			`"messages":[{"role":"user","content":"<session>\ngo slow and fail\n</session>"}]}`,
			reply{text: `{"n":0,"title":"fake title"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req request
			if err := json.Unmarshal([]byte(tt.body), &req); err != nil {
				t.Fatalf("test body: %v", err)
			}
			got := choose(req)
			if got.text != tt.want.text || got.tool != tt.want.tool || got.slow != tt.want.slow || got.fail != tt.want.fail {
				t.Errorf("choose = {text %q tool %q slow %v fail %v}, want {text %q tool %q slow %v fail %v}",
					got.text, got.tool, got.slow, got.fail, tt.want.text, tt.want.tool, tt.want.slow, tt.want.fail)
			}
			if tt.want.input != nil && !sameJSON(t, got.input, tt.want.input) {
				t.Errorf("input = %s, want %s", got.input, tt.want.input)
			}
			if wantStop := map[bool]string{true: "tool_use", false: "end_turn"}[tt.want.tool != ""]; got.stopReason() != wantStop {
				t.Errorf("stopReason = %q, want %q", got.stopReason(), wantStop)
			}
		})
	}
}

// sameJSON reports whether a and b hold equal JSON values.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("not JSON: %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("not JSON: %s: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}
