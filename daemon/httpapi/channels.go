package httpapi

import (
	"net/http"

	"github.com/trailboss/trailboss/daemon/wire"
)

// channels answers GET /v1/channels: how each delivery channel running beside the daemon
// is doing (none when none is configured).
func (a *Server) channels(w http.ResponseWriter, r *http.Request) {
	out := wire.Channels{Channels: []wire.ChannelStatus{}}
	out.Channels = append(out.Channels, a.Core.Channels()...)
	writeJSON(w, http.StatusOK, out)
}
