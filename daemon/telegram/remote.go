package telegram

// Other machines' prompts, on a hub (issue 30). A hub's queue holds the items of the hosts
// it reads over ssh (daemon/hosts), their prompt records named "host/p…". The relay shows
// them as it shows its own, saying which host asks, and an answer to one goes to that
// host's daemon (Hosts.Answer), which applies its own delivery rules and its own checks of
// the pane and the agent there: the relay never types, and never decides for another host.

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/hosts"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

// Hosts is what the relay reads of a hub's other machines (the hub's hosts.Set); nil on a
// daemon without [[hosts]].
type Hosts interface {
	// Items returns the other hosts' items: Host set, prompt ids "host/p…", Stale while
	// their host is unreachable (what it said last).
	Items() []wire.Item
	// Unreachable reports whether host, one of the hub's hosts, is not connected now: its
	// items are what it said last, or none yet after a restart.
	Unreachable(host string) bool
	// Answer forwards a to prompt id ("host/p…") on its host, and returns what the host
	// made of it; its errors are those wire.OutcomeOf reads (a host that cannot be asked:
	// a refusal saying since when).
	Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error)
	// Subscribe returns a channel signalled after a host's items or reachability changed.
	Subscribe() <-chan struct{}
}

// remoteNonce stands in callback data for the nonce of another host's prompt: the hub
// never has it (the host's own record keeps it), and the prompt's id is never reused for
// another prompt, so the host refuses an answer made for one it closed.
const remoteNonce = "-"

// remoteHost returns the host of prompt id, "" for one of this daemon's own.
func remoteHost(id string) string {
	host, _, ok := hosts.SplitPrompt(id)
	if !ok {
		return ""
	}
	return host
}

// remotePrompts is what the relay knows of other hosts' prompt records: as their items
// showed them last, for an hour after.
type remotePrompts struct {
	mu       sync.Mutex
	byID     map[string]*remotePrompt
	inFlight map[string]int // prompt ids with an answer of this relay on its way to their host
}

type remotePrompt struct {
	rec      queue.Prompt
	lastSeen time.Time
}

// items returns hs's items as the relay reads queue items, noting their prompt records.
// A record is dated when the relay first saw it: the hub learns of it then.
func (rp *remotePrompts) items(hs Hosts, now time.Time) []queue.Item {
	if hs == nil {
		return nil
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.byID == nil {
		rp.byID = map[string]*remotePrompt{}
	}
	var out []queue.Item
	seen := map[string]bool{}
	for _, it := range hs.Items() {
		qi := queue.Item{Session: queue.Session{ID: it.SessionID, Harness: it.Harness, Pane: it.Pane, Cwd: it.Cwd,
			Stuck: true, Reason: it.Reason, Detail: it.Detail, Summary: it.Summary, Since: it.Since}, Ready: it.Ready}
		switch {
		case it.Prompt != nil:
			p := it.Prompt
			e := rp.byID[p.ID]
			if e == nil {
				e = &remotePrompt{rec: queue.Prompt{ID: p.ID, CreatedAt: now}}
				rp.byID[p.ID] = e
			}
			e.rec = queue.Prompt{ID: p.ID, Nonce: remoteNonce, SessionID: it.SessionID, Harness: it.Harness, Pane: it.Pane,
				Ask:   adapter.Ask{Kind: p.Kind, Question: p.Question, Choices: askChoices(p.Choices), Secret: p.Secret},
				Since: it.Since, CreatedAt: e.rec.CreatedAt, ExpiresAt: p.ExpiresAt, Status: queue.PromptPending,
				Answer: e.rec.Answer, Channel: e.rec.Channel}
			e.lastSeen, seen[p.ID] = now, true
			cp := e.rec
			qi.Prompt = &cp
		case it.PromptClosed != nil:
			c := it.PromptClosed
			if e := rp.byID[c.ID]; e != nil {
				e.rec.Status, e.rec.ClosedAt, e.lastSeen, seen[c.ID] = c.Status, c.ClosedAt, now, true
				if e.rec.Channel == "" {
					e.rec.Answer, e.rec.Channel = c.Answer, c.Channel
				}
				cp := e.rec
				qi.Closed = &cp
			}
		}
		out = append(out, qi)
	}
	for id, e := range rp.byID {
		// Gone from its host's queue while pending: its session moved on, taking this
		// relay's answer if it delivered one (else how is not known here).
		if !seen[id] && e.rec.Status == queue.PromptPending && e.rec.Channel == "telegram" {
			e.rec.Status, e.rec.ClosedAt = queue.PromptAnswered, now
		}
		if now.Sub(e.lastSeen) > textHistory {
			delete(rp.byID, id)
		}
	}
	return out
}

// prompt returns the record of prompt id as the relay saw it last, or wire.ErrUnknownPrompt.
func (rp *remotePrompts) prompt(id string) (queue.Prompt, error) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if e := rp.byID[id]; e != nil {
		return e.rec, nil
	}
	return queue.Prompt{}, wire.ErrUnknownPrompt
}

// answeredHere notes that this relay's answer (choice key, "" for a text) was delivered to
// prompt id: its host records it as an answer through its API, and its message says it
// was Telegram's.
func (rp *remotePrompts) answeredHere(id, key string) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if e := rp.byID[id]; e != nil {
		e.rec.Answer, e.rec.Channel = key, "telegram"
	}
}

// begin notes an answer to prompt id on its way; end, that it came back.
func (rp *remotePrompts) begin(id string) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.inFlight == nil {
		rp.inFlight = map[string]int{}
	}
	rp.inFlight[id]++
}

func (rp *remotePrompts) end(id string) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.inFlight[id]--; rp.inFlight[id] <= 0 {
		delete(rp.inFlight, id)
	}
}

func (rp *remotePrompts) answering(id string) bool {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.inFlight[id] > 0
}

func askChoices(cs []wire.Choice) []adapter.AskChoice {
	out := make([]adapter.AskChoice, len(cs))
	for i, c := range cs {
		out[i] = adapter.AskChoice(c)
	}
	return out
}

// items returns the queue the relay offers: this daemon's own items, then the other hosts'.
func (r *Relay) items() []queue.Item {
	local := r.h.Queue.Items()
	return append(local, r.remote.items(r.h.Hosts, r.h.Now())...)
}

// prompt returns prompt record id, this daemon's or another host's (as last seen).
func (r *Relay) prompt(ctx context.Context, id string) (queue.Prompt, error) {
	if remoteHost(id) != "" {
		return r.remote.prompt(id)
	}
	return r.h.Queue.Prompt(ctx, id)
}

// answer delivers a to prompt id: this daemon's deliverer for its own, the host's daemon
// for another host's.
func (r *Relay) answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error) {
	if remoteHost(id) == "" {
		return r.h.Deliver.Answer(ctx, id, a)
	}
	if r.h.Hosts == nil {
		return wire.Delivered{}, wire.ErrUnknownPrompt
	}
	a.Nonce = "" // the hub's stand-in, never the host's
	// The host may take the answer, and its item leave the queue, before it says so: the
	// message waits for what it says (awaitsHost), then the sync looks again.
	r.remote.begin(id)
	defer func() {
		r.remote.end(id)
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}()
	out, err := r.h.Hosts.Answer(ctx, id, a)
	if err == nil {
		r.remote.answeredHere(id, a.Choice)
	}
	return out, err
}

// hostsChanged returns the channel signalled when the other hosts' items change; nil (never
// ready) without hosts.
func (r *Relay) hostsChanged() <-chan struct{} {
	if r.h.Hosts == nil {
		return nil
	}
	return r.h.Hosts.Subscribe()
}

// awaitsHost reports whether prompt id, no longer among the items, is another host's whose
// daemon the hub cannot read now (or not yet, after a restart), or that an answer of this
// relay is on its way to: its message stays as it is until the host says what became of it.
func (r *Relay) awaitsHost(id string) bool {
	host := remoteHost(id)
	return host != "" && r.h.Hosts != nil && (r.h.Hosts.Unreachable(host) || r.remote.answering(id))
}

// remotePlace is where another host's session runs, as a message names it: the host, the
// base name of its folder, and its pane there. Nothing is looked up on this machine (its
// folders and tmux servers are not that host's).
func remotePlace(host string, s queue.Session) place {
	w := place{Host: host, Tmux: s.Pane, Run: s.Harness == queue.HarnessPTY}
	if s.Cwd != "" {
		w.Project = filepath.Base(s.Cwd)
	}
	return w
}
