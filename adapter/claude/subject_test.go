package claude

import (
	"encoding/json"
	"strings"
	"testing"
)

// A Subject is the tool call, whole: the same call however its JSON is spaced or ordered
// (the spool re-encodes payloads), and another as soon as one byte of its input or its
// tool differs — also past the part a summary shows.
func TestSubjectIsTheWholeToolCall(t *testing.T) {
	long := `{"command":"echo ` + strings.Repeat("a", 3000)
	base := Subject("Bash", json.RawMessage(`{"command":"touch x","description":"Create x","timeout":120000}`))
	for _, tt := range []struct {
		name  string
		tool  string
		input string
		same  bool
	}{
		{"the same call", "Bash", `{"command":"touch x","description":"Create x","timeout":120000}`, true},
		{"re-encoded: other key order and spaces", "Bash", "{ \"timeout\": 120000,\n \"description\": \"Create x\", \"command\": \"touch x\" }", true},
		{"another command", "Bash", `{"command":"touch y","description":"Create x","timeout":120000}`, false},
		{"another number", "Bash", `{"command":"touch x","description":"Create x","timeout":120001}`, false},
		{"another tool", "Write", `{"command":"touch x","description":"Create x","timeout":120000}`, false},
		{"no input", "Bash", ``, false},
	} {
		if got := Subject(tt.tool, json.RawMessage(tt.input)); (got == base) != tt.same {
			t.Errorf("%s: Subject %s, the call's %s; want same %v", tt.name, got, base, tt.same)
		}
	}
	// Past what any summary shows: two commands that differ only at their ends.
	a := Subject("Bash", json.RawMessage(long+`1"}`))
	b := Subject("Bash", json.RawMessage(long+`2"}`))
	if a == b {
		t.Errorf("two commands that differ in their last byte have one Subject %s", a)
	}
}
