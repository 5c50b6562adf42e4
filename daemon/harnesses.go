package daemon

import (
	"maps"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/adapter/codex"
	"github.com/trailboss/trailboss/adapter/copilot"
	"github.com/trailboss/trailboss/adapter/gemini"
	"github.com/trailboss/trailboss/adapter/opencode"
	termprompt "github.com/trailboss/trailboss/adapter/prompt"
	"github.com/trailboss/trailboss/daemon/liverule"
)

// The harnesses the daemon knows, and what each adds to it; the only file of the daemon
// that names their adapters. Adding a harness is its adapter package and its line here.
var harnesses = map[string]harness{
	claude.Harness: {
		hooks: decodedBy(claude.DecodeHook), spawnOrdered: true, fullyHooked: true,
		transcripts: claude.Transcripts{}, live: claude.LiveStates{}, typing: termprompt.ClaudeTyping,
		command: claude.Command, liveWords: liverule.Words{Name: claude.Name, Dialog: claude.DialogWords},
	},
	codex.Harness:    {hooks: parsedBy(codex.Parse), typing: termprompt.CodexTyping, command: codex.Command}, // never holds: it would block Codex's own prompt
	opencode.Harness: {hooks: decodedBy(opencode.DecodePayload), fullyHooked: true, command: opencode.Command},
	// Gemini CLI runs its hooks one at a time and waits for each; none can approve, so
	// none holds (an answer is keys). An Esc at its dialog fires nothing: its chat file
	// says so.
	// Its AfterTool, the first word of an approval, comes only once the command has run.
	gemini.Harness: {hooks: parsedBy(gemini.Parse), spawnOrdered: true, fullyHooked: true, silentApproval: true,
		transcripts: gemini.Transcripts{}, command: gemini.Command},
	copilot.Harness: {hooks: decodedBy(copilot.DecodeHook), fullyHooked: true,
		transcripts: copilot.Transcripts{}, live: copilot.LiveStates{}, typing: termprompt.CopilotTyping,
		liveWords: liverule.Words{Name: copilot.Name}},
	// Aider has no adapter: it reports nothing, and the screen adapter reads its panes with
	// the prompts of any program (adapter/prompt's generic ones).
	"aider": {command: "aider"},
}

// harness is what one harness adds to the daemon; a nil or false field adds nothing.
type harness struct {
	// hooks decodes its hook payloads, which post to /v1/hooks/NAME (and spool as NAME),
	// into the value that says their events and whether they may hold (hookPayload).
	hooks hookDecoder
	// spawnOrdered says its hooks are started, by one process, in the order of what they
	// tell: Claude Code's, as observed. Its hooks are ordered as they were started
	// (Ingestor.order). Not Codex: its TUI runs notify while its app-server runs the
	// hooks, and ordered by start, a turn's end was lost under load (TestRealCodexTwoTUIs:
	// the turn's notify dated before a PostToolUse applied just before it). Codex's events
	// name their turn instead, and a late hook of a turn already complete is dropped
	// (endedTurns).
	spawnOrdered bool
	// fullyHooked says its hooks report every kind of wait (Claude Code's; OpenCode's
	// plugin, which also answers its dialogs itself): the screen adapter leaves its panes
	// alone.
	fullyHooked bool
	// silentApproval says nothing of it tells an approved permission before its tool has
	// run: an approval typed as keys takes the session out (deliver.Deliverer).
	silentApproval bool
	// transcripts reads its transcripts, which the Reconciler reconciles against.
	transcripts adapter.TranscriptReader
	// live is where it keeps live state files, which LiveStates follows.
	live adapter.LiveStateSource
	// typing is how its program takes an answer typed into its pane (the Deliverer's
	// Typing); the zero Typing, that of any program in a pane.
	typing termprompt.Typing
	// command is the name its process runs under (a tmux pane's current command), by which
	// the screen adapter finds its panes without being asked.
	command string
	// liveWords are its words for the waits its live state shows and no hook put in words
	// (liveWordsOf).
	liveWords liverule.Words
}

// The tables of harnesses by what they add, as their users read them.
var (
	hookDecoders      = make(map[string]hookDecoder)
	spawnOrdered      = make(map[string]bool)
	transcriptReaders = make(map[string]adapter.TranscriptReader)
	fullyHooked       = make(map[string]bool)
	silentApprovals   = make(map[string]bool)
	screenCommands    = make(map[string]string)
	liveWords         = make(map[string]liverule.Words)
)

func init() {
	for name, h := range harnesses {
		if h.hooks != nil {
			hookDecoders[name] = h.hooks
		}
		if h.spawnOrdered {
			spawnOrdered[name] = true
		}
		if h.fullyHooked {
			fullyHooked[name] = true
		}
		if h.silentApproval {
			silentApprovals[name] = true
		}
		if h.transcripts != nil {
			transcriptReaders[name] = h.transcripts
		}
		if h.command != "" {
			screenCommands[h.command] = name
		}
		if h.liveWords.Name != "" {
			liveWords[name] = h.liveWords
		}
	}
}

// TranscriptReaders returns the transcript reader of each harness that has transcripts, by
// harness name, for the reconciler.
func TranscriptReaders() map[string]adapter.TranscriptReader { return maps.Clone(transcriptReaders) }

// FullyHooked returns the harnesses whose hooks say every wait, which the screen adapter
// leaves alone.
func FullyHooked() map[string]bool { return maps.Clone(fullyHooked) }

// ScreenCommands returns the harness each command names, by the command its process runs
// under (a tmux pane's current command): the panes the screen adapter watches without being
// asked (watch.ScreenWatcher's Commands).
func ScreenCommands() map[string]string { return maps.Clone(screenCommands) }

// SilentApprovals returns the harnesses that tell nothing of an approved permission before
// its tool has run (the Deliverer's SilentApproval).
func SilentApprovals() map[string]bool { return maps.Clone(silentApprovals) }

// LiveStateSources returns where each harness that keeps live state files keeps them and how
// to read them, by harness name (the Source of its LiveStateWatchers).
func LiveStateSources() map[string]adapter.LiveStateSource {
	out := make(map[string]adapter.LiveStateSource)
	for name, h := range harnesses {
		if h.live != nil {
			out[name] = h.live
		}
	}
	return out
}

// TypingRules returns how each harness's program takes an answer typed into its pane, by
// harness name (the Deliverer's Typing).
func TypingRules() map[string]termprompt.Typing {
	out := make(map[string]termprompt.Typing, len(harnesses))
	for name, h := range harnesses {
		out[name] = h.typing
	}
	return out
}

// liveWordsOf returns harness's words for the waits its live state shows (liverule.Words);
// a harness with none of its own is named by its name in the protocol.
func liveWordsOf(harness string) liverule.Words {
	if w, ok := liveWords[harness]; ok {
		return w
	}
	return liverule.Words{Name: harness}
}
