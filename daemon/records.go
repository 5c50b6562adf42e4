package daemon

import (
	"context"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// Records the engine's store keeps beside the sessions, for the core's other types, which
// go through the engine rather than its store.

// RecordDelivery appends one delivery attempt to the audit log.
func (e *Engine) RecordDelivery(ctx context.Context, d wire.Delivery) error {
	return e.store.RecordDelivery(ctx, d)
}

// EventSeen reports whether a generic event with this id was already applied.
func (e *Engine) EventSeen(ctx context.Context, id string) (bool, error) {
	return e.store.EventSeen(ctx, id)
}

// RecordEvent remembers that the generic event id was applied at.
func (e *Engine) RecordEvent(ctx context.Context, id string, at time.Time) error {
	return e.store.RecordEvent(ctx, id, at)
}
