package lineage

// A hook that reaches the daemon over its unix socket is read from /proc through the
// socket's peer. One that comes over TCP, or waited in the spool, has no peer to read: its
// emitter says who it is (Claim, read by the emitter with Of and Spawned), and the daemon
// takes that word only after checking it against /proc (Vouch), so that the checks before
// typing an answer have a program to check (DELIVERY.md: an asker that is not known is
// never typed into).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// Claim is what an emitter says of itself: the program that ran it, and its spawn.
type Claim struct {
	Program adapter.Program
	Spawn   Spawn
}

// Self returns the claim of this process, a hook run inside the tmux server of tmux (its
// TMUX value).
func Self(pid int, tmux string) Claim {
	spawn, _ := Spawned(pid)
	return Claim{Program: Of(pid, TmuxPID(tmux)), Spawn: spawn}
}

// claimKeys are a claim's fields in the order String writes them.
var claimKeys = []string{"tmux", "pane", "agent", "agent_start", "spawn_start", "spawn", "spawn_parent"}

// String writes c as the emitter sends it: "tmux=N pane=N agent=N agent_start=N
// spawn_start=N spawn=N spawn_parent=N".
func (c Claim) String() string {
	p, s := c.Program, c.Spawn
	vals := []uint64{uint64(p.TmuxPID), uint64(p.PanePID), uint64(p.AgentPID), p.AgentStart, s.Start, uint64(s.PID), uint64(s.Parent)}
	var b strings.Builder
	for i, k := range claimKeys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + strconv.FormatUint(vals[i], 10))
	}
	return b.String()
}

// ParseClaim reads a claim String wrote; every field must be there, once, in order.
func ParseClaim(v string) (Claim, error) {
	f := strings.Fields(v)
	if len(f) != len(claimKeys) {
		return Claim{}, fmt.Errorf("a program claim has %d fields, not %d", len(f), len(claimKeys))
	}
	var n [7]uint64
	for i, k := range claimKeys {
		val, ok := strings.CutPrefix(f[i], k+"=")
		x, err := strconv.ParseUint(val, 10, 63)
		if !ok || err != nil || (i != 3 && i != 4 && x > 1<<31) {
			return Claim{}, fmt.Errorf("a program claim's field %d is not %s=NUMBER", i+1, k)
		}
		n[i] = x
	}
	return Claim{
		Program: adapter.Program{TmuxPID: int(n[0]), PanePID: int(n[1]), AgentPID: int(n[2]), AgentStart: n[3]},
		Spawn:   Spawn{Start: n[4], PID: int(n[5]), Parent: int(n[6])},
	}, nil
}

// Vouch returns the program c says ran a hook of tmux server tmuxPID (the hook's TMUX),
// when /proc agrees with it, or the zero Program (who asked is not known). Each claimed
// process that still runs must be this user's; the server must be a tmux server, and the
// one TMUX names; the pane's process that server's child; the agent inside the pane. A
// claimed process that is gone is kept as claimed: the checks before typing then refuse
// (AgentGone, a server or pane that is another one now) and say why. Only the fields of a
// whole claim are taken: one that names no agent is no better than none.
func Vouch(c Claim, tmuxPID int) adapter.Program {
	p := c.Program
	if !p.Known() || p.TmuxPID != tmuxPID {
		return adapter.Program{}
	}
	server, serverErr := Read(p.TmuxPID)
	if serverErr == nil && (!IsTmux(server) || !Ours(p.TmuxPID)) {
		return adapter.Program{}
	}
	if pane, err := Read(p.PanePID); err == nil && (pane.PPID != p.TmuxPID || !Ours(p.PanePID)) {
		return adapter.Program{}
	}
	// An agent that runs (started when it says) must be this user's and inside the pane; a
	// pid that is another program now is the agent gone, as AgentGone will say.
	if agent, err := Read(p.AgentPID); err == nil && agent.Start == p.AgentStart &&
		(!Ours(p.AgentPID) || !Within(p.AgentPID, p.PanePID)) {
		return adapter.Program{}
	}
	return p
}

// VouchSpawn returns c's spawn when that process runs now, this user's, started when c
// says (a hook posting over TCP waits for the answer), or the zero Spawn.
func VouchSpawn(c Claim) Spawn {
	s := c.Spawn
	if !s.Known() {
		return Spawn{}
	}
	if p, err := Read(s.PID); err != nil || p.Start != s.Start || p.PPID != s.Parent || !Ours(s.PID) {
		return Spawn{}
	}
	return s
}
