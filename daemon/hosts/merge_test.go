package hosts

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// TestMergeOrdersByStuckTimeOnThisClock: FIFO across this host and two others, one of whose
// clocks runs 10 minutes ahead: its items go by their stuck time less the offset, each
// host's own order is kept (a skipped item stays behind), cooling items go last, and
// positions are renumbered.
func TestMergeOrdersByStuckTimeOnThisClock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	item := func(id, host string, since time.Time, ready bool) wire.Item {
		return wire.Item{SessionID: id, Host: host, Since: since, Ready: ready}
	}
	skew := 10 * time.Minute
	cooled := at(20).Add(skew)
	local := []wire.Item{item("L1", "", at(1), true), item("L4", "", at(4), true), item("Lc", "", at(0), false)}
	// The skewed host says 12:12 for what happened at 12:02 here; its second item was
	// skipped earlier, so its daemon put it after the first though it is older.
	skewed := []wire.Item{item("S2", "skewed", at(2).Add(skew), true), item("S0", "skewed", at(0).Add(skew), true),
		{SessionID: "Sc", Host: "skewed", Since: at(3).Add(skew), CooldownUntil: &cooled}}
	plain := []wire.Item{item("P3", "plain", at(3), true)}
	got := Merge([]HostQueue{{Items: local}, {Items: skewed, Offset: skew}, {Items: plain}})
	var ids []string
	for i, it := range got {
		ids = append(ids, it.SessionID)
		if it.Position != i+1 {
			t.Errorf("%s at position %d, want %d", it.SessionID, it.Position, i+1)
		}
	}
	if want := []string{"L1", "S2", "S0", "P3", "L4", "Lc", "Sc"}; !slices.Equal(ids, want) {
		t.Fatalf("merged order %v, want %v", ids, want)
	}
	if s2 := got[1]; !s2.Since.Equal(at(2)) {
		t.Fatalf("the skewed host's item shows since %v, want %v (on this machine's clock)", s2.Since, at(2))
	}
	if sc := got[6]; !sc.CooldownUntil.Equal(at(20)) {
		t.Fatalf("the skewed host's cooldown ends %v, want %v", sc.CooldownUntil, at(20))
	}
}

// TestRemoteCommandIsOneWordForTheRemoteShell: the remote trailboss is quoted for the shell
// ssh hands the command to; a leading ~/ is left for it to expand.
func TestRemoteCommandIsOneWordForTheRemoteShell(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "'trailboss'",
		"/opt/tb/bin/trailboss": "'/opt/tb/bin/trailboss'",
		"~/bin/trail boss":      `"$HOME"/'bin/trail boss'`,
		"it's; rm -rf ~":        `'it'\''s; rm -rf ~'`,
	} {
		if got := remoteCommand(in); got != want {
			t.Errorf("remoteCommand(%q) = %s, want %s", in, got, want)
		}
	}
	args := sshArgs(Config{SSH: "devbox", Options: []string{"-F", "/x/ssh_config", "-o", "ControlPath=/elsewhere"}}, "/s/ssh-devbox")
	// Ours first (ssh takes the first value), then the operator's, then the destination
	// after --, then the command.
	if i, j := slices.Index(args, "ControlPath=/s/ssh-devbox"), slices.Index(args, "ControlPath=/elsewhere"); i < 0 || j < i {
		t.Fatalf("ssh args %q: the hub's ControlPath must come before the operator's options", args)
	}
	if n := len(args); args[n-3] != "--" || args[n-2] != "devbox" || args[n-1] != "'trailboss' bridge" {
		t.Fatalf("ssh args end %q, want -- devbox 'trailboss' bridge", args[n-3:])
	}
	for _, o := range []string{"ClearAllForwardings=yes", "BatchMode=yes", "ForwardAgent=no"} {
		if !slices.Contains(args, o) {
			t.Fatalf("ssh args %q lack %s", args, o)
		}
	}
}

// TestLastLineIsSSHsLastWords: the reason kept is the last line ssh wrote, whole.
func TestLastLineIsSSHsLastWords(t *testing.T) {
	var l lastLine
	_, _ = l.Write([]byte("Warning: something\nssh: connect to host 127.0.0.1 port 22: Conn"))
	_, _ = l.Write([]byte("ection refused\r\n\n"))
	if got := l.String(); got != "ssh: connect to host 127.0.0.1 port 22: Connection refused" {
		t.Fatalf("last line %q", got)
	}
}

// TestOrderedIsMergeReadLazily: Ordered gives Merge's items in Merge's order, numbered the
// same, and reads no further than its caller: the jump's head of 50 hosts' queues is
// found without walking all of them.
func TestOrderedIsMergeReadLazily(t *testing.T) {
	lists := fiftyHosts(200)
	want := Merge(lists)
	var got []wire.Item
	for it := range ordered(lists) {
		got = append(got, it)
	}
	if len(got) != len(want) {
		t.Fatalf("Ordered gave %d items, Merge %d", len(got), len(want))
	}
	for i := range want {
		if got[i].SessionID != want[i].SessionID || got[i].Position != want[i].Position || !got[i].Since.Equal(want[i].Since) {
			t.Fatalf("item %d: Ordered %s #%d, Merge %s #%d", i, got[i].SessionID, got[i].Position, want[i].SessionID, want[i].Position)
		}
	}
	read := 0
	for range ordered(lists) {
		if read++; read == 2 {
			break
		}
	}
	if read != 2 {
		t.Fatalf("read %d items before stopping, want 2", read)
	}
}

// TestASnapshotKeepsItsItemsWhenTheHostFails: a snapshot shares the connection's list
// rather than copying it, so a host marked unreachable afterwards must replace its list,
// not mark the shared one stale under a reader.
func TestASnapshotKeepsItsItemsWhenTheHostFails(t *testing.T) {
	c := NewConn(Config{Name: "devbox"}, t.TempDir(), "dev", slog.New(slog.NewTextHandler(io.Discard, nil)))
	c.apply(wire.QueueUpdate{ServerTime: time.Now(), Items: []wire.Item{{SessionID: "s1", Ready: true}}}, time.Now(), time.Millisecond, true)
	before := c.snapshot().Items
	c.fail("ssh: connection refused")
	if before[0].Stale {
		t.Fatal("the host's failure changed a snapshot taken before it")
	}
	if now := c.snapshot().Items; len(now) != 1 || !now[0].Stale {
		t.Fatalf("after the failure the host's items are %+v, want its one item, stale", now)
	}
}

// fiftyHosts returns this host's queue and 50 others of n items each, their stuck times
// interleaved, one host's clock ahead, every tenth item cooling.
func fiftyHosts(n int) []HostQueue {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	lists := make([]HostQueue, 51)
	for h := range lists {
		if h == 7 {
			lists[h].Offset = 30 * time.Second
		}
		for i := range n {
			lists[h].Items = append(lists[h].Items, wire.Item{SessionID: fmt.Sprintf("h%d-s%d", h, i), Pane: "%1",
				Ready: i%10 != 9, Since: t0.Add(time.Duration(i*51+h)*time.Millisecond + lists[h].Offset),
				Summary: "waits for your answer in a pane of its own", Cwd: "/home/user/project"})
		}
	}
	return lists
}

// BenchmarkHeadOf50Hosts: what the jump key's options cost a hub on every change: the head
// and the one after it of 50 hosts × 200 items (Ordered, read two), beside the whole
// merged queue (Merge) that GET /v1/queue answers.
func BenchmarkHeadOf50Hosts(b *testing.B) {
	lists := fiftyHosts(200)
	b.Run("ordered-first-two", func(b *testing.B) {
		for b.Loop() {
			read := 0
			for range ordered(lists) {
				if read++; read == 2 {
					break
				}
			}
		}
	})
	b.Run("merge-all", func(b *testing.B) {
		for b.Loop() {
			_ = Merge(lists)
		}
	})
}
