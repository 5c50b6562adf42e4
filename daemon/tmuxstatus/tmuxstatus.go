// Package tmuxstatus keeps the tmux user options that a status line shows
// (@trailboss_status, @trailboss_stuck, @trailboss_ready), and those the jump key reads
// (@trailboss_head, @trailboss_next), current on every tmux server the daemon knows.
package tmuxstatus

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/tmuxctl"
)

// tmux user options the daemon keeps current on every tmux server it knows. A status line
// that shows #{@trailboss_status} costs no process per redraw, unlike #(trailboss status).
const (
	OptionStuck  = "@trailboss_stuck"
	OptionReady  = "@trailboss_ready"
	OptionStatus = "@trailboss_status"
)

// The jump key's options, set per tmux server: the pane the key lands on from any other
// pane (OptionHead), and from the head's own pane (OptionNext); each a pane id of that
// server (% and digits) or "" when the key must ask the daemon (trailboss-hot jump-next):
// nothing ready there, the head on another host or server. With them, a local jump is one
// tmux command run by the tmux server itself: no process starts. Cleared when the daemon
// stops, so that a stopped daemon's queue sends nobody anywhere.
const (
	OptionHead = "@trailboss_head"
	OptionNext = "@trailboss_next"
)

// Engine is the engine as the Publisher sees it.
type Engine interface {
	// Subscribe returns a channel that receives after committed changes.
	Subscribe() <-chan struct{}
	// Snapshot returns a copy of every live session.
	Snapshot() []queue.Session
	// Now is the engine's clock, against which cooldowns end.
	Now() time.Time
}

// Hosts is, on a hub, the other hosts' items as the status line counts them (package
// hosts); nil elsewhere.
type Hosts interface {
	// Counts returns how many of the hosts' items are stuck and cooling, and the hosts not
	// reachable now.
	Counts() (stuck, cooling int, unreachable []string)
	// Changed is signalled after those change.
	Changed() <-chan struct{}
}

// Publisher sets the status options on each tmux server after every change, and when a
// skipped item's cooldown ends (the ready count changes with no event).
type Publisher struct {
	Engine Engine
	Tmux   func(socket string) *tmuxctl.Server
	Log    *slog.Logger
	// Hosts, on a hub, adds every other host's items to the counts and names the hosts
	// it cannot reach: "⚠ 3 stuck · devbox ✗".
	Hosts Hosts
	// OnLine, when set, is given the status line at start and whenever it changes: the
	// daemon keeps it in the state directory's status file for shell prompts.
	OnLine func(line string)
	// Jumps, when set, returns where the jump key lands a client of the tmux server at
	// socket (httpapi.Server.JumpPanes): OptionHead and OptionNext there.
	Jumps func(socket string) (head, next string)

	servers  map[string]string // socket → the value last published there ("" = never)
	lastLine *string           // the line OnLine was last given; nil before the first
}

// Run publishes until ctx ends.
func (p *Publisher) Run(ctx context.Context) error {
	p.servers = make(map[string]string)
	changed := p.Engine.Subscribe()
	var hostsChanged <-chan struct{} // nil, never ready, without hosts
	if p.Hosts != nil {
		hostsChanged = p.Hosts.Changed()
	}
	cooled := time.NewTimer(time.Hour)
	defer cooled.Stop()
	for {
		next := p.publish(ctx)
		cooled.Reset(next)
		select {
		case <-ctx.Done():
			p.clearJumps(context.WithoutCancel(ctx))
			return nil
		case <-changed:
		case <-hostsChanged:
		case <-cooled.C:
		}
	}
}

// publish sets the options where they changed and returns how long until the next
// cooldown ends (an hour when none is pending).
func (p *Publisher) publish(ctx context.Context) time.Duration {
	now := p.Engine.Now()
	wait := time.Hour
	var c queue.Counts
	for _, s := range p.Engine.Snapshot() {
		if s.TmuxSocket != "" {
			if _, known := p.servers[s.TmuxSocket]; !known {
				p.servers[s.TmuxSocket] = ""
			}
		}
		c.Add(&s, now)
		if until := s.CooldownUntil.Sub(now); s.Stuck && until > 0 {
			wait = min(wait, until+time.Millisecond)
		}
	}
	stuck, cooling, ready := c.Stuck, c.Cooling, c.Ready
	var unreachable []string
	if p.Hosts != nil {
		rs, rc, down := p.Hosts.Counts()
		stuck, cooling, ready, unreachable = stuck+rs, cooling+rc, ready+rs-rc, down
	}
	opts := map[string]string{
		OptionStuck:  strconv.Itoa(stuck),
		OptionReady:  strconv.Itoa(ready),
		OptionStatus: queue.StatusLine(stuck, cooling, unreachable),
	}
	if line := opts[OptionStatus]; p.OnLine != nil && (p.lastLine == nil || *p.lastLine != line) {
		p.OnLine(line)
		p.lastLine = &line
	}
	for socket, last := range p.servers {
		if p.Jumps != nil {
			head, next := p.Jumps(socket)
			opts[OptionHead], opts[OptionNext] = paneOrNone(head), paneOrNone(next)
		}
		key := opts[OptionStuck] + "/" + opts[OptionReady] + "/" + opts[OptionStatus] + "/" + opts[OptionHead] + "/" + opts[OptionNext]
		if last == key {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := p.Tmux(socket).SetUserOptions(cctx, opts)
		cancel()
		switch {
		case errors.Is(err, tmuxctl.ErrNoServer):
			delete(p.servers, socket) // it comes back with its next session's event
		case err != nil:
			p.Log.Warn("publish status options", "socket", socket, "err", err)
		default:
			p.servers[socket] = key
		}
	}
	return wait
}

// paneOrNone returns pane when it is a pane id, else "": the key binding runs the option's
// value as a tmux target, so nothing else is ever written there.
func paneOrNone(pane string) string {
	if !adapter.ValidPane(pane) {
		return ""
	}
	return pane
}

// clearJumps empties the jump key's options on every server they were set on, so that the
// key asks the daemon (and says it is not running) rather than trusting a queue no one
// keeps current.
func (p *Publisher) clearJumps(ctx context.Context) {
	if p.Jumps == nil {
		return
	}
	for socket, last := range p.servers {
		if last == "" {
			continue // nothing published there
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := p.Tmux(socket).SetUserOptions(cctx, map[string]string{OptionHead: "", OptionNext: ""})
		cancel()
		if err != nil && !errors.Is(err, tmuxctl.ErrNoServer) {
			p.Log.Warn("clear the jump key's options", "socket", socket, "err", err)
		}
	}
}
