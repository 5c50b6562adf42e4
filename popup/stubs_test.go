package popup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// stubDaemon answers from a fixed queue and records what was skipped and dismissed.
type stubDaemon struct {
	mu          sync.Mutex
	items       []client.Item
	deliveryOff string
	err         error // returned by Queue
	actErr      error // returned by SkipSession and Dismiss
	skipped     []string
	dismissed   []string
	queueN      int

	// Answer: answers records what was answered (channel included); answerRes and
	// answerErr are what it returns; a delivered answer takes the prompt off its item,
	// as the daemon's queue then shows it; answerGate, when set, holds each answer until
	// it is closed.
	answers    []sentAnswer
	answerRes  wire.Delivered
	answerErr  error
	answerGate chan struct{}
}

// sentAnswer is one answer the stub daemon was given.
type sentAnswer struct {
	prompt string
	wire.Answer
}

// Answer records the answer and returns answerRes or answerErr.
func (d *stubDaemon) Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error) {
	d.mu.Lock()
	gate := d.answerGate
	d.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return wire.Delivered{}, ctx.Err()
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answers = append(d.answers, sentAnswer{prompt: id, Answer: a})
	if d.answerErr != nil {
		return wire.Delivered{}, d.answerErr
	}
	if d.answerRes.Delivered {
		for i := range d.items {
			if p := d.items[i].Prompt; p != nil && p.ID == id {
				d.items[i].Prompt = nil
			}
		}
	}
	return d.answerRes, nil
}

func (d *stubDaemon) answered() []sentAnswer {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]sentAnswer(nil), d.answers...)
}

func (d *stubDaemon) QueueView(ctx context.Context) (wire.Queue, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queueN++
	if d.err != nil {
		return wire.Queue{}, d.err
	}
	return wire.Queue{Items: append([]client.Item(nil), d.items...), DeliveryOff: d.deliveryOff}, nil
}

// SkipSession moves the session to the tail, cooling, as the daemon does.
func (d *stubDaemon) SkipSession(ctx context.Context, id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.skipped = append(d.skipped, id)
	if d.actErr != nil {
		return d.actErr
	}
	for i, it := range d.items {
		if it.SessionID == id {
			it.Ready = false
			d.items = append(append(d.items[:i:i], d.items[i+1:]...), it)
			break
		}
	}
	return nil
}

// Dismiss drops the session, as the daemon does.
func (d *stubDaemon) Dismiss(ctx context.Context, id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dismissed = append(d.dismissed, id)
	if d.actErr != nil {
		return d.actErr
	}
	for i, it := range d.items {
		if it.SessionID == id {
			d.items = append(d.items[:i:i], d.items[i+1:]...)
			break
		}
	}
	return nil
}

func (d *stubDaemon) set(items []client.Item, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.items, d.err = items, err
}

func (d *stubDaemon) calls() (queue int, skipped, dismissed []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.queueN, append([]string(nil), d.skipped...), append([]string(nil), d.dismissed...)
}

// stubTmux has fixed panes and screens and counts captures.
type stubTmux struct {
	mu       sync.Mutex
	panes    []tmuxctl.Pane
	screens  map[string]string
	captured []string
}

func (t *stubTmux) ListPanes(ctx context.Context) ([]tmuxctl.Pane, error) {
	return t.panes, nil
}

func (t *stubTmux) CapturePane(ctx context.Context, pane string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.captured = append(t.captured, pane)
	s, ok := t.screens[pane]
	if !ok {
		return "", errors.New("tmux capture-pane: " + tmuxctl.ErrNoPane.Error())
	}
	return s, nil
}

func (t *stubTmux) captures() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.captured...)
}

// clock is the fixed "now" of the tests.
var clock = time.Date(2025, 11, 21, 9, 24, 0, 0, time.UTC)

// ansiStyles draw in the 16 colours, for the tests that look at the styling itself.
func ansiStyles() *Styles {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI)
	s := NewStyles(r)
	return &s
}

func asciiStyles() *Styles {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	s := NewStyles(r)
	return &s
}

// fixture is four items on socket /s, the last one cooling after a skip, in panes of
// sessions "main" and "ops", with screens to preview.
func fixture() (*stubDaemon, *stubTmux) {
	ago := func(d time.Duration) time.Time { return clock.Add(-d) }
	until := clock.Add(42 * time.Second)
	d := &stubDaemon{items: []client.Item{
		{Position: 1, SessionID: "api-1", Pane: "%2", TmuxSocket: "/s", Reason: "permission", Detail: "Bash",
			Summary: "Bash: go test ./... && git push", Cwd: "/home/op/src/api", Since: ago(11 * time.Minute), Ready: true},
		{Position: 2, SessionID: "web-1", Pane: "%3", TmuxSocket: "/s", Reason: "stopped",
			Summary: "The dark-mode toggle works. Should it follow the system setting by default, or stay a manual switch in the header?",
			Cwd:     "/home/op/src/web", Since: ago(4 * time.Minute), Ready: true},
		{Position: 3, SessionID: "infra-1", Pane: "%4", TmuxSocket: "/s", Reason: "permission", Detail: "Bash",
			Summary: "Bash: terraform apply -auto-approve", Cwd: "/home/op/src/infra", Since: ago(38 * time.Second), Ready: true},
		{Position: 4, SessionID: "docs-1", Pane: "%5", TmuxSocket: "/s", Reason: "stopped", Detail: "question",
			Summary: "Which of the two outlines do you prefer?", Cwd: "/home/op/src/docs", Since: ago(25 * time.Minute),
			Ready: false, CooldownUntil: &until},
	}}
	t := &stubTmux{
		panes: []tmuxctl.Pane{
			{ID: "%2", SessionName: "main", WindowIndex: 1, CurrentPath: "/home/op/src/api"},
			{ID: "%3", SessionName: "main", WindowIndex: 2, CurrentPath: "/home/op/src/web"},
			{ID: "%4", SessionName: "ops", WindowIndex: 0, CurrentPath: "/home/op/src/infra"},
			{ID: "%5", SessionName: "main", WindowIndex: 4, CurrentPath: "/home/op/src/docs"},
		},
		screens: map[string]string{
			"%2": "● I'll run the tests and push.\n\n╭──────────────────────────────────────────╮\n│ Bash command                             │\n│   go test ./... && git push              │\n│ Do you want to proceed?                  │\n│ ❯ 1. Yes                                 │\n│   2. No                                  │\n╰──────────────────────────────────────────╯\n\n\n",
			"%3": "● The dark-mode toggle works.\n  Should it follow the system setting by default?\n\n> \n",
			"%4": "│ Bash command\n│   terraform apply -auto-approve\n│ ❯ 1. Yes\n",
			"%5": "● Which of the two outlines do you prefer?\n",
		},
	}
	return d, t
}

// manyItems is a queue of n ready items, each in its own pane.
func manyItems(n int) (*stubDaemon, *stubTmux) {
	d := &stubDaemon{}
	t := &stubTmux{screens: map[string]string{}}
	for i := range n {
		pane := fmt.Sprintf("%%%d", i+10)
		d.items = append(d.items, client.Item{Position: i + 1, SessionID: fmt.Sprintf("s-%d", i), Pane: pane,
			TmuxSocket: "/s", Reason: "stopped", Summary: fmt.Sprintf("item number %d is waiting for you", i+1),
			Cwd: fmt.Sprintf("/src/p%d", i%7), Since: clock.Add(-time.Duration(n-i) * time.Second), Ready: true})
		t.panes = append(t.panes, tmuxctl.Pane{ID: pane, SessionName: "main", WindowIndex: i})
		t.screens[pane] = strings.Repeat("some output line\n", 40)
	}
	return d, t
}

// withPrompts gives the fixture's items pending prompts: api-1 a permission, web-1 a
// free-text question, infra-1 a yes/no, docs-1 (cooling) a menu. Each expires 9 minutes
// after the clock.
func withPrompts(items []client.Item) {
	exp := clock.Add(9*time.Minute + 30*time.Second)
	prompts := map[string]*wire.Prompt{
		"api-1": {ID: "p00000000000000a1", Kind: wire.KindPermission, Question: "Bash: go test ./... && git push",
			Choices: []wire.Choice{{Key: "allow", Label: "Allow"}, {Key: "deny", Label: "Deny"}}, ExpiresAt: exp},
		"web-1": {ID: "p00000000000000b2", Kind: wire.KindFreeText,
			Question: "The dark-mode toggle works. Should it follow the system setting by default, or stay a manual switch in the header?", ExpiresAt: exp},
		"infra-1": {ID: "p00000000000000c3", Kind: wire.KindYesNo, Question: "Apply the plan? (y/n)",
			Choices: []wire.Choice{{Key: "y", Label: "Yes"}, {Key: "n", Label: "No"}}, ExpiresAt: exp},
		"docs-1": {ID: "p00000000000000d4", Kind: wire.KindChoice, Question: "Which of the two outlines do you prefer?",
			Choices: []wire.Choice{{Key: "1", Label: "Outline A: by task"}, {Key: "2", Label: "Outline B: by component"},
				{Key: "3", Label: "Type something else"}}, ExpiresAt: exp},
	}
	for i := range items {
		items[i].Prompt = prompts[items[i].SessionID]
	}
}
