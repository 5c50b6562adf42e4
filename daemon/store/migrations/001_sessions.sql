-- One row per agent session the daemon has heard of. Times are Unix nanoseconds (0 = unset).
CREATE TABLE sessions (
	id              TEXT PRIMARY KEY,
	harness         TEXT NOT NULL DEFAULT '',
	pane            TEXT NOT NULL DEFAULT '',
	tmux_socket     TEXT NOT NULL DEFAULT '',
	cwd             TEXT NOT NULL DEFAULT '',
	transcript_path TEXT NOT NULL DEFAULT '',
	ended           INTEGER NOT NULL DEFAULT 0,
	stuck           INTEGER NOT NULL DEFAULT 0,
	reason          TEXT NOT NULL DEFAULT '',
	detail          TEXT NOT NULL DEFAULT '',
	summary         TEXT NOT NULL DEFAULT '',
	since           INTEGER NOT NULL DEFAULT 0,
	rank            INTEGER NOT NULL DEFAULT 0,
	cooldown_until  INTEGER NOT NULL DEFAULT 0,
	dismissed       INTEGER NOT NULL DEFAULT 0,
	last_event_at   INTEGER NOT NULL DEFAULT 0,
	pane_at         INTEGER NOT NULL DEFAULT 0,
	transcript_off  INTEGER NOT NULL DEFAULT 0,
	tail_at         INTEGER NOT NULL DEFAULT 0
);
