package emit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/trailboss/trailboss/adapter/codex"
	"github.com/trailboss/trailboss/tmuxctl"
)

// EmitCodex posts one Codex CLI payload with the tmux location of the program Codex ran, and
// spools it unless the daemon acknowledges it in time, as Emit does. Codex's notify program
// gets its payload as its last argument: pass it as arg. Codex's hooks get theirs on stdin:
// pass a nil arg and it is read from Stdin.
//
// A payload that Codex's shared app-server ran the program for is not sent: EmitCodex
// returns an error wrapping ErrSharedAppServer (see there).
func (e *Emitter) EmitCodex(ctx context.Context, arg []byte) error {
	emittedAt := e.Now()
	body := arg
	if body == nil {
		var err error
		if body, err = readPayload(ctx, e.Stdin); err != nil {
			return fmt.Errorf("read codex payload: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	if e.Getenv("TMUX_PANE") != "" || e.Getenv("TMUX") != "" {
		if pid := codexAppServer(); pid != 0 {
			return fmt.Errorf("%w (pid %d): not sent", ErrSharedAppServer, pid)
		}
	}
	return e.emitHook(ctx, codex.Harness, emittedAt, body, nil) // never held: it would block Codex's own prompt
}

// ErrSharedAppServer says a Codex hook or notify ran under Codex's shared app-server, so its
// environment, TMUX_PANE among it, is not that of the Codex the event is about.
//
// With its default config, Codex 0.169.0's first TUI starts a background `codex app-server
// --managed-daemon` (setsid, no terminal) that outlives it, and every later TUI connects to
// it: the app-server runs every TUI's hooks and notify with the environment of the TUI that
// started it. Pane B's events carry pane A's TMUX_PANE, and the process ancestry leads to
// pane A too (or to nothing, once A has exited); nothing else in the payload or on disk ties
// a thread to the TUI showing it (checked against the real binary: the TUI holds no file of
// its threads; the app-server holds them all). So an event cannot be landed on its own pane
// with Codex's default config, and Trail Boss never puts one on a pane that may not be its
// own: such a payload is not sent (the failure lands in emit.log, where doctor shows it).
// With `[features] daemon_auto_start = false`, which `trailboss setup --codex` writes, each
// TUI serves itself and runs its hooks with its own environment; a shared app-server that
// is still running is used even then, so doctor also says to stop it. Meanwhile the screen
// adapter, which finds Codex panes by themselves, still queues each approval on its pane.
var ErrSharedAppServer = errors.New("codex ran this under its shared app-server, whose TMUX_PANE is not this event's pane: " +
	"set [features] daemon_auto_start = false (trailboss setup --codex) and stop it (codex app-server daemon stop)")

// codexAppServer returns the pid of the `codex app-server` that ran this process, or 0: the
// nearest Codex among its first few ancestors (Codex runs a hook through $SHELL -lc, notify
// directly; a wrapper script may add a level), when that Codex is an app-server. Only the
// nearest counts, and only near: a test suite that a Codex agent runs has an app-server far
// up its ancestry, and the trailboss it runs is not that Codex's hook. A variable for tests.
var codexAppServer = func() int {
	pid, argv := tmuxctl.NearestAncestor(os.Getpid(), codexHookDepth, isCodex)
	if pid != 0 && IsCodexAppServer(argv) {
		return pid
	}
	return 0
}

// codexHookDepth is how many ancestors up the Codex that ran a hook may be.
const codexHookDepth = 3

// isCodex reports whether argv runs a Codex binary (a TUI, exec, or app-server).
func isCodex(argv []string) bool {
	return len(argv) > 0 && strings.HasPrefix(filepath.Base(argv[0]), "codex")
}

// IsCodexAppServer reports whether argv is a `codex app-server …` process: the shared one
// Codex starts in the background, or one another client runs.
func IsCodexAppServer(argv []string) bool {
	return len(argv) >= 2 && strings.HasPrefix(filepath.Base(argv[0]), "codex") && argv[1] == "app-server"
}
