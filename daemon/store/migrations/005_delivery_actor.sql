-- Who answered (issue 17): the daemon's own word for the caller — the process its unix socket
-- names (uid, pid, command), the user a TCP connection belongs to, or the Telegram user — and,
-- for an answer through the HTTP API, which is always channel "api", what the caller said it
-- was ("popup", "cli", or anything else it claimed).
ALTER TABLE deliveries ADD COLUMN actor TEXT NOT NULL DEFAULT '';
ALTER TABLE deliveries ADD COLUMN claimed TEXT NOT NULL DEFAULT '';
