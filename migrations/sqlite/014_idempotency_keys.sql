-- Answers kept for Idempotency-Key: a call repeated with the same key, account and request within a
-- day gets the first answer again, free. A row is written in the same transaction as its call's
-- debit and usage line, so an answer that was billed is always here, and one that was not billed
-- never is. Calls still running hold their key in the serving process's memory (one process serves
-- an embedded store), so a key whose call died with its process is free again at once.
--
-- created_at is the first call's arrival (the clock of the requests): the answer is repeated until a
-- day after it, and rows older than that are deleted as new answers are written.
CREATE TABLE idempotency_keys (
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
  body         BLOB NOT NULL,
  PRIMARY KEY (account_id, idem_key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
