package hotcmd

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/adapter/generic"
	"github.com/trailboss/trailboss/cmd/internal/config"
	"github.com/trailboss/trailboss/daemon/statedir"
	"github.com/trailboss/trailboss/daemon/wallclock"
	"github.com/trailboss/trailboss/hooks/emit"
)

// Emit is `trailboss emit`, what every Claude Code hook runs. It must never slow or break Claude Code: it
// always exits 0, prints nothing and gives up within emit.EmitTimeout once it has read its
// payload (emit.PayloadReadTimeout at most), except for a
// PermissionRequest that the daemon says to hold (holding is on): that one waits for the
// person's answer and prints Claude Code's decision, or nothing (emit.Emitter.Emit).
// Failures go to emit.log in the state directory. It takes no flags, so nothing is parsed
// on the hot path.
func Emit(ctx context.Context, e *Env, args []string) error {
	// A spooled event carries an agent's words and commands: the user's alone.
	syscall.Umask(0o077)
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		// A person asking, not a hook: help, and nothing read or queued.
		usage(e.Stdout, flag.NewFlagSet("emit", flag.ContinueOnError))
		return nil
	}
	if len(args) > 0 && args[0] == "--generic" {
		return emitGeneric(ctx, e, args[1:])
	}
	if len(args) > 0 && args[0] == "--codex" {
		return emitCodex(ctx, e, args[1:])
	}
	if len(args) > 0 && args[0] == "--opencode" {
		return emitOpenCode(ctx, e, args[1:])
	}
	if len(args) > 0 && args[0] == "--gemini" {
		return emitGemini(ctx, e)
	}
	if len(args) > 0 && args[0] == "--copilot" {
		return emitCopilot(ctx, e, args[1:])
	}
	dir, err := statedir.Default()
	if err != nil {
		return nil // nowhere to even log to
	}
	em := newEmitter(e, dir, emit.EmitTimeout-emit.EmitReserve)
	em.Stdin, em.Stdout = e.Stdin, e.Stdout
	if path := e.Getenv("TRAILBOSS_EMIT_TRACE"); path != "" {
		defer traceEmit(path, em)()
	}
	if err := em.Emit(ctx); err != nil {
		emit.LogFailure(dir, time.Now(), err)
	}
	return nil
}

// traceEmit, for TRAILBOSS_EMIT_TRACE (the real-agent tests set it), appends a line to path
// when a hook starts and another, with the event it read, when it ends: the only witness
// of a hook that ran and sent nothing, or of one that never ran.
func traceEmit(path string, em *emit.Emitter) (done func()) {
	start := time.Now()
	var read bytes.Buffer
	em.Stdin = io.TeeReader(em.Stdin, &read)
	line := func(s string) {
		if f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintf(f, "%s pid %d %s\n", time.Now().UTC().Format("15:04:05.000"), os.Getpid(), s)
			f.Close()
		}
	}
	line("start")
	em.Holding = func(id string) { line("holds prompt " + id) }
	return func() {
		var p struct {
			Event string `json:"hook_event_name"`
			Tool  string `json:"tool_name"`
			Type  string `json:"type"` // an OpenCode plugin's event
		}
		_ = json.Unmarshal(read.Bytes(), &p)
		line(fmt.Sprintf("end %s %s after %v (%d bytes read)", p.Event+p.Type, p.Tool, time.Since(start).Round(time.Millisecond), read.Len()))
	}
}

// newEmitter returns the emitter of a hook with state in dir, as this user's config file
// says: the daemon's TCP address when one is set (else its unix socket), and whether a
// PermissionRequest may hold for an answer — the local config alone decides that, never
// the server's answer.
func newEmitter(e *Env, dir string, timeout time.Duration) *emit.Emitter {
	cfg, err := config.Load(e.Getenv)
	if err != nil {
		cfg = config.File{} // the daemon refuses such a file: nothing holds, the socket is used
	}
	return &emit.Emitter{Addr: firstNonEmpty(e.Getenv("TRAILBOSS_ADDR"), cfg.Addr), StateDir: dir, Getenv: e.Getenv,
		Hold: cfg.Holds(), Timeout: timeout, Now: wallclock.Now}
}

// emitCodex is `trailboss emit --codex [PAYLOAD]`, what Codex CLI runs: as its notify
// program with the payload as the last argument, or as a hook with the payload on stdin.
// Quiet as a Claude Code hook: it prints nothing and exits 0.
func emitCodex(ctx context.Context, e *Env, args []string) error {
	dir, err := statedir.Default()
	if err != nil {
		return nil
	}
	var arg []byte
	if len(args) > 0 {
		arg = []byte(args[len(args)-1])
	}
	em := newEmitter(e, dir, emit.EmitTimeout-emit.EmitReserve)
	em.Stdin = e.Stdin
	if err := em.EmitCodex(ctx, arg); err != nil {
		emit.LogFailure(dir, time.Now(), err)
	}
	return nil
}

// emitOpenCode is `trailboss emit --opencode`, what Trail Boss's OpenCode plugin runs
// for each event, with the event on stdin (or, when OpenCode is quitting, as its argument).
// Quiet as a Claude Code hook: it exits 0, and prints only the reply to a permission or
// question the daemon had it hold for.
func emitOpenCode(ctx context.Context, e *Env, args []string) error {
	dir, err := statedir.Default()
	if err != nil {
		return nil
	}
	em := newEmitter(e, dir, emit.EmitTimeout-emit.EmitReserve)
	em.Stdin, em.Stdout = e.Stdin, e.Stdout
	if len(args) > 0 {
		em.Stdin = strings.NewReader(args[len(args)-1])
	}
	if path := e.Getenv("TRAILBOSS_EMIT_TRACE"); path != "" {
		defer traceEmit(path, em)()
	}
	if err := em.EmitOpenCode(ctx); err != nil {
		emit.LogFailure(dir, time.Now(), err)
	}
	return nil
}

// emitGemini is `trailboss emit --gemini`, what Gemini CLI's hooks run, with the payload
// on stdin. Gemini waits for each hook and reads its stdout as JSON: it prints nothing and
// exits 0, as a Claude Code hook does. Gemini passes its API key in the hook's
// environment: nothing of the environment but the tmux place is read or kept.
func emitGemini(ctx context.Context, e *Env) error {
	dir, err := statedir.Default()
	if err != nil {
		return nil
	}
	em := newEmitter(e, dir, emit.EmitTimeout-emit.EmitReserve)
	em.Stdin = e.Stdin
	if path := e.Getenv("TRAILBOSS_EMIT_TRACE"); path != "" {
		defer traceEmit(path, em)()
	}
	if err := em.EmitGemini(ctx); err != nil {
		emit.LogFailure(dir, time.Now(), err)
	}
	return nil
}

// emitCopilot is `trailboss emit --copilot EVENT`, what GitHub Copilot CLI runs for each
// hook Trail Boss registers, with the payload on stdin (which does not name its event).
// Quiet as a Claude Code hook: it exits 0, and prints only the decision of a permission
// the daemon had it hold for.
func emitCopilot(ctx context.Context, e *Env, args []string) error {
	dir, err := statedir.Default()
	if err != nil || len(args) == 0 {
		return nil
	}
	em := newEmitter(e, dir, emit.EmitTimeout-emit.EmitReserve)
	em.Stdin, em.Stdout = e.Stdin, e.Stdout
	if path := e.Getenv("TRAILBOSS_EMIT_TRACE"); path != "" {
		defer traceEmit(path, em)()
	}
	if err := em.EmitCopilot(ctx, args[0]); err != nil {
		emit.LogFailure(dir, time.Now(), err)
	}
	return nil
}

// emitGeneric is `trailboss emit --generic`: a shell's way into the generic event API.
// Unlike a hook it is loud: a refused event is an error (exit 1). An event the daemon does
// not take in time waits in the spool, quietly, as a hook's would.
func emitGeneric(ctx context.Context, e *Env, args []string) error {
	fs := flag.NewFlagSet("emit --generic", flag.ContinueOnError)
	state := fs.String("state", "", "stuck, unstuck, start or end (required)")
	summary := fs.String("summary", "", "what the session waits for, for the operator")
	reason := fs.String("reason", "", "for stuck: stopped (default) or permission")
	detail := fs.String("detail", "", "a finer display detail")
	session := fs.String("session", "", "the session's id (default $TRAILBOSS_SESSION, else one per tmux pane)")
	id := fs.String("id", "", "the event's id, for retries (default: a new random id)")
	harness := fs.String("harness", "script", "what is sending it")
	if err := Parse(fs, args, e.Stderr, usage); err != nil {
		return err
	}
	pane, tmux := e.Getenv("TMUX_PANE"), e.Getenv("TMUX")
	if *session == "" {
		*session = e.Getenv("TRAILBOSS_SESSION")
	}
	if *session == "" && pane != "" {
		*session = "pane" + pane + "@" + strings.SplitN(tmux, ",", 2)[0]
	}
	if *session == "" {
		return fmt.Errorf("%w: emit --generic: which session? outside tmux, name it: --session NAME (or set TRAILBOSS_SESSION)", ErrUsage)
	}
	if *id == "" {
		*id = RandomID()
	}
	cwd, _ := os.Getwd()
	env := map[string]any{"v": 1, "id": *id, "type": "session." + *state, "session": *session,
		"harness": *harness, "summary": *summary, "detail": *detail, "reason": *reason, "cwd": cwd,
		"at": time.Now().UTC().Format(time.RFC3339Nano)}
	if pane != "" {
		env["pane"], env["tmux"] = pane, tmux
	}
	body, _ := json.Marshal(env)
	switch *state {
	case "stuck", "unstuck", "start", "end":
	default:
		return fmt.Errorf("%w: emit --generic: --state %q is not one of stuck, unstuck, start, end", ErrUsage, adapter.CleanText(*state, 40))
	}
	// Checked here as the daemon would, so that a script's mistake is said even while the
	// daemon is down (the spool would otherwise keep it quietly, to be refused later).
	if _, err := generic.Parse(body, time.Now()); err != nil {
		var bad *generic.Error
		if errors.As(err, &bad) {
			return fmt.Errorf("%w: emit --generic: %s (see trailboss emit --help)", ErrUsage, strings.Join(bad.Problems, "; "))
		}
		return fmt.Errorf("%w: emit --generic: %v", ErrUsage, err)
	}
	dir, err := statedir.Default()
	if err != nil {
		return err
	}
	em := newEmitter(e, dir, 2*time.Second)
	if err := em.EmitGeneric(ctx, body); err != nil {
		if emit.IsRefused(err) {
			return err
		}
		emit.LogFailure(dir, time.Now(), err)
	}
	return nil
}

// RandomID returns a new random id in the form of a UUID: an event's, or a session's.
func RandomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
