package lineage

import (
	"testing"

	"github.com/trailboss/trailboss/adapter"
)

func TestClaimRoundTripsAndRefusesNonsense(t *testing.T) {
	c := Claim{Program: adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 300, AgentStart: 30},
		Spawn: Spawn{Start: 50, PID: 500, Parent: 400}}
	got, err := ParseClaim(c.String())
	if err != nil || got != c {
		t.Fatalf("ParseClaim(%q) = %+v, %v", c.String(), got, err)
	}
	for _, bad := range []string{"", "tmux=1", "pane=2 tmux=1 agent=3 agent_start=4 spawn_start=5 spawn=6 spawn_parent=7",
		"tmux=-1 pane=2 agent=3 agent_start=4 spawn_start=5 spawn=6 spawn_parent=7"} {
		if _, err := ParseClaim(bad); err == nil {
			t.Errorf("ParseClaim(%q) took it", bad)
		}
	}
}

func TestVouchTakesOnlyWhatProcAgreesWith(t *testing.T) {
	fakeProc(t, claudeTree)
	good := adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 300, AgentStart: 30}
	cases := []struct {
		name string
		p    adapter.Program
		tmux int
		want adapter.Program
	}{
		{"the hook's own program", good, 100, good},
		{"TMUX names another server", good, 101, adapter.Program{}},
		{"no agent named", adapter.Program{TmuxPID: 100, PanePID: 200}, 100, adapter.Program{}},
		{"the server is no tmux", adapter.Program{TmuxPID: 700, PanePID: 200, AgentPID: 300, AgentStart: 30}, 700, adapter.Program{}},
		{"the pane is not the server's child", adapter.Program{TmuxPID: 100, PanePID: 400, AgentPID: 300, AgentStart: 30}, 100, adapter.Program{}},
		{"the agent is outside the pane", adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 700, AgentStart: 70}, 100, adapter.Program{}},
		// Gone since, or its pid another program's now: kept as claimed, so that the checks
		// before typing refuse and say why.
		{"the agent ended", adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 321, AgentStart: 30}, 100,
			adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 321, AgentStart: 30}},
		{"the agent's pid reused", adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 700, AgentStart: 1}, 100,
			adapter.Program{TmuxPID: 100, PanePID: 200, AgentPID: 700, AgentStart: 1}},
	}
	for _, c := range cases {
		if got := Vouch(Claim{Program: c.p}, c.tmux); got != c.want {
			t.Errorf("%s: Vouch = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestForegroundIsThePaneTerminalsGroup(t *testing.T) {
	p, err := parseStat(42, []byte("42 (claude) S 7 42 7 34816 42 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0\n"))
	if err != nil || !p.Foreground() {
		t.Fatalf("a process of the terminal's foreground group: %+v, %v", p, err)
	}
	p, err = parseStat(42, []byte("42 (claude) T 7 42 7 34816 7 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0\n"))
	if err != nil || p.Foreground() {
		t.Fatalf("a stopped process whose shell has the terminal: %+v, %v", p, err)
	}
}
