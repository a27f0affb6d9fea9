-- Every transaction that writes content rows bumps this counter, so a process holding response
-- caches notices another process's ingest. (PRAGMA data_version cannot tell content from billing: the
-- ledger's commits, many a second, would drop the caches each time.)
CREATE TABLE content_epoch (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  n   INTEGER NOT NULL
);
INSERT INTO content_epoch (id, n) VALUES (1, 0);
