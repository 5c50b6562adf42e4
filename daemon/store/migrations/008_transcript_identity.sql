-- Issue 19: a transcript rewritten in place or replaced is read from its start, not from a
-- stale offset. With the offset, the file it counts in (inode) and a fingerprint of the bytes
-- before it (their bits, as SQLite integers are signed). 0 = not known.
ALTER TABLE sessions ADD COLUMN transcript_file INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN transcript_mark INTEGER NOT NULL DEFAULT 0;
