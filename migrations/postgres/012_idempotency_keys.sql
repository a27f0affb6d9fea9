-- Idempotency-Key: a call repeated with the same key, account and request within a day gets the
-- first answer again, free, on whichever node it reaches.
--
-- A row is a claim while its call runs (state 'running': the node holding it renews lease_until
-- while the call runs, so a node that died lets go of its keys when the lease lapses), then the
-- answer (state 'done'), written in the same transaction as the call's debit, usage line and
-- settled_requests row. So an answer that was billed is always here, and one whose debit was given
-- back (a settle in doubt, compensated) is deleted in the compensation's transaction, unless it had
-- already been repeated to the client (replayed), in which case the debit stands.
--
-- created_at is the first call's arrival (the clock of the requests): the answer is repeated until a
-- day after it. recorded_at (the server's clock) is what the ledger prunes by.
CREATE TABLE idempotency_keys (
  account_id   text NOT NULL,
  idem_key     text NOT NULL,
  -- Hash of the request the key names: method, route, sorted query and body.
  fingerprint  text NOT NULL,
  state        text NOT NULL CHECK (state IN ('running', 'done')),
  -- Names the claim of one call, so a claim is released only by its holder.
  token        text NOT NULL,
  created_at   bigint NOT NULL,
  -- The claim lapses at this instant (the clock of the requests) unless its node renews it.
  lease_until  bigint NOT NULL,
  -- Set with the answer: the call whose answer this is (its debits name it in ledger_entries).
  request_id   text,
  status       integer,
  headers      text,
  body         bytea,
  replayed     boolean NOT NULL DEFAULT false,
  recorded_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, idem_key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (recorded_at);
CREATE INDEX idempotency_keys_by_request ON idempotency_keys (request_id) WHERE request_id IS NOT NULL;
