package deliver_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/watch"
	"github.com/trailboss/trailboss/daemon/wire"
)

// The Deliverer's tests that answer prompts in real panes run it against the daemon's own
// engine, as the daemon wires it.

var discard = slog.New(slog.DiscardHandler)

// newEngine returns an engine over a new store and the path of that store.
func newEngine(t testing.TB) (*daemon.Engine, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e, err := daemon.NewEngine(context.Background(), st, time.Minute, discard)
	if err != nil {
		t.Fatal(err)
	}
	e.Calls = &watch.Dialogs{Engine: e} // as Run wires it
	return e, path
}

// refusalReason returns the reason of a *wire.PromptRefusal, or "" when err is none.
func refusalReason(err error) string {
	var r *wire.PromptRefusal
	if errors.As(err, &r) {
		return r.Reason
	}
	return ""
}
