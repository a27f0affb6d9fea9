-- Answers the live source got from its upstream, kept so a request already answered is served from
-- here rather than paid for again: a record's 200 body, or a known absence (404, with our own error
-- body). key is a hash of the operation and the canonical request. A row never goes back in time: a
-- write carrying an older fetched_at than the row's is ignored (two fetches finishing out of order).
--
-- fetched_at (unix ms) is when the upstream answered: answers older than the kept age are pruned by
-- it, hence its index.
CREATE TABLE live_answers (
  key         TEXT PRIMARY KEY CHECK (length(key) <= 64),
  -- The operation (price-table row) it answers: counted per operation for the operator.
  operation   TEXT NOT NULL,
  status      INTEGER NOT NULL CHECK (status IN (200, 404)),
  body        BLOB NOT NULL,
  fetched_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX live_answers_by_age ON live_answers (fetched_at);
