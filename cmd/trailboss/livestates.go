package main

import (
	"log/slog"
	"os"
	"time"

	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/watch"
	"github.com/trailboss/trailboss/tmuxctl"
)

// liveStateWatchers returns a LiveStates for each harness that keeps live state files
// (daemon.LiveStateSources): its own configuration's folder (from the daemon's
// environment) and those of its sessions' transcripts. They sweep every sweep, and watch
// the folders too when watchDirs.
func liveStateWatchers(engine *daemon.Engine, tmux func(socket string) *tmuxctl.Server,
	sweep time.Duration, watchDirs bool, log *slog.Logger) []*watch.LiveStates {
	var out []*watch.LiveStates
	readers := daemon.TranscriptReaders()
	for name, live := range daemon.LiveStateSources() {
		out = append(out, &watch.LiveStates{Engine: engine, Sweep: sweep, Watch: watchDirs,
			Harness: name, Source: live, Transcripts: readers[name], Own: live.OwnDir(os.Getenv),
			Tmux: tmux, Servers: watch.KnownServers(engine, os.Getenv),
			Log: log.With("component", "livestate")})
	}
	return out
}
