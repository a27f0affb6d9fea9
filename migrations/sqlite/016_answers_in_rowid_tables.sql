-- The tables that keep whole answers (under Idempotency-Keys; from the live source's upstream) become
-- ordinary tables with a unique index on their key. In a WITHOUT ROWID table every row lives in the
-- key's own B-tree, which suits small rows only: with answers of several kilobytes each a page held
-- one row and spilled the rest into overflow pages, so looking a key up or adding one walked a tree
-- as large as the answers. The index now holds the keys alone, and the answers sit in the table.
CREATE TABLE idempotency_keys_rowid (
  account_id   TEXT NOT NULL,
  idem_key     TEXT NOT NULL,
  -- Hash of the request the key names: method, route, sorted query and body.
  fingerprint  TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  -- The call whose answer this is (its debits name it in ledger_entries).
  request_id   TEXT NOT NULL,
  status       INTEGER NOT NULL,
  -- The answer's own headers as a JSON object (content-type); per-call ones are not kept.
  headers      TEXT NOT NULL,
  body         BLOB NOT NULL
);
INSERT INTO idempotency_keys_rowid (account_id, idem_key, fingerprint, created_at, request_id, status, headers, body)
  SELECT account_id, idem_key, fingerprint, created_at, request_id, status, headers, body FROM idempotency_keys;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_rowid RENAME TO idempotency_keys;
CREATE UNIQUE INDEX idempotency_keys_by_key ON idempotency_keys (account_id, idem_key);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

CREATE TABLE live_answers_rowid (
  key         TEXT NOT NULL CHECK (length(key) <= 64),
  -- The operation (price-table row) it answers: counted per operation for the operator.
  operation   TEXT NOT NULL,
  status      INTEGER NOT NULL CHECK (status IN (200, 404)),
  body        BLOB NOT NULL,
  fetched_at  INTEGER NOT NULL
);
INSERT INTO live_answers_rowid (key, operation, status, body, fetched_at) SELECT key, operation, status, body, fetched_at FROM live_answers;
DROP TABLE live_answers;
ALTER TABLE live_answers_rowid RENAME TO live_answers;
CREATE UNIQUE INDEX live_answers_by_key ON live_answers (key);
CREATE INDEX live_answers_by_age ON live_answers (fetched_at);
