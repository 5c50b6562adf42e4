package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/deliver"
	"github.com/trailboss/trailboss/daemon/hosts"
	"github.com/trailboss/trailboss/daemon/store"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// Channel is a delivery channel that runs beside the daemon, such as the Telegram relay
// (daemon/telegram): it shows pending prompt records somewhere other than their panes and
// brings the operator's answers back through Host.Deliver, the only way to deliver one.
// Run returns when ctx ends; a failure of the channel's own service is its to log and
// retry, never a reason to stop the daemon.
type Channel interface {
	Name() string
	Run(ctx context.Context, h ChannelHost) error
	// Status says how the channel is doing, for GET /v1/channels and doctor.
	Status() wire.ChannelStatus
}

// ChannelHost is what the daemon gives a channel.
type ChannelHost struct {
	Engine  *daemon.Engine
	Deliver *deliver.Deliverer
	Store   *store.Store
	Tmux    func(socket string) *tmuxctl.Server
	Log     *slog.Logger
	Now     func() time.Time
	// Hosts, on a hub, is the other machines' queues: a channel offers their prompts too,
	// and answers them through Hosts.Answer. Nil on a daemon without [[hosts]].
	Hosts *hosts.Set
}

// channelStatuses returns channels as the core asks how each is doing (GET /v1/channels).
func channelStatuses(channels []Channel) []daemon.ChannelStatus {
	out := make([]daemon.ChannelStatus, 0, len(channels))
	for _, ch := range channels {
		out = append(out, ch)
	}
	return out
}
