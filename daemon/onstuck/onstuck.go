// Package onstuck runs the user's on_stuck command (config on_stuck) for each session that
// has just become stuck.
package onstuck

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/trailboss/trailboss/daemon/queue"
)

// Runner runs the user's on_stuck command (say, notify-send) for each newly stuck
// session, with the session in its environment. It never blocks the engine: at most
// backlog runs wait, and a burst beyond that is dropped with a warning. The engine reaches
// it through Enqueue, its OnStuck callback.
type Runner struct {
	Command string
	Log     *slog.Logger

	once    sync.Once // makes pending: Enqueue and Run may each be first, on two goroutines
	pending chan queue.Session
}

const (
	backlog = 64
	timeout = 10 * time.Second
)

// Enqueue hands a newly stuck session to the runner without waiting.
func (h *Runner) Enqueue(s queue.Session) {
	select {
	case h.channel() <- s:
	default:
		h.Log.Warn("on_stuck: too many runs waiting; skipped one", "session", s.ID)
	}
}

func (h *Runner) channel() chan queue.Session {
	h.once.Do(func() { h.pending = make(chan queue.Session, backlog) })
	return h.pending
}

// Run runs the command for each enqueued session, one at a time, until ctx ends.
func (h *Runner) Run(ctx context.Context) error {
	pending := h.channel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case s := <-pending:
			h.run(ctx, s)
		}
	}
}

func (h *Runner) run(ctx context.Context, s queue.Session) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", h.Command)
	// The session's words reach the command as environment, never spliced into it.
	cmd.Env = append(withoutSecrets(os.Environ()),
		"TRAILBOSS_SESSION="+s.ID, "TRAILBOSS_PANE="+s.Pane, "TRAILBOSS_REASON="+s.Reason,
		"TRAILBOSS_DETAIL="+s.Detail, "TRAILBOSS_SUMMARY="+s.Summary, "TRAILBOSS_CWD="+s.Cwd,
		"TRAILBOSS_TMUX_SOCKET="+s.TmuxSocket)
	if out, err := cmd.CombinedOutput(); err != nil {
		h.Log.Warn("on_stuck failed", "session", s.ID, "err", err, "output", string(out))
	}
}

// secretNames are the parts of an environment variable's name that say it holds a secret.
var secretNames = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "CREDENTIAL", "PRIVATE_KEY"}

// withoutSecrets returns env without the variables whose names say they hold a secret
// (TRAILBOSS_TELEGRAM_TOKEN, GITHUB_TOKEN, ANTHROPIC_API_KEY, …): on_stuck is a
// notification command, and what it runs (a script, a webhook client) needs none of the
// daemon's secrets.
func withoutSecrets(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		if !slices.ContainsFunc(secretNames, func(s string) bool { return strings.Contains(upper, s) }) {
			out = append(out, kv)
		}
	}
	return out
}
