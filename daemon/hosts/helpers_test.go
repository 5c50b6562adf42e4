package hosts

import (
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// apply takes one update received at got on a connection whose round trip is rtt, decoded
// in full: what the stream's decoder gives take, for tests that hand the Conn an update.
func (c *Conn) apply(upd wire.QueueUpdate, got time.Time, rtt time.Duration, first bool) {
	var items []wire.Item
	if !upd.Beat {
		items = make([]wire.Item, len(upd.Items))
		for i, it := range upd.Items {
			items[i] = c.finish(it)
		}
	}
	c.take(upd.ServerTime, upd.Beat, items, got, rtt, first)
}
