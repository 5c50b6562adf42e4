package adapter

import (
	"encoding/json"
	"unicode/utf8"
)

// HookFields are the fields of a hook payload that the adapters read (HookPayload): what a
// spooled hook payload keeps.
var HookFields = []string{"session_id", "transcript_path", "cwd", "hook_event_name", "tool_name", "tool_input",
	"last_assistant_message", "message", "notification_type", "error", "error_details", "source", "reason",
	"tool_use_id", "prompt", "permission_mode", "turn_id"}

// Caps of what Slim keeps. A summary is cut to MaxSummaryLen after its escapes are removed,
// so a string cut at SlimString says the same; a question's menu has 9 keys.
const (
	SlimString = 8 << 10
	SlimItems  = 32
)

// Slim returns payload with only the top-level fields in keep, and within them each string
// cut to SlimString bytes and each array to SlimItems entries: what a hook's
// payload must keep to mean the same to its adapter, without the multi-megabyte fields
// (PostToolUse's tool_response, a Write's content) that it never reads. A payload that is
// not one JSON object is returned as it is: its adapter refuses it either way.
func Slim(payload []byte, keep []string) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(payload, &fields) != nil || fields == nil {
		return payload
	}
	out := make(map[string]any, len(keep))
	for _, k := range keep {
		raw, ok := fields[k]
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return payload
		}
		out[k] = slimValue(v)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return payload
	}
	return b
}

func slimValue(v any) any {
	switch v := v.(type) {
	case string:
		return cutUTF8(v, SlimString)
	case []any:
		if len(v) > SlimItems {
			v = v[:SlimItems]
		}
		for i := range v {
			v[i] = slimValue(v[i])
		}
		return v
	case map[string]any:
		// Every key stays: which ones an adapter reads (a tool_input's command) is its own.
		for k, x := range v {
			v[k] = slimValue(x)
		}
		return v
	}
	return v
}

// cutUTF8 returns s cut to at most n bytes, at a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
