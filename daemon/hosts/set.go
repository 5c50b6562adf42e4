package hosts

import (
	"context"
	"iter"
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

// snapshot returns the host's queue as it is now. The items are shared, not copied: a
// connection never changes a list it has published, it replaces it (take, failAs).
func (c *Conn) snapshot() HostQueue {
	c.mu.Lock()
	defer c.mu.Unlock()
	return HostQueue{Items: c.items, Offset: c.offset}
}

// Queue returns local, this daemon's own queue, with every host's items merged in (Merge).
func (s *Set) Queue(local []wire.Item) []wire.Item {
	return Merge(s.lists(local))
}

// Ordered returns the items of Queue one at a time, in its order: a caller that wants only
// the first few (the jump's head and the one after it) reads only those, and no copy of
// a queue of thousands is made.
func (s *Set) Ordered(local []wire.Item) iter.Seq[wire.Item] {
	return ordered(s.lists(local))
}

// lists returns local and each host's queue as it is now, for Merge.
func (s *Set) lists(local []wire.Item) []HostQueue {
	lists := []HostQueue{{Items: local}}
	for _, c := range s.conns {
		lists = append(lists, c.snapshot())
	}
	return lists
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
	total := 0
	for _, l := range lists {
		total += len(l.Items)
	}
	out := make([]wire.Item, 0, total)
	for it := range ordered(lists) {
		out = append(out, it)
	}
	return out
}

// ordered yields the items of lists in Merge's order, numbered from 1, each taken as it
// is reached: the ready items of every list, then the cooling ones, each part merged by
// the heads' stuck times on this machine's clock (the earlier list on a tie).
func ordered(lists []HostQueue) iter.Seq[wire.Item] {
	return func(yield func(wire.Item) bool) {
		position := 0
		for _, ready := range []bool{true, false} {
			next := make([]int, len(lists)) // each list's next item of this part
			for {
				best, bestSince := -1, time.Time{}
				for i, l := range lists {
					for next[i] < len(l.Items) && l.Items[next[i]].Ready != ready {
						next[i]++
					}
					if next[i] == len(l.Items) {
						continue
					}
					if since := l.Items[next[i]].Since.Add(-l.Offset); best < 0 || since.Before(bestSince) {
						best, bestSince = i, since
					}
				}
				if best < 0 {
					break
				}
				it := onOurClock(lists[best].Items[next[best]], lists[best].Offset)
				next[best]++
				position++
				it.Position = position
				if !yield(it) {
					return
				}
			}
		}
	}
}

// onOurClock returns it, an item of a host whose clock runs offset ahead of this
// machine's, with its times on this machine's clock.
func onOurClock(it wire.Item, offset time.Duration) wire.Item {
	if offset == 0 {
		return it
	}
	it.Since = it.Since.Add(-offset)
	if it.CooldownUntil != nil {
		u := it.CooldownUntil.Add(-offset)
		it.CooldownUntil = &u
	}
	return it
}
