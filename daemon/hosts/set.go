package hosts

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// Set is a hub's hosts: one Conn each, in config order.
type Set struct {
	// Audit, when set (before Run), records in the hub's audit log each answer that Answer
	// forwards.
	Audit func(context.Context, wire.Delivery) error

	conns   []*Conn
	changed chan struct{} // signalled (coalesced) when a host's items or state change
	log     *slog.Logger

	mu          sync.Mutex
	subscribers []chan struct{} // Subscribe's, signalled like changed
}

// New returns the managers of hosts, their ControlMasters in stateDir, for a hub that runs
// Trail Boss version.
func New(hosts []Config, stateDir, version string, log *slog.Logger) *Set {
	s := &Set{changed: make(chan struct{}, 1), log: log}
	for _, h := range hosts {
		c := NewConn(h, stateDir, version, log)
		c.notify = s.signal
		s.conns = append(s.conns, c)
	}
	return s
}

// Run keeps every host connected until ctx ends.
func (s *Set) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, c := range s.conns {
		wg.Add(1)
		go func() { defer wg.Done(); _ = c.Run(ctx) }()
	}
	wg.Wait()
	return nil
}

// Changed is signalled, coalesced, after a host's items or its reachability changed: the
// status line's publisher (daemon/tmuxstatus) reads Counts again then.
func (s *Set) Changed() <-chan struct{} { return s.changed }

func (s *Set) signal() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range s.subscribers {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Await waits up to timeout, or until ctx ends, until cond holds of session's item in host's
// queue (queued is false when it is not there), as this hub last heard it. It says whether
// cond held.
func (s *Set) Await(ctx context.Context, host string, timeout time.Duration, cond func(it wire.Item, queued bool) bool, session string) bool {
	var c *Conn
	for _, cc := range s.conns {
		if cc.cfg.Name == host {
			c = cc
		}
	}
	if c == nil {
		return false
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		c.mu.Lock()
		it, queued := wire.Item{}, false
		for _, x := range c.items {
			if x.SessionID == session {
				it, queued = x, true
				break
			}
		}
		changed := c.changed
		c.mu.Unlock()
		if cond(it, queued) {
			return true
		}
		select {
		case <-changed:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// HostQueue is one host's items and how far its clock is ahead of this machine's.
type HostQueue struct {
	Items  []wire.Item
	Offset time.Duration
}

func (c *Conn) snapshot() HostQueue {
	c.mu.Lock()
	defer c.mu.Unlock()
	return HostQueue{Items: append([]wire.Item(nil), c.items...), Offset: c.offset}
}

// Queue returns local with every host's items merged in (Merge).
func (s *Set) Queue(local []wire.Item) []wire.Item {
	lists := []HostQueue{{Items: local}}
	for _, c := range s.conns {
		lists = append(lists, c.snapshot())
	}
	return Merge(lists)
}

// Counts returns how many of the hosts' items are stuck and cooling, and the hosts not
// connected now.
func (s *Set) Counts() (stuck, cooling int, unreachable []string) {
	for _, c := range s.conns {
		c.mu.Lock()
		stuck, cooling = stuck+len(c.items), cooling+c.cooling
		if !c.connected {
			unreachable = append(unreachable, c.cfg.Name)
		}
		c.mu.Unlock()
	}
	return stuck, cooling, unreachable
}

// States returns each host's state, in config order.
func (s *Set) States() []wire.Host {
	out := make([]wire.Host, 0, len(s.conns))
	for _, c := range s.conns {
		c.mu.Lock()
		h := wire.Host{Name: c.cfg.Name, SSH: c.cfg.SSH, Connected: c.connected, Since: c.since, Items: len(c.items),
			Error: c.lastErr, LeftOut: c.leftOut}
		if c.connected {
			h.RTTMillis = float64(c.rtt.Microseconds()) / 1000
			h.ClockOffsetMillis = float64(c.offset.Microseconds()) / 1000
		}
		c.mu.Unlock()
		out = append(out, h)
	}
	return out
}

// Merge returns the items of lists (this host's own first, then each other host's, with
// its clock offset) as one queue: the ready items, then the cooling ones, each part in
// stuck-time order on this machine's clock. Each list keeps its own order (a skipped
// item stays behind the ones its daemon put before it); between lists the earlier stuck
// time goes first, the earlier list on a tie. Other hosts' times are shown on this
// machine's clock, and positions are renumbered.
func Merge(lists []HostQueue) []wire.Item {
	var ready, cooling [][]wire.Item
	total := 0
	for _, l := range lists {
		var r, c []wire.Item
		for _, it := range l.Items {
			if l.Offset != 0 {
				it.Since = it.Since.Add(-l.Offset)
				if it.CooldownUntil != nil {
					u := it.CooldownUntil.Add(-l.Offset)
					it.CooldownUntil = &u
				}
			}
			if it.Ready {
				r = append(r, it)
			} else {
				c = append(c, it)
			}
		}
		ready, cooling = append(ready, r), append(cooling, c)
		total += len(l.Items)
	}
	out := make([]wire.Item, 0, total)
	out = mergeByTime(out, ready)
	out = mergeByTime(out, cooling)
	for i := range out {
		out[i].Position = i + 1
	}
	return out
}

// mergeByTime appends to out the heads of lists, the earliest Since first, until all are
// taken.
func mergeByTime(out []wire.Item, lists [][]wire.Item) []wire.Item {
	for {
		best := -1
		for i, l := range lists {
			if len(l) > 0 && (best < 0 || l[0].Since.Before(lists[best][0].Since)) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, lists[best][0])
		lists[best] = lists[best][1:]
	}
}
