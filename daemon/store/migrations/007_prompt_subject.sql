-- Issue 18: one hold, one prompt. A record opened by a Claude Code PermissionRequest keeps
-- the fingerprint of the tool call it asks about (its tool and whole input); the hook that
-- holds for it prints a decision only for its own call. '' = not known.
ALTER TABLE prompts ADD COLUMN subject TEXT NOT NULL DEFAULT '';
