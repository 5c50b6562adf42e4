// Package store persists Sessions in SQLite (WAL). A write returns only after its
// transaction committed, so what the API acknowledged survives a crash of the daemon.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3" // also registers the "sqlite3" driver

	"github.com/trailboss/trailboss/daemon/queue"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Write failures that say what the operator must fix.
var (
	ErrDiskFull = errors.New("no space left on the state directory's disk")
	ErrReadOnly = errors.New("the state directory is read-only")
	ErrIO       = errors.New("disk I/O error in the state directory")
)

// writeError names the cause of a failed write when SQLite's code tells it.
func writeError(err error) error {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code {
	case sqlite3.ErrFull:
		return fmt.Errorf("%w: %w", ErrDiskFull, err)
	case sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrPerm:
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	case sqlite3.ErrIoErr:
		return fmt.Errorf("%w: %w", ErrIO, err)
	}
	return err
}

// ErrCorrupt is returned by Open when the file is not a usable SQLite database.
var ErrCorrupt = errors.New("state database is corrupt or not a trailboss database")

// Store is the daemon's SQLite database.
type Store struct {
	db *sql.DB
}

// Open opens (creating if needed) the database at path, checks that it is healthy and in WAL
// mode, and applies pending migrations, each in its own transaction.
func Open(ctx context.Context, path string) (*Store, error) {
	// Per-connection pragmas go in the DSN so that every pooled connection gets them.
	// synchronous=FULL: a commit is on disk before the API acknowledges it.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_journal_mode=WAL&_busy_timeout=5000&_txlock=immediate&_synchronous=FULL&_foreign_keys=on"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db}
	if err := s.check(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) check(ctx context.Context) error {
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return corrupt(err)
	}
	if mode != "wal" {
		return fmt.Errorf("journal_mode is %q, want wal", mode)
	}
	var ok string
	if err := s.db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&ok); err != nil {
		return corrupt(err)
	}
	if ok != "ok" {
		return fmt.Errorf("%w: %s", ErrCorrupt, ok)
	}
	return nil
}

func corrupt(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return err
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY)`); err != nil {
		return corrupt(err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if err := s.migrateFile(ctx, name); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func (s *Store) migrateFile(ctx context.Context, name string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // a no-op once committed
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM migrations WHERE name = ?`, name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := fs.ReadFile(migrations, name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO migrations (name) VALUES (?)`, name); err != nil {
		return err
	}
	return tx.Commit()
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

const columns = `id, harness, pane, tmux_socket, cwd, transcript_path, ended, stuck, reason, detail,
	summary, since, rank, cooldown_until, dismissed, last_event_at, pane_at, transcript_off, tail_at,
	transcript_file, transcript_mark, tmux_pid, pane_pid, agent_pid, agent_start`

// LoadSessions returns every session that has not ended.
func (s *Store) LoadSessions(ctx context.Context) ([]queue.Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+columns+` FROM sessions WHERE ended = 0`)
	if err != nil {
		return nil, fmt.Errorf("load sessions: %w", err)
	}
	defer rows.Close()
	var out []queue.Session
	for rows.Next() {
		q, err := scanSession(rows.Scan)
		if err != nil {
			return nil, fmt.Errorf("load sessions: %w", err)
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load sessions: %w", err)
	}
	return out, nil
}

// LoadSession returns one session, ended or not, or false when it is unknown.
func (s *Store) LoadSession(ctx context.Context, id string) (queue.Session, bool, error) {
	q, err := scanSession(s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM sessions WHERE id = ?`, id).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return queue.Session{}, false, nil
	}
	if err != nil {
		return queue.Session{}, false, fmt.Errorf("load session: %w", err)
	}
	return q, true, nil
}

// scanSession reads one row of columns with scan.
func scanSession(scan func(dest ...any) error) (queue.Session, error) {
	var q queue.Session
	var since, cooldown, lastEvent, paneAt, tailAt, file, mark, agentStart int64
	if err := scan(&q.ID, &q.Harness, &q.Pane, &q.TmuxSocket, &q.Cwd, &q.TranscriptPath,
		&q.Ended, &q.Stuck, &q.Reason, &q.Detail, &q.Summary, &since, &q.Rank, &cooldown,
		&q.Dismissed, &lastEvent, &paneAt, &q.Offset, &tailAt, &file, &mark,
		&q.Program.TmuxPID, &q.Program.PanePID, &q.Program.AgentPID, &agentStart); err != nil {
		return queue.Session{}, err
	}
	q.Since, q.CooldownUntil, q.LastEventAt = fromNanos(since), fromNanos(cooldown), fromNanos(lastEvent)
	q.PaneAt, q.TailAt = fromNanos(paneAt), fromNanos(tailAt)
	q.FileID, q.Mark, q.Program.AgentStart = uint64(file), uint64(mark), uint64(agentStart)
	return q, nil
}

// SaveSessions writes sessions, and the prompt records that changed with them, in one
// transaction and returns once it committed.
func (s *Store) SaveSessions(ctx context.Context, sessions []queue.Session, prompts ...queue.Prompt) error {
	if len(sessions) == 0 && len(prompts) == 0 {
		return nil
	}
	if err := s.save(ctx, sessions, prompts); err != nil {
		return fmt.Errorf("save sessions: %w", writeError(err))
	}
	return nil
}

func (s *Store) save(ctx context.Context, sessions []queue.Session, prompts []queue.Prompt) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // a no-op once committed
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO sessions (`+columns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, q := range sessions {
		if _, err := stmt.ExecContext(ctx, q.ID, q.Harness, q.Pane, q.TmuxSocket, q.Cwd,
			q.TranscriptPath, q.Ended, q.Stuck, q.Reason, q.Detail, q.Summary, nanos(q.Since),
			q.Rank, nanos(q.CooldownUntil), q.Dismissed, nanos(q.LastEventAt), nanos(q.PaneAt),
			// SQLite integers are signed: the two 64-bit values are stored as their bits.
			q.Offset, nanos(q.TailAt), int64(q.FileID), int64(q.Mark),
			q.Program.TmuxPID, q.Program.PanePID, q.Program.AgentPID, int64(q.Program.AgentStart)); err != nil {
			return fmt.Errorf("session %q: %w", q.ID, err)
		}
	}
	if err := savePrompts(ctx, tx, prompts); err != nil {
		return err
	}
	return tx.Commit()
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// EventSeen reports whether a generic event with this id was already applied.
func (s *Store) EventSeen(ctx context.Context, id string) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM event_ids WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up event id: %w", err)
	}
	return n > 0, nil
}

// eventIDsKept is how long an event id is remembered: a sender retries within seconds.
const eventIDsKept = 7 * 24 * time.Hour

// RecordEvent remembers that the generic event id was applied at, and forgets ids older
// than a week.
func (s *Store) RecordEvent(ctx context.Context, id string, at time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO event_ids (id, seen_at) VALUES (?, ?);
		DELETE FROM event_ids WHERE seen_at < ?`, id, at.UnixNano(), at.Add(-eventIDsKept).UnixNano())
	if err != nil {
		return fmt.Errorf("record event id: %w", writeError(err))
	}
	return nil
}
