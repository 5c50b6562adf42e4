package claude

import "github.com/trailboss/trailboss/adapter"

// Name is Claude Code as its users know it: the daemon's words for its waits name it.
const Name = "Claude Code"

// DialogWords returns the words of a dialog that is not a permission, opened while call was
// about to run, or "" when Claude Code has none of its own for it: in auto mode (2.1.332),
// a dialog that opens before a call is the offer to leave auto mode when it cannot check
// the session's actions.
func DialogWords(call adapter.ToolCall) string {
	if call.Mode != "auto" {
		return ""
	}
	return adapter.CleanText("auto mode can't check actions in this session: choose in the pane "+
		"to approve each one yourself or to leave auto mode (next: "+call.Summary+")", adapter.MaxSummaryLen)
}
