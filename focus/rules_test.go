package focus

import (
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

const sock = "/tmp/tmux-0/default"

func item(pane, summary string) wire.Item {
	return wire.Item{Pane: pane, TmuxSocket: sock, Ready: true, Reason: "stopped", Summary: summary}
}

func TestChooseWalksOnFromTheItemInView(t *testing.T) {
	a, b, c := item("%1", "a"), item("%2", "b"), item("%3", "c")
	cooling := item("%4", "cooling")
	cooling.Ready = false
	remote := item("%5", "remote")
	remote.Host = "devbox"
	other := item("%6", "other server")
	other.TmuxSocket = "/tmp/other"
	cases := []struct {
		name    string
		items   []wire.Item
		current string
		want    string // pane, "" for none
	}{
		{"nothing in view: the head", []wire.Item{a, b, c}, "", "%1"},
		{"in view: the one after it", []wire.Item{a, b, c}, "%2", "%3"},
		{"at the end: round to the head", []wire.Item{a, b, c}, "%3", "%1"},
		{"answered (not in the queue): the head", []wire.Item{b, c}, "%1", "%2"},
		{"only the one in view: none", []wire.Item{a}, "%1", ""},
		{"cooling, other hosts' and other servers' items are passed over", []wire.Item{a, cooling, remote, other, b}, "%1", "%2"},
		{"empty", nil, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Choose(c.items, sock, c.current)
			if !ok {
				got.Pane = ""
			}
			if got.Pane != c.want {
				t.Errorf("got %q, want %q", got.Pane, c.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	items := []wire.Item{item("%1", "alpha #[fg=red] wants\na review"), item("%2", "bravo")}
	cases := []struct {
		current, advance, want string
	}{
		{"%1", "waiting", "▶ stopped: alpha # [fg=red] wants a review · 1 more waiting · next: bravo"},
		{"%9", "armed", "✓ answered · 2 more waiting · next: alpha # [fg=red] wants a review · moving on after 2s quiet (type to stay)"},
		{"%2", "cancelled", "▶ stopped: bravo · 1 more waiting · next: alpha # [fg=red] wants a review · staying: you typed (prefix Tab moves on)"},
		{"", "off", "▶ nothing linked · 2 more waiting · next: alpha # [fg=red] wants a review"},
	}
	for _, c := range cases {
		if got := Line(items, sock, c.current, c.advance, 2*time.Second); got != c.want {
			t.Errorf("current %s, %s:\n got %q\nwant %q", c.current, c.advance, got, c.want)
		}
	}
	if got := Line(nil, sock, "%1", "off", 0); got != "✓ answered · nothing else waits" {
		t.Errorf("empty queue: %q", got)
	}
}

func TestSessionNameIsOnePerClient(t *testing.T) {
	for client, want := range map[string]string{
		"/dev/pts/3":  "trailboss-pts-3",
		"/dev/pts/13": "trailboss-pts-13",
		"/dev/ttys00": "trailboss-ttys00",
		"a:b.c":       "trailboss-a-b-c",
	} {
		if got := SessionName(client); got != want {
			t.Errorf("%s: got %s, want %s", client, got, want)
		}
	}
}

// TestAdvance: it moves on only once the item took its answer and the person's last key is
// After behind (counted from the end of that key's second); a key after the answer cancels
// it for that item; a new item starts afresh.
func TestAdvance(t *testing.T) {
	const after = 2 * time.Second
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	type step struct {
		pane     string
		taken    bool
		activity int64
		now      time.Time
		want     bool
		state    string
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"waiting: never", []step{
			{"%1", false, 900, at(0), false, "waiting"},
			{"%1", false, 900, at(time.Hour), false, "waiting"},
		}},
		{"answered by typing: after the quiet time", []step{
			{"%1", true, 1000, at(300 * time.Millisecond), false, "armed"},
			{"%1", true, 1000, at(2900 * time.Millisecond), false, "armed"},
			{"%1", true, 1000, at(3 * time.Second), true, "armed"},
		}},
		{"answered elsewhere long after the last key: at once", []step{
			{"%1", true, 900, at(0), true, "armed"},
		}},
		{"a key after the answer cancels", []step{
			{"%1", true, 1000, at(500 * time.Millisecond), false, "armed"},
			{"%1", true, 1001, at(1200 * time.Millisecond), false, "cancelled"},
			{"%1", true, 1001, at(time.Hour), false, "cancelled"},
		}},
		{"a new item in view starts afresh", []step{
			{"%1", true, 1000, at(500 * time.Millisecond), false, "armed"},
			{"%1", true, 1001, at(1200 * time.Millisecond), false, "cancelled"},
			{"%2", false, 1001, at(1300 * time.Millisecond), false, "waiting"},
			{"%2", true, 1001, at(4 * time.Second), true, "armed"},
		}},
		{"stuck again before the time: not moved, and armed afresh later", []step{
			{"%1", true, 1000, at(500 * time.Millisecond), false, "armed"},
			{"%1", false, 1000, at(1 * time.Second), false, "waiting"},
			{"%1", true, 1005, at(5500 * time.Millisecond), false, "armed"},
			{"%1", true, 1005, at(8 * time.Second), true, "armed"},
		}},
		{"nothing in view: never", []step{
			{"", true, 0, at(time.Hour), false, "waiting"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Advance{After: after}
			for i, s := range c.steps {
				if got := a.Step(s.pane, s.taken, s.activity, s.now); got != s.want {
					t.Errorf("step %d: advance %v, want %v", i, got, s.want)
				}
				if a.State() != s.state {
					t.Errorf("step %d: state %s, want %s", i, a.State(), s.state)
				}
			}
		})
	}
}
