package daemon

import (
	"net/http"

	"github.com/trailboss/trailboss/daemon/wire"
)

// channels answers GET /v1/channels: how each delivery channel running beside the daemon
// is doing (none when none is configured).
func (a *API) channels(w http.ResponseWriter, r *http.Request) {
	out := wire.Channels{Channels: []wire.ChannelStatus{}}
	for _, ch := range a.Channels {
		out.Channels = append(out.Channels, ch.Status())
	}
	writeJSON(w, http.StatusOK, out)
}
