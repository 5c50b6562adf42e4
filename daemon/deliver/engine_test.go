package deliver_test

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/enginetest"
	"github.com/trailboss/trailboss/daemon/wire"
)

// The Deliverer's tests that answer prompts in real panes run it against the daemon's own
// engine, as the daemon wires it.

var discard = slog.New(slog.DiscardHandler)

// newEngine returns an engine over a new store and the path of that store.
func newEngine(t testing.TB) (*daemon.Engine, string) { return enginetest.Open(t, daemon.NewEngine) }

// refusalReason returns the reason of a *wire.PromptRefusal, or "" when err is none.
func refusalReason(err error) string {
	var r *wire.PromptRefusal
	if errors.As(err, &r) {
		return r.Reason
	}
	return ""
}
