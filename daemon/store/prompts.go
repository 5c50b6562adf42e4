package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	"github.com/trailboss/trailboss/daemon/wire"
)

const promptColumns = `id, nonce, session_id, harness, pane, tmux_socket, kind, question, choices, source,
	since, created_at, expires_at, status, why, closed_at, answer, channel,
	secret, tmux_pid, pane_pid, agent_pid, agent_start, subject`

func savePrompts(ctx context.Context, tx *sql.Tx, prompts []queue.Prompt) error {
	if len(prompts) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO prompts (`+promptColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, p := range prompts {
		choices, err := json.Marshal(p.Ask.Choices)
		if err != nil {
			return err
		}
		if _, err := stmt.ExecContext(ctx, p.ID, p.Nonce, p.SessionID, p.Harness, p.Pane, p.TmuxSocket,
			p.Ask.Kind, p.Ask.Question, string(choices), p.Ask.From, nanos(p.Since), nanos(p.CreatedAt),
			nanos(p.ExpiresAt), p.Status, p.Why, nanos(p.ClosedAt), p.Answer, p.Channel,
			p.Ask.Secret, p.Program.TmuxPID, p.Program.PanePID, p.Program.AgentPID, int64(p.Program.AgentStart), p.Ask.Subject); err != nil {
			return fmt.Errorf("prompt %q: %w", p.ID, err)
		}
	}
	return nil
}

type scanner interface{ Scan(dest ...any) error }

func scanPrompt(row scanner) (queue.Prompt, error) {
	var p queue.Prompt
	var choices string
	var since, created, expires, closed, agentStart int64
	if err := row.Scan(&p.ID, &p.Nonce, &p.SessionID, &p.Harness, &p.Pane, &p.TmuxSocket, &p.Ask.Kind,
		&p.Ask.Question, &choices, &p.Ask.From, &since, &created, &expires, &p.Status, &p.Why, &closed,
		&p.Answer, &p.Channel, &p.Ask.Secret, &p.Program.TmuxPID, &p.Program.PanePID, &p.Program.AgentPID,
		&agentStart, &p.Ask.Subject); err != nil {
		return p, err
	}
	p.Program.AgentStart = uint64(agentStart)
	var cs []adapter.AskChoice
	if err := json.Unmarshal([]byte(choices), &cs); err != nil {
		return p, fmt.Errorf("prompt %q: choices: %w", p.ID, err)
	}
	p.Ask.Choices = cs
	p.Since, p.CreatedAt, p.ExpiresAt, p.ClosedAt = fromNanos(since), fromNanos(created), fromNanos(expires), fromNanos(closed)
	return p, nil
}

// LoadLatestPrompts returns the latest prompt record of each live session.
func (s *Store) LoadLatestPrompts(ctx context.Context) ([]queue.Prompt, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+promptColumns+` FROM prompts p
		WHERE created_at = (SELECT MAX(created_at) FROM prompts q WHERE q.session_id = p.session_id)
		AND session_id IN (SELECT id FROM sessions WHERE ended = 0)`)
	if err != nil {
		return nil, fmt.Errorf("load prompts: %w", err)
	}
	defer rows.Close()
	var out []queue.Prompt
	for rows.Next() {
		p, err := scanPrompt(rows)
		if err != nil {
			return nil, fmt.Errorf("load prompts: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load prompts: %w", err)
	}
	return out, nil
}

// LoadPrompt returns one prompt record, or false when no record has that id.
func (s *Store) LoadPrompt(ctx context.Context, id string) (queue.Prompt, bool, error) {
	p, err := scanPrompt(s.db.QueryRowContext(ctx, `SELECT `+promptColumns+` FROM prompts WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return queue.Prompt{}, false, nil
	}
	if err != nil {
		return queue.Prompt{}, false, fmt.Errorf("load prompt: %w", err)
	}
	return p, true, nil
}

// promptsKept is how long a closed prompt record is kept: long enough for a late answer to
// be told "answered" rather than "unknown", and for the audit log to name it.
const promptsKept = 7 * 24 * time.Hour

// ForgetOldPrompts deletes the records closed before now minus a week, and the audit log's
// entries older than that.
func (s *Store) ForgetOldPrompts(ctx context.Context, now time.Time) error {
	cut := now.Add(-promptsKept).UnixNano()
	_, err := s.db.ExecContext(ctx, `DELETE FROM prompts WHERE status != 'pending' AND closed_at != 0 AND closed_at < ?;
		DELETE FROM deliveries WHERE at < ?`, cut, cut)
	if err != nil {
		return fmt.Errorf("forget old prompts: %w", writeError(err))
	}
	return nil
}

// RecordDelivery appends one delivery attempt to the audit log.
func (s *Store) RecordDelivery(ctx context.Context, d wire.Delivery) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO deliveries (at, channel, prompt_id, session_id, pane, via, length, result, reason, actor, claimed, choice)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, nanos(d.At), d.Channel, d.PromptID, d.SessionID, d.Pane, d.Via,
		d.Length, d.Result, d.Reason, d.Actor, d.Claimed, d.Choice)
	if err != nil {
		return fmt.Errorf("record delivery: %w", writeError(err))
	}
	return nil
}

// Deliveries returns the last limit delivery attempts, newest first.
func (s *Store) Deliveries(ctx context.Context, limit int) ([]wire.Delivery, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT at, channel, prompt_id, session_id, pane, via, length, result, reason, actor, claimed, choice
		FROM deliveries ORDER BY seq DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	defer rows.Close()
	out := []wire.Delivery{}
	for rows.Next() {
		var d wire.Delivery
		var at int64
		if err := rows.Scan(&at, &d.Channel, &d.PromptID, &d.SessionID, &d.Pane, &d.Via, &d.Length, &d.Result, &d.Reason, &d.Actor, &d.Claimed, &d.Choice); err != nil {
			return nil, fmt.Errorf("list deliveries: %w", err)
		}
		d.At = fromNanos(at)
		out = append(out, d)
	}
	return out, rows.Err()
}
