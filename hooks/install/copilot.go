package install

// Trail Boss's GitHub Copilot CLI hooks: one file, $COPILOT_HOME/hooks/trailboss.json, that
// setup writes and --undo removes (Copilot reads every *.json in that folder). The file is
// wholly Trail Boss's, so there is nothing to merge: it is ours when its "trailboss" key
// says so, and current when it is what CopilotHooks makes now.

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/trailboss/trailboss/adapter/copilot"
	"github.com/trailboss/trailboss/hooks"
)

// CopilotHooksName is the hook file's name in Copilot's hooks folder.
const CopilotHooksName = "trailboss.json"

// copilotMarker is the value of the file's "trailboss" key: the file is Trail Boss's.
// copilotMadeFolder is the value when setup made the hooks folder for it too (--undo then
// removes the folder when it is empty).
const (
	copilotMarker     = "Trail Boss's hooks, written by `trailboss setup --copilot`; `trailboss setup --copilot --undo` removes this file."
	copilotMadeFolder = copilotMarker + " (setup made this folder for it, and --undo removes the folder again when it is empty.)"
)

// copilotHookTimeout is the timeout of every hook but permissionRequest, in seconds: the
// emitter gives up long before (an agentStop waits up to a second for events.jsonl).
const copilotHookTimeout = 10

// copilotHook is one entry of Copilot's native hook format.
type copilotHook struct {
	Type       string `json:"type"`
	Bash       string `json:"bash"`
	TimeoutSec int    `json:"timeoutSec"`
}

// CopilotHooks returns the hook file that runs bin (the trailboss program, a path or a name
// on PATH) for each event Trail Boss uses (copilot.Events: never preToolUse, which denies
// the tool when its hook fails); madeFolder says setup makes the hooks folder for it.
func CopilotHooks(bin string, madeFolder bool) []byte {
	marker := copilotMarker
	if madeFolder {
		marker = copilotMadeFolder
	}
	hooksByEvent := make(map[string][]copilotHook, len(copilot.Events))
	for _, ev := range copilot.Events {
		timeout := copilotHookTimeout
		if ev == copilot.PermissionRequest {
			timeout = int(hooks.PermissionHookTimeout.Seconds()) // it may hold for an answer
		}
		hooksByEvent[ev] = []copilotHook{{Type: "command", Bash: hooks.ShellWord(bin) + " emit --copilot " + ev, TimeoutSec: timeout}}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(struct {
		Trailboss string                   `json:"trailboss"`
		Version   int                      `json:"version"`
		Hooks     map[string][]copilotHook `json:"hooks"`
	}{marker, 1, hooksByEvent}) // strings and ints always encode
	return b.Bytes()
}

// copilotMark returns the "trailboss" key of a hook file's bytes, or "".
func copilotMark(b []byte) string {
	var f struct {
		Trailboss string `json:"trailboss"`
	}
	if json.Unmarshal(b, &f) != nil {
		return ""
	}
	return f.Trailboss
}

// IsCopilotHooks reports whether b, a hook file's bytes, is Trail Boss's.
func IsCopilotHooks(b []byte) bool { return strings.HasPrefix(copilotMark(b), copilotMarker) }

// CopilotHooksMadeFolder reports whether b, Trail Boss's hook file, says setup made its
// folder.
func CopilotHooksMadeFolder(b []byte) bool { return copilotMark(b) == copilotMadeFolder }
