package adapter

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestHookFieldsAreWhatHookPayloadReads: a field added to HookPayload must be kept in the
// spool too, or a spooled event would mean less than a posted one.
func TestHookFieldsAreWhatHookPayloadReads(t *testing.T) {
	var tags []string
	typ := reflect.TypeOf(HookPayload{})
	for i := range typ.NumField() {
		tags = append(tags, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	got := slices.Clone(HookFields)
	slices.Sort(got)
	slices.Sort(tags)
	if !slices.Equal(got, tags) {
		t.Fatalf("HookFields %v, HookPayload reads %v", got, tags)
	}
}

func TestSlimKeepsWhatIsReadAndCutsTheRest(t *testing.T) {
	huge := strings.Repeat("x", 3<<20)
	options := make([]map[string]string, 40)
	for i := range options {
		options[i] = map[string]string{"label": "é" + strings.Repeat("y", SlimString)}
	}
	payload, _ := json.Marshal(map[string]any{
		"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input":    map[string]any{"command": "ls", "questions": []any{map[string]any{"options": options}}},
		"tool_response": map[string]any{"stdout": huge}, "effort": "default",
	})
	slim := Slim(payload, HookFields)
	if len(slim) > 400<<10 {
		t.Fatalf("slimmed to %d bytes", len(slim))
	}
	var got struct {
		HookPayload
		ToolResponse any    `json:"tool_response"`
		Mode         string `json:"effort"`
	}
	if err := json.Unmarshal(slim, &got); err != nil {
		t.Fatal(err)
	}
	if got.SessionID != "s1" || got.HookEventName != "PostToolUse" || got.ToolName != "Bash" || got.ToolResponse != nil || got.Mode != "" {
		t.Fatalf("slimmed to %+v", got)
	}
	var in struct {
		Command   string `json:"command"`
		Questions []struct {
			Options []struct{ Label string } `json:"options"`
		} `json:"questions"`
	}
	if err := json.Unmarshal(got.ToolInput, &in); err != nil || in.Command != "ls" || len(in.Questions[0].Options) != SlimItems {
		t.Fatalf("tool_input slimmed to %s (%v)", got.ToolInput, err)
	}
	if l := in.Questions[0].Options[0].Label; len(l) > SlimString || !strings.HasPrefix(l, "éyyy") {
		t.Fatalf("a long label became %d bytes, %.10q", len(l), l)
	}
	if string(Slim([]byte("not json"), HookFields)) != "not json" {
		t.Fatal("a payload that is not an object changed")
	}
}
