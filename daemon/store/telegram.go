package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// TelegramMessage is the Telegram message that shows a prompt record.
type TelegramMessage struct {
	PromptID  string
	ChatID    int64
	MessageID int64
	Closed    bool   // it says the prompt is over and has no buttons
	HTML      string // what it said when sent
	SentAt    time.Time
}

// TelegramOffset returns the next update_id the relay asks getUpdates for; 0 when none
// was kept yet.
func (s *Store) TelegramOffset(ctx context.Context) (int64, error) {
	var off int64
	err := s.db.QueryRowContext(ctx, `SELECT next_update FROM telegram_offset WHERE id = 1`).Scan(&off)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the telegram offset: %w", err)
	}
	return off, nil
}

// SetTelegramOffset keeps off as the next update_id to ask for.
func (s *Store) SetTelegramOffset(ctx context.Context, off int64) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO telegram_offset (id, next_update) VALUES (1, ?)
		ON CONFLICT (id) DO UPDATE SET next_update = excluded.next_update`, off)
	if err != nil {
		return fmt.Errorf("keep the telegram offset: %w", writeError(err))
	}
	return nil
}

// TelegramMessages returns the messages of the prompts still shown with buttons (not
// closed), and those closed since the given time.
func (s *Store) TelegramMessages(ctx context.Context, closedSince time.Time) ([]TelegramMessage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT prompt_id, chat_id, message_id, closed, html, sent_at
		FROM telegram_messages WHERE closed = 0 OR sent_at >= ?`, nanos(closedSince))
	if err != nil {
		return nil, fmt.Errorf("load telegram messages: %w", err)
	}
	defer rows.Close()
	var out []TelegramMessage
	for rows.Next() {
		var m TelegramMessage
		var sent int64
		if err := rows.Scan(&m.PromptID, &m.ChatID, &m.MessageID, &m.Closed, &m.HTML, &sent); err != nil {
			return nil, fmt.Errorf("load telegram messages: %w", err)
		}
		m.SentAt = fromNanos(sent)
		out = append(out, m)
	}
	return out, rows.Err()
}

// SaveTelegramMessage records (or updates) the message of a prompt record.
func (s *Store) SaveTelegramMessage(ctx context.Context, m TelegramMessage) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO telegram_messages (prompt_id, chat_id, message_id, closed, html, sent_at)
		VALUES (?, ?, ?, ?, ?, ?)`, m.PromptID, m.ChatID, m.MessageID, m.Closed, m.HTML, nanos(m.SentAt))
	if err != nil {
		return fmt.Errorf("keep a telegram message: %w", writeError(err))
	}
	return nil
}

// ForgetTelegramMessages deletes the closed messages sent before cut.
func (s *Store) ForgetTelegramMessages(ctx context.Context, cut time.Time) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM telegram_messages WHERE closed = 1 AND sent_at < ?`, nanos(cut))
	if err != nil {
		return fmt.Errorf("forget old telegram messages: %w", writeError(err))
	}
	return nil
}
