-- Prompt records (DELIVERY.md): one question put to the operator by one stuck moment of
-- a session, and what became of it. Times are Unix nanoseconds (0 = unset).
CREATE TABLE prompts (
	id          TEXT PRIMARY KEY,
	nonce       TEXT NOT NULL,
	session_id  TEXT NOT NULL,
	harness     TEXT NOT NULL DEFAULT '',
	pane        TEXT NOT NULL DEFAULT '',
	tmux_socket TEXT NOT NULL DEFAULT '',
	kind        TEXT NOT NULL,
	question    TEXT NOT NULL DEFAULT '',
	choices     TEXT NOT NULL DEFAULT '[]', -- JSON [{"key","label"}]
	source      TEXT NOT NULL DEFAULT '',
	since       INTEGER NOT NULL DEFAULT 0,
	created_at  INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL,
	status      TEXT NOT NULL,
	why         TEXT NOT NULL DEFAULT '',
	closed_at   INTEGER NOT NULL DEFAULT 0,
	answer      TEXT NOT NULL DEFAULT '', -- the choice key; a typed text is never kept
	channel     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX prompts_session ON prompts (session_id, created_at);

-- Every attempt to deliver an answer: the audit log. The text itself is never kept.
CREATE TABLE deliveries (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	at         INTEGER NOT NULL,
	channel    TEXT NOT NULL,
	prompt_id  TEXT NOT NULL,
	session_id TEXT NOT NULL DEFAULT '',
	pane       TEXT NOT NULL DEFAULT '',
	via        TEXT NOT NULL DEFAULT '',
	length     INTEGER NOT NULL DEFAULT 0,
	result     TEXT NOT NULL,
	reason     TEXT NOT NULL DEFAULT ''
);
