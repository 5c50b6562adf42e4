package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/trailboss/trailboss/daemon/wallclock"
	"github.com/trailboss/trailboss/daemon/wire"
)

// streamBeat is how often an idle queue stream carries a heartbeat: the hub's clock-offset
// estimate stays fresh, and a dead connection shows on this side at the next write.
const streamBeat = 5 * time.Second

// queueStream pushes this daemon's own queue (never a hub's merged one: hubs do not chain)
// as one JSON line when the stream opens, after every committed change, when a skipped
// item's cooldown ends, and a heartbeat when nothing changed for streamBeat. It lasts until
// the caller hangs up or the daemon stops.
func (a *Server) queueStream(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "this server cannot stream")
		return
	}
	changed, stop := a.Core.QueueChanges()
	defer stop()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	// No deadlines for this one connection: it lives as long as the hub reads (the
	// server's read timeout would cancel the request).
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	enc := json.NewEncoder(w)
	beat := time.NewTimer(streamBeat)
	defer beat.Stop()
	cooled := time.NewTimer(time.Hour)
	defer cooled.Stop()
	full := true
	for {
		upd := wire.QueueUpdate{ServerTime: wallclock.Now(), Beat: !full}
		if full {
			items := a.Core.Items()
			upd.Items, upd.DeliveryOff = make([]wire.Item, len(items)), a.Core.DeliveryOff()
			next := time.Hour
			for i, it := range items {
				upd.Items[i] = toItem(i+1, it)
				if until := it.CooldownUntil.Sub(wallclock.Now()); !it.Ready && until > 0 {
					next = min(next, until)
				}
			}
			cooled.Reset(next)
		}
		// A write that blocks on a hub that stopped reading ends when the bridge or ssh
		// dies, which closes the socket.
		if err := enc.Encode(upd); err != nil {
			return
		}
		flusher.Flush()
		beat.Reset(streamBeat)
		select {
		case <-r.Context().Done():
			return
		case <-a.Core.Stopping():
			return
		case <-changed:
			full = true
		case <-cooled.C:
			full = true
		case <-beat.C:
			full = false
		}
	}
}
