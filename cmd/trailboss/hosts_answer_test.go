package main

// Answers, skips and dismisses of another machine's items, given on the hub, are carried to
// that machine's daemon (issue 30), end to end with real parts (testscripts/sshtest): the
// remote daemon decides by its own rules, and says so in its own audit log.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// remotePrompt waits for session's item in the hub's queue with a free-text prompt and
// returns it.
func (w *remoteWorld) remotePrompt(t *testing.T, session string) wire.Item {
	t.Helper()
	var it wire.Item
	waitUntil(t, "the remote item with its prompt in the hub's queue", 15*time.Second, func() bool {
		var ok bool
		it, ok = findItem(w.queue(t), session)
		return ok && it.Prompt != nil
	})
	if it.Host != "remote1" || it.Prompt.Kind != wire.KindFreeText || !strings.HasPrefix(it.Prompt.ID, "remote1/p") {
		t.Fatalf("the remote item on the hub: %+v, prompt %+v; want host remote1 and a free-text prompt named remote1/p…", it, it.Prompt)
	}
	return it
}

// userLines returns what the remote agent read as its user's turns, from its transcript.
func (w *remoteWorld) userLines(t *testing.T, session string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.h.Home, session+".jsonl"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		var line struct {
			Type    string `json:"type"`
			Message struct {
				Content any `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &line) == nil && line.Type == "user" {
			if s, ok := line.Message.Content.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// remoteLog returns the remote daemon's audit log, as the remote user's `trailboss log --json`.
func (w *remoteWorld) remoteLog(t *testing.T) []wire.Delivery {
	t.Helper()
	out := w.asUser(t, "trailboss", "log", "--json")
	var ds wire.Deliveries
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatalf("the remote log: %v\n%s", err, out)
	}
	return ds.Deliveries
}

// TestHubRepliesToARemotePrompt: `trailboss reply` on the hub answers the prompt of a
// demo-agent in the remote user's tmux pane, delivery on there: the agent takes the text
// once, the item leaves the hub's queue; the remote audit log says it came through a
// bridge from the hub, by ssh from the hub's address; the hub's says it forwarded it.
func TestHubRepliesToARemotePrompt(t *testing.T) {
	w := newRemoteWorldConf(t, "[delivery]\nenabled = true\n")
	waitUntil(t, "the hub to connect to remote1", 30*time.Second, func() bool { return w.host(t).Connected })
	w.startAgent(t, "remote-r1")
	it := w.remotePrompt(t, "remote-r1")

	out, errOut, code := runTrailboss(t, w.hubEnv, "reply", "--state-dir", w.hub.stateDir, "remote-r1", "8080")
	if code != 0 || !strings.Contains(out, "answered session remote-r1") {
		t.Fatalf("trailboss reply on the hub: %d %q %q, want answered", code, out, errOut)
	}
	waitUntil(t, "the remote agent to take the text", 10*time.Second, func() bool { return len(w.userLines(t, "remote-r1")) > 0 })
	if got := w.userLines(t, "remote-r1"); len(got) != 1 || got[0] != "8080" {
		t.Fatalf("the remote agent read %q, want 8080 once", got)
	}
	waitUntil(t, "the answered item to leave the hub's queue", 10*time.Second, func() bool {
		_, ok := findItem(w.queue(t), "remote-r1")
		return !ok
	})

	remoteID := strings.TrimPrefix(it.Prompt.ID, "remote1/")
	var there *wire.Delivery
	for _, d := range w.remoteLog(t) {
		if d.PromptID == remoteID {
			there = &d
		}
	}
	if there == nil || (there.Result != wire.OutcomeDelivered && there.Result != wire.OutcomeConfirmed) ||
		!strings.Contains(there.Actor, "via bridge from hub ") || !strings.Contains(there.Actor, "ssh 127.0.0.1:") {
		t.Fatalf("the remote audit log of %s: %+v, want delivered via bridge from the hub, ssh from 127.0.0.1", remoteID, there)
	}
	t.Logf("the remote audit: %s by %s", there.Result, there.Actor)
	hubLog, err := w.client.Deliveries(context.Background(), 10)
	if err != nil || len(hubLog) != 1 || hubLog[0].PromptID != it.Prompt.ID || !strings.HasPrefix(hubLog[0].Via, "forwarded to remote1") ||
		hubLog[0].Result != there.Result {
		t.Fatalf("the hub's audit log: %+v %v, want one entry, %s forwarded to remote1, %s", hubLog, err, it.Prompt.ID, there.Result)
	}
}

// TestRemoteHostRefusesAnAnswerWithDeliveryOff: delivery off on the remote host (on at
// the hub makes no difference), the hub's `trailboss reply` is refused there and says so
// with the host named, the remote's words word for word; nothing reaches the agent. A
// skip of the remote item from the hub (as the popup sends it) is done there: the item
// cools on both.
func TestRemoteHostRefusesAnAnswerWithDeliveryOff(t *testing.T) {
	w := newRemoteWorldConf(t, "")
	waitUntil(t, "the hub to connect to remote1", 30*time.Second, func() bool { return w.host(t).Connected })
	w.startAgent(t, "remote-r2")
	it := w.remotePrompt(t, "remote-r2")

	_, errOut, code := runTrailboss(t, w.hubEnv, "reply", "--state-dir", w.hub.stateDir, "remote-r2", "8080")
	want := "not delivered: remote1: " + deliveryOffMessage(filepath.Join(w.h.Home, ".config", "trailboss", "config.toml"))
	if code == 0 || !strings.Contains(errOut, want) {
		t.Fatalf("trailboss reply on the hub, delivery off on remote1: %d %q, want %q", code, errOut, want)
	}
	remoteID := strings.TrimPrefix(it.Prompt.ID, "remote1/")
	refusedThere := false
	for _, d := range w.remoteLog(t) {
		refusedThere = refusedThere || d.PromptID == remoteID && d.Result == "refused" && strings.Contains(d.Actor, "via bridge")
	}
	if !refusedThere {
		t.Fatalf("the remote audit log: %+v, want %s refused, via bridge", w.remoteLog(t), remoteID)
	}
	if got := w.userLines(t, "remote-r2"); len(got) != 0 {
		t.Fatalf("the remote agent read %q with delivery off there", got)
	}
	if still, ok := findItem(w.queue(t), "remote-r2"); !ok || still.Prompt == nil || still.Prompt.ID != it.Prompt.ID {
		t.Fatalf("after the refusal the hub shows %+v (%v), want the same prompt still open", still, ok)
	}

	// Skip, as the popup sends it: the session's id, with no host.
	if err := w.client.SkipSession(context.Background(), "remote-r2"); err != nil {
		t.Fatalf("skip of the remote item from the hub: %v", err)
	}
	waitUntil(t, "the skipped remote item to cool on the hub", 5*time.Second, func() bool {
		it, ok := findItem(w.queue(t), "remote-r2")
		return ok && !it.Ready && it.Host == "remote1"
	})
	if out := w.asUser(t, "trailboss", "ls", "--json"); !strings.Contains(out, `"ready": false`) && !strings.Contains(out, `"ready":false`) {
		t.Fatalf("the remote daemon's own queue after the skip: %s, want the item cooling", out)
	}
}
