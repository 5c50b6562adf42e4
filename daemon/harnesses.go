package daemon

import (
	"maps"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/claude"
	"github.com/trailboss/trailboss/adapter/codex"
	"github.com/trailboss/trailboss/adapter/copilot"
	"github.com/trailboss/trailboss/adapter/gemini"
	"github.com/trailboss/trailboss/adapter/opencode"
)

// The harnesses the daemon knows, and what each adds to it; the only file of the daemon
// that names their adapters. Adding a harness is its adapter package and its line here.
var harnesses = map[string]harness{
	claude.Harness: {
		hooks: decodedBy(claude.DecodeHook), spawnOrdered: true, fullyHooked: true,
		transcripts: claude.Transcripts{}, live: claude.LiveStates{},
	},
	codex.Harness:    {hooks: parsedBy(codex.Parse)}, // never holds: it would block Codex's own prompt
	opencode.Harness: {hooks: decodedBy(opencode.DecodePayload), fullyHooked: true},
	// Gemini CLI runs its hooks one at a time and waits for each; none can approve, so
	// none holds (an answer is keys). An Esc at its dialog fires nothing: its chat file
	// says so.
	// Its AfterTool, the first word of an approval, comes only once the command has run.
	gemini.Harness: {hooks: parsedBy(gemini.Parse), spawnOrdered: true, fullyHooked: true, silentApproval: true,
		transcripts: gemini.Transcripts{}},
	copilot.Harness: {hooks: decodedBy(copilot.DecodeHook), fullyHooked: true,
		transcripts: copilot.Transcripts{}, live: copilot.LiveStates{}},
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
}

// The tables of harnesses by what they add, as their users read them.
var (
	hookDecoders      = make(map[string]hookDecoder)
	spawnOrdered      = make(map[string]bool)
	transcriptReaders = make(map[string]adapter.TranscriptReader)
	fullyHooked       = make(map[string]bool)
	silentApprovals   = make(map[string]bool)
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
	}
}

// TranscriptReaders returns the transcript reader of each harness that has transcripts, by
// harness name, for the reconciler.
func TranscriptReaders() map[string]adapter.TranscriptReader { return maps.Clone(transcriptReaders) }

// FullyHooked returns the harnesses whose hooks say every wait, which the screen adapter
// leaves alone.
func FullyHooked() map[string]bool { return maps.Clone(fullyHooked) }

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
