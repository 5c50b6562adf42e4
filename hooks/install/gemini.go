package install

// Trail Boss's hooks in Gemini CLI's settings.json (~/.gemini/settings.json), written and
// taken out as Claude Code's are (settings.go): every other byte kept, an undo exact. The
// file's shape is Claude Code's; its events, and its timeouts (in milliseconds), are
// Gemini's own (../shared/GEMINI.md, 0.61.0).

import (
	"bytes"
	"fmt"
)

// GeminiEmitFlag is what a Gemini hook's command adds to `trailboss emit`.
const GeminiEmitFlag = "--gemini"

// GeminiHookName names our hooks in Gemini's settings (and in its "Executing Hook: …" line).
const GeminiHookName = "trailboss"

// GeminiHookTimeout is the "timeout" of our Gemini hooks, in milliseconds: Gemini waits for
// every hook, and emit gives up far sooner (300 ms once it has read its payload).
const GeminiHookTimeout = 10000

// GeminiEvents returns the Gemini hook events Trail Boss installs. BeforeTool only for
// ask_user, whose options its Notification does not name; no hook can approve in Gemini,
// so none holds.
func GeminiEvents() []Event {
	return []Event{
		{Name: "SessionStart", Matcher: "*"},
		{Name: "BeforeAgent", Matcher: "*"},
		{Name: "AfterAgent", Matcher: "*"},
		{Name: "Notification", Matcher: "*"},
		{Name: "BeforeTool", Matcher: "ask_user"},
		{Name: "AfterTool", Matcher: "*"},
		{Name: "SessionEnd", Matcher: "*"},
	}
}

var geminiHooks = hookSet{events: GeminiEvents, hook: func(_ Event, command string) ordered {
	return ordered{{"name", GeminiHookName}, {"type", "command"}, {"command", command}, {"timeout", GeminiHookTimeout}}
}}

// InstallGemini returns Gemini's settings with a hook running command (which ends with
// GeminiEmitFlag) for each of GeminiEvents, every other byte kept; errors as Install.
func InstallGemini(settings []byte, command string) ([]byte, error) {
	return geminiHooks.install(settings, command)
}

// UninstallGemini returns Gemini's settings without Trail Boss's hooks, as Uninstall.
func UninstallGemini(settings []byte, command string) ([]byte, error) {
	return Uninstall(settings, command)
}

// InstalledGemini reports whether every one of GeminiEvents has our hook in settings.
func InstalledGemini(settings []byte, command string) bool {
	return len(Installed(settings, command)) >= len(GeminiEvents())
}

// PlanGemini plans Gemini CLI's settings.json at path: Trail Boss's hooks, running command
// (`… emit --gemini`), added; or, undo, taken out, the original's very bytes given back
// when nothing else changed since (as PlanClaude).
func PlanGemini(path, command string, undo bool) (*Change, error) {
	c, err := Read(path, 0o600)
	if err != nil {
		return nil, err
	}
	if !undo {
		if c.New, err = InstallGemini(c.Old, command); err != nil {
			return nil, fmt.Errorf("%s: %w (nothing was changed)", path, err)
		}
		if bytes.Equal(c.New, c.Old) && c.Existed {
			c.Unchanged, c.Said = true, "✓ Gemini CLI hooks already set up in "+path
			return c, nil
		}
		c.KeepOriginal(fmt.Sprintf("✓ Gemini CLI hooks added to %s (%d events)", path, len(GeminiEvents())))
		return c, nil
	}
	return planUndo(c, path, settingsUndo{
		name:      "Gemini CLI",
		nothing:   "✓ no Gemini CLI settings at " + path + ": nothing to undo for Gemini CLI",
		uninstall: func(b []byte) ([]byte, error) { return UninstallGemini(b, command) },
		same:      SameJSON,
	})
}
