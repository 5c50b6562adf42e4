package client

import (
	"context"
	"net/http"

	"github.com/trailboss/trailboss/daemon/wire"
)

// Channels returns how each delivery channel running beside the daemon is doing (none
// when none is configured).
func (c *Client) Channels(ctx context.Context) ([]wire.ChannelStatus, error) {
	var out wire.Channels
	_, err := c.do(ctx, http.MethodGet, wire.RouteChannels, nil, &out)
	return out.Channels, err
}
