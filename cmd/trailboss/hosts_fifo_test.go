package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wallclock"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// TestFIFOAcrossTwoHostsAndTheHub: two remote machines over real ssh, remote1's clock 30 s
// ahead (wallclock's test skew, from its hooks to its daemon's stream), remote2's right, and
// a pane of the hub's own: stuck in the order remote1, hub, remote2, a second apart, they are
// in that order in the hub's GET /v1/queue and trailboss ls, remote1's time shown on the
// hub's clock; by the times the hosts themselves give, remote1's would go last.
func TestFIFOAcrossTwoHostsAndTheHub(t *testing.T) {
	const skew = 30 * time.Second
	r1 := startRemote(t, remoteOptions{env: []string{wallclock.EnvSkew + "=" + skew.String()}})
	r2 := startRemote(t, remoteOptions{alias: "remote2"})
	r1.startHub(t, hostEntry("remote1", r1.h, "")+hostEntry("remote2", r2.h, ""))
	r2.hub, r2.hubEnv, r2.client = r1.hub, r1.hubEnv, r1.client
	w := r1
	e := tmuxtest.New(t)
	waitUntil(t, "the hub to connect to both", 30*time.Second, func() bool {
		hs, err := w.client.Hosts(t.Context())
		return err == nil && len(hs) == 2 && hs[0].Connected && hs[1].Connected
	})
	hs, _ := w.client.Hosts(t.Context())
	if off := time.Duration(hs[0].ClockOffsetMillis * float64(time.Millisecond)); off < skew-time.Second || off > skew+time.Second {
		t.Fatalf("remote1's clock offset on the hub: %v, want %v within 1s", off, skew)
	}

	// Each started a second after the one before was in the hub's queue; names short enough
	// for trailboss ls to show whole.
	var seen time.Time
	stuck := func(session string, start func()) {
		t.Helper()
		if !seen.IsZero() {
			waitUntil(t, "a second since the last one was queued", 5*time.Second, func() bool { return time.Since(seen) > time.Second })
		}
		start()
		waitUntil(t, session+" in the hub's queue", 15*time.Second, func() bool {
			_, ok := findItem(w.queue(t), session)
			seen = time.Now()
			return ok
		})
	}
	stuck("r1-a", func() { r1.startAgent(t, "r1-a") })
	stuck("hub-b", func() { hubAgent(t, e, w.hub.stateDir, "hub-b") })
	stuck("r2-c", func() { r2.startAgent(t, "r2-c") })

	want := []string{"r1-a", "hub-b", "r2-c"}
	items := w.queue(t)
	if got := sessions(items); !slices.Equal(got, want) {
		t.Fatalf("the hub's queue: %v, want %v (the order they got stuck in)", got, want)
	}
	for i := 1; i < len(items); i++ {
		if !items[i-1].Since.Before(items[i].Since) {
			t.Fatalf("the hub's queue shows %s since %v, before %s since %v", items[i-1].SessionID, items[i-1].Since,
				items[i].SessionID, items[i].Since)
		}
	}
	out, errOut, code := runTrailboss(t, w.hubEnv, "ls", "--state-dir", w.hub.stateDir)
	if code != 0 {
		t.Fatalf("trailboss ls on the hub: %d %q", code, errOut)
	}
	var at []int
	for _, s := range want {
		at = append(at, strings.Index(out, s))
	}
	if at[0] < 0 || at[0] > at[1] || at[1] > at[2] {
		t.Fatalf("trailboss ls on the hub lists them in another order:\n%s", out)
	}

	// By remote1's own clock its item got stuck after the other two: without the offset
	// taken off, it would go last.
	var own struct {
		Items []wire.Item `json:"items"`
	}
	if err := json.Unmarshal([]byte(r1.asUser(t, "trailboss", "ls", "--json")), &own); err != nil || len(own.Items) != 1 {
		t.Fatalf("remote1's own queue: %+v %v", own, err)
	}
	if raw := own.Items[0].Since; !raw.After(items[2].Since) {
		t.Fatalf("remote1 says its item got stuck at %v, not after remote2's %v: the skew did not reach its queue", raw, items[2].Since)
	}
}
