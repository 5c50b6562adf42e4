package focus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl"
)

// Queue is what the view asks the daemon: the queue in order.
type Queue interface {
	QueueView(ctx context.Context) (wire.Queue, error)
}

// View is one client's focus session on one tmux server.
type View struct {
	Tmux    *tmuxctl.Server
	Daemon  Queue
	Session string // SessionName of the client
}

// Enter puts client in its focus session, made (its window 0 running keeper, the command
// of `trailboss focus --keep`) when missing, with the head's window linked at window 1.
// A client already in it leaves instead: the same key goes in and out.
func (v *View) Enter(ctx context.Context, client, keeper string) error {
	from, err := v.clientSession(ctx, client)
	if err != nil {
		return err
	}
	if from == v.Session {
		return v.Leave(ctx, client)
	}
	exists, err := v.Tmux.HasSession(ctx, v.Session)
	if err != nil {
		return err
	}
	if !exists {
		if err := v.Tmux.NewSessionAt(ctx, v.Session, "queue", keeper); err != nil {
			return err
		}
	}
	// Only this session's status line changes: the queue in place of status-right.
	if err := v.Tmux.SetSessionOptions(ctx, v.Session, [][2]string{
		{MarkOption, "1"}, {FromOption, from},
		{"status-right", "#{" + LineOption + "} "}, {"status-right-length", "120"},
	}); err != nil {
		return err
	}
	target := "=" + v.Session + ":0"
	linked, err := v.Tmux.WindowPanes(ctx, v.Session, LinkedIndex)
	if err != nil {
		return err
	}
	if len(linked) > 0 {
		target = "=" + v.Session + ":1" // come back to what was being worked
	} else if q, err := v.Daemon.QueueView(ctx); err == nil {
		if it, ok := Choose(q.Items, v.Tmux.Socket, ""); ok {
			if err := v.link(ctx, it.Pane, false); err != nil {
				return err
			}
			target = "=" + v.Session + ":1"
		}
	}
	return v.Tmux.SwitchClientTo(ctx, client, target)
}

// Next links the next head's window at window 1 in place of the one there, for the
// person's prefix Tab or for auto-advance. It returns false, and changes nothing, when no
// other item of this tmux server waits.
func (v *View) Next(ctx context.Context) (bool, error) {
	current, err := v.current(ctx)
	if err != nil {
		return false, err
	}
	q, err := v.Daemon.QueueView(ctx)
	if err != nil {
		return false, err
	}
	it, ok := Choose(q.Items, v.Tmux.Socket, current)
	if !ok {
		return false, nil
	}
	panes, err := v.Tmux.WindowPanes(ctx, v.Session, LinkedIndex)
	if err != nil {
		return false, err
	}
	if slices.Contains(panes, it.Pane) {
		// The next item is in the window already linked (another pane of it).
		return true, v.Tmux.SetSessionOptions(ctx, v.Session, [][2]string{{PaneOption, it.Pane}})
	}
	return true, v.link(ctx, it.Pane, len(panes) > 0)
}

// link makes pane's window the session's window 1 (replacing the one there) and records
// pane as the item being worked.
func (v *View) link(ctx context.Context, pane string, replace bool) error {
	if err := v.Tmux.LinkPaneWindow(ctx, v.Session, LinkedIndex, pane, replace); err != nil {
		if errors.Is(err, tmuxctl.ErrOnlyLink) {
			return fmt.Errorf("window 1 of %s is linked nowhere else any more (its own session was closed), so it was left there: move it out with move-window, then press prefix Tab again", v.Session)
		}
		return fmt.Errorf("link the window of %s: %w", pane, err)
	}
	return v.Tmux.SetSessionOptions(ctx, v.Session, [][2]string{{PaneOption, pane}})
}

// current returns the pane being worked in window 1, or "" when window 1 is gone or holds
// another window than the one linked (the person relinked by hand).
func (v *View) current(ctx context.Context) (string, error) {
	pane, err := v.Tmux.SessionOption(ctx, v.Session, PaneOption)
	if err != nil {
		return "", err
	}
	panes, err := v.Tmux.WindowPanes(ctx, v.Session, LinkedIndex)
	if err != nil {
		return "", err
	}
	if !slices.Contains(panes, pane) {
		return "", nil
	}
	return pane, nil
}

// Leave takes client back to the session it came from, unlinks window 1 and ends the
// focus session: every window is then where it was. client may be "" (the keeper, when no
// client looks at the session any more).
func (v *View) Leave(ctx context.Context, client string) error {
	exists, err := v.Tmux.HasSession(ctx, v.Session)
	if err != nil || !exists {
		return err
	}
	if client != "" {
		if err := v.switchBack(ctx, client); err != nil {
			return err
		}
	}
	if panes, err := v.Tmux.WindowPanes(ctx, v.Session, LinkedIndex); err != nil {
		return err
	} else if len(panes) > 0 {
		if err := v.Tmux.UnlinkWindow(ctx, v.Session, LinkedIndex); err != nil {
			if errors.Is(err, tmuxctl.ErrOnlyLink) {
				return fmt.Errorf("window 1 of %s is linked nowhere else any more (its own session was closed), so %s stays: move the window out with move-window, then kill the session", v.Session, v.Session)
			}
			return err
		}
	}
	return v.Tmux.KillSession(ctx, v.Session)
}

// switchBack moves client out of the focus session: to the session it came from, else to
// any other session.
func (v *View) switchBack(ctx context.Context, client string) error {
	at, err := v.clientSession(ctx, client)
	if err != nil || at != v.Session {
		return err // not in the focus session: nothing to move
	}
	from, err := v.Tmux.SessionOption(ctx, v.Session, FromOption)
	if err != nil {
		return err
	}
	if from != "" && from != v.Session {
		if ok, _ := v.Tmux.HasSession(ctx, from); ok {
			return v.Tmux.SwitchClientTo(ctx, client, "="+from)
		}
	}
	names, err := v.Tmux.SessionNames(ctx)
	if err != nil {
		return err
	}
	for _, n := range names {
		if n != v.Session {
			return v.Tmux.SwitchClientTo(ctx, client, "="+n)
		}
	}
	return nil // no other session: ending this one detaches the client
}

// clientSession returns the session client is attached to.
func (v *View) clientSession(ctx context.Context, client string) (string, error) {
	clients, err := v.Tmux.ListClients(ctx)
	if err != nil {
		return "", err
	}
	for _, c := range clients {
		if c.Name == client {
			return c.SessionName, nil
		}
	}
	return "", fmt.Errorf("%w: %s is not attached", tmuxctl.ErrNoClient, client)
}

// Keep runs in the focus session's window 0 until the session ends: it keeps the status
// line and the queue on screen (out) current, moves on by itself when auto-advance is on
// (after > 0), and leaves (unlinking window 1) once no client looks at the session: the
// person switched away or detached. It looks every tick.
func (v *View) Keep(ctx context.Context, out io.Writer, after, tick time.Duration) error {
	adv := Advance{After: after}
	started := time.Now()
	var lastLine, lastState, lastScreen string
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		// The queue is read before the client's activity: a key that answered the item
		// reached tmux before the daemon heard of the answer, so it is in this look's
		// activity, and is never taken for a key typed after the answer.
		q, qerr := v.Daemon.QueueView(ctx)
		// Whether a client ever came is read before who is there now: read after, a
		// client arriving between the two would look like one that came and went.
		was, werr := v.Tmux.SessionWasAttached(ctx, v.Session)
		clients, err := v.Tmux.SessionClients(ctx, v.Session)
		if err != nil {
			if errors.Is(err, tmuxctl.ErrNoServer) || strings.Contains(err.Error(), "can't find session") {
				return nil // the session or its server is gone
			}
		} else {
			if len(clients) == 0 {
				// Left (switched away, detached) once a client was there; or never came.
				if werr == nil && (was || time.Since(started) > 10*time.Second) {
					return v.Leave(ctx, "")
				}
			}
			current, _ := v.current(ctx)
			state := "off"
			if after > 0 && qerr == nil && len(clients) > 0 {
				var activity int64
				for _, c := range clients {
					activity = max(activity, c.Activity.Unix())
				}
				taken := current != "" && !Waiting(q.Items, v.Tmux.Socket, current)
				if adv.Step(current, taken, activity, time.Now()) {
					if moved, _ := v.Next(ctx); moved {
						current, _ = v.current(ctx)
						adv.Step(current, false, activity, time.Now())
					}
				}
				state = adv.State()
			}
			var line string
			if qerr == nil {
				line = Line(q.Items, v.Tmux.Socket, current, state, after)
			} else {
				line = "trailboss: " + daemonTrouble(qerr)
			}
			if line != lastLine || state != lastState {
				if v.Tmux.SetSessionOptions(ctx, v.Session, [][2]string{{LineOption, line}, {AdvanceOption, state}}) == nil {
					lastLine, lastState = line, state
				}
			}
			if screen := Screen(q.Items, qerr, v.Tmux.Socket, current); screen != lastScreen {
				fmt.Fprint(out, "\x1b[H\x1b[2J"+screen)
				lastScreen = screen
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// daemonTrouble says what is wrong with the daemon, in a few words.
func daemonTrouble(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s, 100)
}

// Screen is what window 0 shows: the keys and the queue, the item linked in window 1
// marked.
func Screen(items []wire.Item, qerr error, socket, current string) string {
	var b strings.Builder
	b.WriteString(" Trail Boss focus view\r\n")
	b.WriteString(" prefix 1: the agent's window · prefix Tab: the next one · prefix F: leave\r\n\r\n")
	if qerr != nil {
		b.WriteString(" " + daemonTrouble(qerr) + "\r\n")
		return b.String()
	}
	if len(items) == 0 {
		b.WriteString(" Nothing waits.\r\n")
	}
	for i, it := range items {
		mark := "  "
		if it.Host == "" && it.Pane == current {
			mark = "▶ "
		}
		where := it.Pane
		switch {
		case it.Host != "":
			where = it.Host + ":" + it.Pane
		case !linkable(it, socket) && it.Ready:
			where += " (another tmux server)"
		}
		state := it.Reason
		if !it.Ready {
			state = "cooling"
		}
		fmt.Fprintf(&b, " %s%d  %-10s %-9s %s\r\n", mark, i+1, where, state, statusText(clip(it.Summary, 60)))
	}
	return b.String()
}
