package queue

import (
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// Who asked is each event's own word: a hook whose sender could not be verified does not
// inherit the identity an earlier hook proved, while a source that never says who sent it
// (the screen of a bound pane) keeps it.
func TestAnUnverifiedAskerInheritsNoIdentity(t *testing.T) {
	at := time.Unix(1000, 0)
	prog := adapter.Program{TmuxPID: 1, PanePID: 2, AgentPID: 3, AgentStart: 4}
	s, _ := Apply(nil, adapter.Event{SessionID: "s", Harness: "claude", Kind: adapter.KindStuck, Reason: adapter.ReasonStopped,
		Pane: "%1", TmuxSocket: "/t", Program: prog, At: at})
	screen, _ := Apply(&s, adapter.Event{SessionID: "s", Harness: "claude", Kind: adapter.KindStuck, Reason: adapter.ReasonPermission,
		Pane: "%1", TmuxSocket: "/t", At: at.Add(time.Second)})
	if screen.Program != prog {
		t.Fatalf("an event of a source that never says who sent it erased the identity: %+v", screen.Program)
	}
	for _, kind := range []adapter.Kind{adapter.KindStuck, adapter.KindTouch} {
		unknown, _ := Apply(&s, adapter.Event{SessionID: "s", Harness: "claude", Kind: kind, Reason: adapter.ReasonPermission,
			Pane: "%1", TmuxSocket: "/t", AskerUnknown: true, At: at.Add(time.Second)})
		if unknown.Program != (adapter.Program{}) {
			t.Errorf("a %s whose sender is not known inherited %+v", kind, unknown.Program)
		}
	}
}
