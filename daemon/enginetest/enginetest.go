// Package enginetest builds the engine that the daemon's tests drive, as the daemon builds
// it: the one constructor of the core's own tests, the watchers', the deliverer's, the
// HTTP face's and the benchmarks'. It is for tests only.
package enginetest

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/store"
)

// cooldown is the engine's cooldown: the tests that dismiss a session count on a minute.
const cooldown = time.Minute

// Open returns an engine over a fresh store in a temp dir of tb, and the store's path;
// the store closes when tb ends. newEngine is daemon.NewEngine, passed in rather than
// imported so that the core's own tests (package daemon, which cannot import a package
// that imports it) build their engine here too. The engine logs nothing.
func Open[E any](tb testing.TB, newEngine func(context.Context, *store.Store, time.Duration, *slog.Logger) (E, error)) (E, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "state.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	e, err := newEngine(context.Background(), st, cooldown, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	return e, path
}
