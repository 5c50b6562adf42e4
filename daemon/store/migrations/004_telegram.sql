-- The Telegram relay (docs/delivery.md, "The Telegram relay"): the getUpdates offset, so that an update is never
-- handled twice across a restart once it was confirmed, and the message that shows each
-- prompt record, so that a restart edits it rather than sending it again.
CREATE TABLE telegram_offset (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	next_update INTEGER NOT NULL -- the next update_id to ask getUpdates for
);

CREATE TABLE telegram_messages (
	prompt_id  TEXT PRIMARY KEY,
	chat_id    INTEGER NOT NULL,
	message_id INTEGER NOT NULL,
	closed     INTEGER NOT NULL DEFAULT 0, -- 1 once the message says the prompt is over and has no buttons
	html       TEXT NOT NULL DEFAULT '',   -- what it said when sent: an edit keeps it and adds the outcome
	sent_at    INTEGER NOT NULL            -- Unix nanoseconds
);
CREATE INDEX telegram_messages_message ON telegram_messages (chat_id, message_id);
