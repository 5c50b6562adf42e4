-- The audit log says which choice an answer made (allow, deny, an option's key): who
-- approved what. A reply's text is never kept, only its length.
ALTER TABLE deliveries ADD COLUMN choice TEXT NOT NULL DEFAULT '';
