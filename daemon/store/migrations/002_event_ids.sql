-- Ids of generic events already applied: a repeated id is acknowledged without effect.
CREATE TABLE event_ids (
	id      TEXT PRIMARY KEY,
	seen_at INTEGER NOT NULL -- Unix nanoseconds
);
CREATE INDEX event_ids_seen_at ON event_ids (seen_at);
