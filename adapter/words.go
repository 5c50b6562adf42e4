package adapter

// The words every part of Trail Boss (the daemon, its protocol, the popup, the channels)
// shares with the adapters: who a session runs, and the keys an answer picks. The ask
// kinds are with Ask.

// Harness names: what an Event's Harness says, and the route its hooks post to.
const (
	HarnessClaude   = "claude"   // Claude Code
	HarnessCodex    = "codex"    // Codex CLI
	HarnessOpenCode = "opencode" // OpenCode
	HarnessGemini   = "gemini"   // Gemini CLI
	HarnessCopilot  = "copilot"  // GitHub Copilot CLI
	HarnessPTY      = "pty"      // a program run under trailboss run
	// HarnessScreen is a pane the screen adapter was asked to watch with no harness named.
	HarnessScreen = "screen"
)

// Choice keys with a meaning of their own: a permission's two, and a press-enter ask's one.
const (
	ChoiceAllow = "allow"
	ChoiceDeny  = "deny"
	ChoiceEnter = "enter"
)
