-- When each endpoint was last sent a test event: one every few seconds, counted from the last.
ALTER TABLE webhooks ADD COLUMN last_test_at INTEGER NOT NULL DEFAULT 0;
