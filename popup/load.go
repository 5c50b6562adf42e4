package popup

import (
	"context"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/client"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// Daemon is what the popup asks of the daemon (a *client.Client in the CLI).
type Daemon interface {
	// QueueView returns the queue, and whether delivery is off.
	QueueView(ctx context.Context) (wire.Queue, error)
	SkipSession(ctx context.Context, id string) error
	Dismiss(ctx context.Context, id string) error
	// Answer delivers the operator's answer to prompt id (see client.Client.Answer for
	// its errors).
	Answer(ctx context.Context, id string, a wire.Answer) (wire.Delivered, error)
}

// Tmux is what the popup asks of the tmux server it runs on (a *tmuxctl.Server in the CLI).
type Tmux interface {
	ListPanes(ctx context.Context) ([]tmuxctl.Pane, error)
	CapturePane(ctx context.Context, pane string) (string, error)
}

// Snapshot is one fetch of the queue with where each item is: the message that a load or
// a refresh delivers to the model.
type Snapshot struct {
	Items    []client.Item
	Err      error                   // the queue could not be read: nothing else is set
	Panes    map[string]tmuxctl.Pane // this server's panes by id; nil when list-panes failed
	PanesErr error
	Branches map[string]string // git branch by folder, for the folders of Items
	// DeliveryOff says why nothing can be answered from the popup, when delivery is off.
	DeliveryOff string
}

// Load fetches the queue and, at the same time, the server's panes (one list-panes, which
// names their sessions and windows too), and reads the git branch of each distinct folder.
// It returns a Snapshot with Err set when the queue could not be read; a failing
// list-panes only leaves the locations out.
func Load(ctx context.Context, d Daemon, t Tmux) Snapshot {
	type panesResult struct {
		panes []tmuxctl.Pane
		err   error
	}
	ch := make(chan panesResult, 1)
	go func() {
		p, err := t.ListPanes(ctx)
		ch <- panesResult{p, err}
	}()
	q, err := d.QueueView(ctx)
	items := q.Items
	pr := <-ch
	if err != nil {
		return Snapshot{Err: err}
	}
	s := Snapshot{Items: items, PanesErr: pr.err, Branches: map[string]string{}, DeliveryOff: q.DeliveryOff}
	if pr.err == nil {
		s.Panes = make(map[string]tmuxctl.Pane, len(pr.panes))
		for _, p := range pr.panes {
			s.Panes[p.ID] = p
		}
	}
	for _, it := range items {
		dir := it.Cwd
		if dir == "" {
			dir = s.Panes[it.Pane].CurrentPath
		}
		if _, seen := s.Branches[dir]; !seen && dir != "" {
			s.Branches[dir] = sanitize(adapter.GitBranch(dir))
		}
	}
	return s
}
